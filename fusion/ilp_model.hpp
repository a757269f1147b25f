// A small mixed-integer program (minimize c·x subject to row ranges and
// column bounds) and its solution with CBC through the library API
// (OsiClpSolverInterface + CbcModel), or of its LP relaxation with Clp: no
// subprocess, no files. The only file of the fusion engine that includes
// COIN-OR headers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace arrvm::fusion {

class MipProblem {
 public:
  static constexpr double kInf = 1e30;

  // Adds a column; returns its index.
  int add_column(double lower, double upper, double objective, bool integer);
  // Adds the row lower <= sum coef * x[col] <= upper.
  void add_row(std::vector<std::pair<int, double>> terms, double lower, double upper);

  int columns() const { return static_cast<int>(lower_.size()); }
  int rows() const { return static_cast<int>(row_lower_.size()); }
  double objective_of(const std::vector<double>& x) const;
  // True if x satisfies every bound, row and integrality (tolerance 1e-6).
  bool feasible(const std::vector<double>& x) const;

 private:
  friend struct MipSolver;
  std::vector<double> lower_, upper_, objective_;
  std::vector<char> integer_;
  std::vector<std::vector<std::pair<int, double>>> row_terms_;
  std::vector<double> row_lower_, row_upper_;
};

struct MipResult {
  enum class Status {
    Optimal,  // proven optimal
    Stopped,  // time limit reached; x is the best solution found (maybe the warm start)
    Failed,   // infeasible, unbounded, solver error, or no solution: x is empty
  };
  Status status = Status::Failed;
  std::vector<double> x;
  double objective = 0;
  std::string message;  // why it failed
  int64_t nodes = 0;
};

// A row sum(terms) <= upper, found after the problem was built (a cut).
struct MipCut {
  std::vector<std::pair<int, double>> terms;
  double upper = 0;
};

// Rows that x (an LP solution, fractional or integral) violates, among rows
// the problem leaves out because they are too many to write down, each
// valid for every solution the caller accepts. For an integral x, none
// means the caller accepts x.
using Separator = std::function<std::vector<MipCut>(const std::vector<double>& x)>;

// Solves `p` with CBC within `seconds` (wall clock). `warm_start`, if not
// empty and feasible, is handed to CBC as the first incumbent. Solver output
// goes to stdout only when `verbose`. With `separate`, the fractional LP
// solutions of CBC's tree are put to it and the rows it returns are cuts
// there: the bound rises inside one branch and bound, instead of by a solve
// per round of rows. CBC takes an integral solution (a node's, a
// heuristic's) without asking, so the result may violate the rows: the
// caller checks. The bound is valid either way (the rows hold for every
// solution the caller accepts).
MipResult solve_mip(const MipProblem& p, const std::vector<double>& warm_start, double seconds, bool verbose,
                    const Separator& separate = {});

// The LP relaxation of `p` solved with Clp: its optimal x and value, or an
// empty x if it has none (infeasible, unbounded, solver error).
std::vector<double> solve_lp(const MipProblem& p, double* objective);

}  // namespace arrvm::fusion
