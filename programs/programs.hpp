// The benchmark programs of the seed's Table I (Kristensen et al., Sec. VI),
// written against the C++ Array API the way a NumPy user writes them:
// slices, broadcasting, reductions, and host loops where NumPy programs have
// them. Each one has a NumPy twin in bench/numpy/programs.py that computes the
// same checksum for the same size; `arrvm bench` compares the two and
// tests/test_bench_programs.cpp pins the tiny sizes.
//
// A program issues its instructions to the Vm it is given and returns a
// checksum (a double that depends on every part of the computation). It
// never reads the environment: the caller configures the Vm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"

namespace arrvm::bench {

// The two knobs of every program: a problem size (its meaning is stated per
// program: a grid side, a number of elements, of bodies) and a number of
// iterations (time steps, trials, elimination steps).
struct Size {
  int64_t n = 0;
  int64_t iterations = 0;
};

enum class SizeClass { Tiny, Default, Paper };

using ProgramFn = double (*)(const Vm& vm, const Size& size);

struct Program {
  const char* name;   // "black_scholes": the CLI's and the NumPy script's name
  const char* title;  // "Black-Scholes": as in Table I
  ProgramFn run;
  const char* n_means;  // what Size::n counts, for the table's legend
  // tiny: a fraction of a second on ref (tests); default: 0.5-5 s on 2 cores
  // with the cpu backend; paper: Table I.
  Size tiny, normal, paper;
  // Relative tolerance of the checksum against NumPy: elementwise float64 is
  // bit-identical, reductions sum in another order (and libm's exp/log may
  // differ from NumPy's SIMD versions by an ulp), so 1e-9 unless stated.
  double rtol = 1e-9;

  Size size(SizeClass c) const {
    return c == SizeClass::Tiny ? tiny : c == SizeClass::Paper ? paper : normal;
  }
};

// Every program, in Table I's order.
const std::vector<Program>& programs();

// The program called `name`, or nullptr.
const Program* find_program(const std::string& name);

// "tiny" | "default" | "paper"; throws Error otherwise.
SizeClass parse_size_class(const std::string& s);
const char* size_class_name(SizeClass c);

// ---- the programs (one file each in programs/) ----
double black_scholes(const Vm& vm, const Size& size);      // n options, iterations time steps
double game_of_life(const Vm& vm, const Size& size);       // n x n cells
double heat_equation(const Vm& vm, const Size& size);      // n x n grid, at most `iterations` Jacobi sweeps
double leibnitz_pi(const Vm& vm, const Size& size);        // n terms, iterations trials
double gauss_elimination(const Vm& vm, const Size& size);  // n x n matrix, `iterations` elimination steps
double lu_factorization(const Vm& vm, const Size& size);   // n x n matrix, `iterations` elimination steps
double monte_carlo_pi(const Vm& vm, const Size& size);     // n samples, iterations trials
double stencil27(const Vm& vm, const Size& size);          // n x n x n grid
double shallow_water(const Vm& vm, const Size& size);      // n x n grid
double rosenbrock(const Vm& vm, const Size& size);         // n elements, iterations trials
double sor(const Vm& vm, const Size& size);         // n x n grid (four (n+2)/2 squares), at most `iterations`
double nbody(const Vm& vm, const Size& size);       // n bodies
double nbody_nice(const Vm& vm, const Size& size);  // 40 planets and n asteroids
double lattice_boltzmann(const Vm& vm, const Size& size);  // n x n x n lattice, 19 velocities
double water_ice(const Vm& vm, const Size& size);          // n x n columns of 4 ocean layers

}  // namespace arrvm::bench
