#include "fusion/ilp_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>

#include <coin/CbcModel.hpp>
#include <coin/CbcStrategy.hpp>
#include <coin/CglCutGenerator.hpp>
#include <coin/CoinError.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#include <coin/OsiCuts.hpp>
#include <coin/OsiRowCut.hpp>

namespace arrvm::fusion {

namespace {

// The caller's separator as a CBC cut generator, called on the LP
// solutions of the tree's nodes: its rows are valid for every solution the
// caller accepts, so they are added as globally valid cuts. (CBC does not
// call it where a node's LP solution is integral; telling it that such a
// solution is rejected, an event handler's killSolution, prunes the node:
// not a valid search.)
class SeparatorCuts : public CglCutGenerator {
 public:
  explicit SeparatorCuts(const Separator* separate) : separate_(separate) {}
  CglCutGenerator* clone() const override { return new SeparatorCuts(*this); }
  void generateCuts(const OsiSolverInterface& si, OsiCuts& cs, const CglTreeInfo = CglTreeInfo()) override {
    const double* sol = si.getColSolution();
    std::vector<int> idx;
    std::vector<double> val;
    for (const MipCut& c : (*separate_)(std::vector<double>(sol, sol + si.getNumCols()))) {
      idx.clear();
      val.clear();
      for (const auto& [col, coef] : c.terms) {
        idx.push_back(col);
        val.push_back(coef);
      }
      OsiRowCut cut;
      cut.setRow(static_cast<int>(idx.size()), idx.data(), val.data());
      cut.setLb(-si.getInfinity());
      cut.setUb(c.upper);
      cut.setGloballyValid(true);
      cs.insert(cut);
    }
  }

 private:
  const Separator* separate_;
};

}  // namespace

int MipProblem::add_column(double lower, double upper, double objective, bool integer) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  integer_.push_back(integer ? 1 : 0);
  return static_cast<int>(lower_.size()) - 1;
}

void MipProblem::add_row(std::vector<std::pair<int, double>> terms, double lower, double upper) {
  row_terms_.push_back(std::move(terms));
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
}

double MipProblem::objective_of(const std::vector<double>& x) const {
  double v = 0;
  for (std::size_t j = 0; j < objective_.size(); ++j) v += objective_[j] * x[j];
  return v;
}

bool MipProblem::feasible(const std::vector<double>& x) const {
  constexpr double kTol = 1e-6;
  if (x.size() != lower_.size()) return false;
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (x[j] < lower_[j] - kTol || x[j] > upper_[j] + kTol) return false;
    if (integer_[j] && std::abs(x[j] - std::round(x[j])) > kTol) return false;
  }
  for (std::size_t r = 0; r < row_terms_.size(); ++r) {
    double v = 0;
    for (const auto& [col, coef] : row_terms_[r]) v += coef * x[col];
    if (v < row_lower_[r] - kTol || v > row_upper_[r] + kTol) return false;
  }
  return true;
}

struct MipSolver {
  // Loads `p` into `solver` (integrality included).
  static void load(const MipProblem& p, OsiClpSolverInterface& solver, int level) {
    const int n = p.columns();
    // Row-ordered, built in one go (appending rows one by one is quadratic).
    std::vector<CoinBigIndex> start, len;
    std::vector<int> idx;
    std::vector<double> val;
    for (const auto& terms : p.row_terms_) {
      start.push_back(static_cast<CoinBigIndex>(idx.size()));
      len.push_back(static_cast<int>(terms.size()));
      for (const auto& [col, coef] : terms) {
        idx.push_back(col);
        val.push_back(coef);
      }
    }
    const CoinPackedMatrix matrix(false, n, p.rows(), static_cast<CoinBigIndex>(idx.size()), val.data(),
                                  idx.data(), start.data(), len.data());
    solver.messageHandler()->setLogLevel(level);
    solver.getModelPtr()->setLogLevel(level);
    // MipProblem's kInf (and anything beyond it) is the solver's infinity.
    const double inf = solver.getInfinity();
    std::vector<double> row_lower = p.row_lower_, row_upper = p.row_upper_;
    for (double& v : row_lower)
      if (v <= -MipProblem::kInf * 0.1) v = -inf;
    for (double& v : row_upper)
      if (v >= MipProblem::kInf * 0.1) v = inf;
    solver.loadProblem(matrix, p.lower_.data(), p.upper_.data(), p.objective_.data(), row_lower.data(),
                       row_upper.data());
    for (int j = 0; j < n; ++j) {
      if (p.integer_[j]) solver.setInteger(j);
    }
  }

  static std::vector<double> lp(const MipProblem& p, double* objective) {
    OsiClpSolverInterface solver;
    load(p, solver, 0);
    solver.initialSolve();
    if (!solver.isProvenOptimal()) return {};
    *objective = solver.getObjValue();
    const double* x = solver.getColSolution();
    return std::vector<double>(x, x + p.columns());
  }

  static MipResult solve(const MipProblem& p, const std::vector<double>& warm_start, double seconds,
                         bool verbose, const Separator& separate) {
    MipResult result;
    const auto start = std::chrono::steady_clock::now();
    const int n = p.columns();
    OsiClpSolverInterface solver;
    const int level = verbose ? 1 : 0;
    load(p, solver, level);
    // The initial LP solve is not covered by CbcModel's limit.
    solver.getModelPtr()->setMaximumSeconds(std::max(seconds, 0.01));
    CbcModel model(solver);
    model.setLogLevel(level);
    model.messageHandler()->setLogLevel(level);
    model.solver()->messageHandler()->setLogLevel(level);
    model.setUseElapsedTime(true);
    model.setMaximumSeconds(std::max(seconds, 0.0));
    CbcStrategyDefault strategy(1, 5, 0, 0);
    model.setStrategy(strategy);
    // The caller's rows, at every node. (OsiBabSolver's solver type 4, "cuts
    // needed for an integral solution", changed nothing measured.)
    SeparatorCuts generator(&separate);
    if (separate) model.addCutGenerator(&generator, 1, "separator");
    model.initialSolve();
    if (model.solver()->isProvenPrimalInfeasible()) {
      result.message = "the LP relaxation is infeasible";
      return result;
    }
    const bool warm = !warm_start.empty() && p.feasible(warm_start);
    if (warm) model.setBestSolution(warm_start.data(), n, p.objective_of(warm_start), true);
    model.branchAndBound();
    result.nodes = model.getNodeCount();
    const double* best = model.bestSolution();
    if (warm && (best == nullptr || model.isProvenInfeasible())) {
      // Out of time before CBC kept anything (it may then even call the
      // problem infeasible): the feasible warm start is still a solution.
      result.x = warm_start;
      result.objective = p.objective_of(result.x);
      result.status = MipResult::Status::Stopped;
      return result;
    }
    if (model.isProvenInfeasible() || best == nullptr) {
      result.message = model.isProvenInfeasible() ? "proven infeasible" : "no solution found";
      return result;
    }
    result.x.assign(best, best + n);
    result.objective = p.objective_of(result.x);
    // CBC can call a search that its time limit cut short (in the root cut
    // loop) finished, and then its incumbent "optimal": a run that reached
    // the limit proves nothing.
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool out_of_time = model.isSecondsLimitReached() || elapsed >= seconds;
    result.status =
        model.isProvenOptimal() && !out_of_time ? MipResult::Status::Optimal : MipResult::Status::Stopped;
    return result;
  }
};

std::vector<double> solve_lp(const MipProblem& p, double* objective) {
  try {
    return MipSolver::lp(p, objective);
  } catch (const CoinError&) {
    return {};
  } catch (const std::exception&) {
    return {};
  }
}

MipResult solve_mip(const MipProblem& p, const std::vector<double>& warm_start, double seconds, bool verbose,
                    const Separator& separate) {
  try {
    return MipSolver::solve(p, warm_start, seconds, verbose, separate);
  } catch (const CoinError& e) {
    MipResult r;
    r.message = "CBC error: " + e.message();
    return r;
  } catch (const std::exception& e) {
    MipResult r;
    r.message = std::string("CBC error: ") + e.what();
    return r;
  }
}

}  // namespace arrvm::fusion
