// The table of benchmark programs: names, sizes, tolerances.
#include <string>

#include "programs/programs.hpp"

namespace arrvm::bench {

const std::vector<Program>& programs() {
  // name, title, function, what n counts, tiny, default, paper (Table I).
  // Default sizes: about 0.5-5 s per run on 2 cores, cpu backend, greedy.
  static const std::vector<Program> table = {
      {"black_scholes", "Black-Scholes", black_scholes, "options", {1000, 3}, {1000000, 20}, {1500000, 20}},
      {"game_of_life", "Game of Life", game_of_life, "cells per side", {32, 4}, {2000, 20}, {10000, 20}},
      {"heat_equation", "Heat Equation", heat_equation, "cells per side", {16, 5}, {2000, 20}, {12000, 20}},
      {"leibnitz_pi", "Leibnitz PI", leibnitz_pi, "terms", {1000, 3}, {20000000, 20}, {100000000, 20}},
      {"gauss", "Gauss Elimination", gauss_elimination, "rows", {12, 11}, {1000, 999}, {2800, 2799}},
      {"lu", "LU Factorization", lu_factorization, "rows", {12, 11}, {1000, 999}, {2800, 2799}},
      {"monte_carlo_pi",
       "Monte Carlo PI",
       monte_carlo_pi,
       "samples",
       {1000, 3},
       {10000000, 20},
       {100000000, 20}},
      {"stencil27", "27 Point Stencil", stencil27, "cells per side", {10, 3}, {200, 20}, {350, 20}},
      {"shallow_water", "Shallow Water", shallow_water, "cells per side", {16, 3}, {1000, 20}, {3200, 20}},
      {"rosenbrock", "Rosenbrock", rosenbrock, "elements", {1000, 3}, {20000000, 20}, {200000000, 20}},
      {"sor", "Successive over-relaxation", sor, "cells per side", {16, 5}, {2000, 20}, {12000, 20}},
      {"nbody", "N-body", nbody, "bodies", {16, 3}, {1000, 20}, {6000, 20}},
      {"nbody_nice",
       "N-body Nice",
       nbody_nice,
       "asteroids (and 40 planets)",
       {32, 3},
       {100000, 20},
       {2000000, 20}},
      {"lattice_boltzmann",
       "Lattice-Boltzmann D3Q19",
       lattice_boltzmann,
       "cells per side",
       {6, 3},
       {40, 20},
       {150, 20}},
      {"water_ice",
       "Water-Ice Simulation",
       water_ice,
       "columns per side (x 4 layers)",
       {6, 3},
       {200, 20},
       {400, 20}},
  };
  return table;
}

const Program* find_program(const std::string& name) {
  for (const Program& p : programs()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

SizeClass parse_size_class(const std::string& s) {
  if (s == "tiny") return SizeClass::Tiny;
  if (s == "default") return SizeClass::Default;
  if (s == "paper") return SizeClass::Paper;
  throw Error("unknown size '" + s + "' (tiny, default or paper)");
}

const char* size_class_name(SizeClass c) {
  switch (c) {
    case SizeClass::Tiny:
      return "tiny";
    case SizeClass::Default:
      return "default";
    case SizeClass::Paper:
      return "paper";
  }
  return "?";
}

}  // namespace arrvm::bench
