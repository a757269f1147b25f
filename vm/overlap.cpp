// Exact overlap and injectivity of strided views: both are bounded linear
// Diophantine problems,  sum c_k x_k = r  with  0 <= x_k <= u_k,  decided by
// a depth-first search over the terms (largest coefficient first) that
// prunes by the reachable range and by the gcd of the remaining
// coefficients, and solves the last two terms in closed form. NumPy's
// solve_may_share_memory answers the same question; this is our own.
//
// Cost: the search is exponential in the worst case, so it carries a work
// bound; past it the answer is "may share" (the safe side: callers copy or
// keep apart). Views that slicing produces are decided by the fast tests in
// view.cpp before the search runs.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "vm/view.hpp"

namespace arrvm {

namespace {

using i128 = __int128;

struct Term {
  int64_t c;  // > 0
  int64_t u;  // > 0
};

enum class Answer { No, Yes, Unknown };

// Floor and ceiling division for a positive divisor.
i128 floor_div(i128 a, i128 b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
i128 ceil_div(i128 a, i128 b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// x, y with a x + b y = gcd(a, b) (a, b > 0).
i128 ext_gcd(i128 a, i128 b, i128* x, i128* y) {
  if (b == 0) {
    *x = 1;
    *y = 0;
    return a;
  }
  i128 x1, y1;
  const i128 g = ext_gcd(b, a % b, &x1, &y1);
  *x = y1;
  *y = x1 - (a / b) * y1;
  return g;
}

// c1 x + c2 y = r, 0 <= x <= u1, 0 <= y <= u2, in closed form.
bool solve_two(const Term& a, const Term& b, i128 r) {
  i128 x0, y0;
  const i128 g = ext_gcd(a.c, b.c, &x0, &y0);
  if (r % g != 0) return false;
  x0 *= r / g;
  y0 *= r / g;
  const i128 sx = b.c / g, sy = a.c / g;  // x = x0 + sx t, y = y0 - sy t
  const i128 lo = std::max(ceil_div(-x0, sx), ceil_div(y0 - b.u, sy));
  const i128 hi = std::min(floor_div(a.u - x0, sx), floor_div(y0, sy));
  return lo <= hi;
}

class Search {
 public:
  Search(std::vector<Term> terms, int64_t work) : t_(std::move(terms)), work_(work) {
    std::sort(t_.begin(), t_.end(), [](const Term& x, const Term& y) { return x.c > y.c; });
    const std::size_t n = t_.size();
    reach_.assign(n + 1, 0);
    gcd_.assign(n + 1, 0);
    for (std::size_t k = n; k-- > 0;) {
      reach_[k] = reach_[k + 1] + static_cast<i128>(t_[k].c) * t_[k].u;
      gcd_[k] = std::gcd(gcd_[k + 1], t_[k].c);
    }
  }

  Answer run(i128 r) {
    const bool found = solve(0, r);
    if (found) return Answer::Yes;
    return work_ < 0 ? Answer::Unknown : Answer::No;
  }

 private:
  bool solve(std::size_t k, i128 r) {
    if (r < 0 || r > reach_[k]) return false;
    if (k == t_.size()) return r == 0;
    if (r % gcd_[k] != 0) return false;
    if (k + 1 == t_.size()) return r % t_[k].c == 0 && r / t_[k].c <= t_[k].u;
    if (k + 2 == t_.size()) return solve_two(t_[k], t_[k + 1], r);
    // x_k must leave something the smaller terms can reach.
    const i128 c = t_[k].c;
    const i128 hi = std::min<i128>(t_[k].u, r / c);
    const i128 lo = std::max<i128>(0, ceil_div(r - reach_[k + 1], c));
    for (i128 x = hi; x >= lo; --x) {
      if (--work_ < 0) return false;
      if (solve(k + 1, r - c * x)) return true;
    }
    return false;
  }

  std::vector<Term> t_;
  std::vector<i128> reach_;
  std::vector<int64_t> gcd_;
  int64_t work_;
};

constexpr int64_t kWorkBound = 1 << 16;

// Adds c * x with x in [0, u] to the problem sum = r: negative coefficients
// are flipped (x' = u - x moves c u to the right-hand side). False if |c|
// does not fit a Term (only a coefficient of 2^63, which no view that
// validation accepted has on an axis longer than one).
bool add_term(std::vector<Term>* terms, i128* r, i128 c, int64_t u) {
  if (c == 0 || u <= 0) return true;
  if (c < 0) {
    *r -= c * u;
    c = -c;
  }
  if (c > INT64_MAX) return false;
  terms->push_back({static_cast<int64_t>(c), u});
  return true;
}

// Merges equal coefficients: x + y over [0, u1] x [0, u2] covers [0, u1 + u2].
Answer decide(std::vector<Term> terms, i128 r) {
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.c < y.c; });
  std::vector<Term> merged;
  for (const Term& t : terms) {
    if (!merged.empty() && merged.back().c == t.c) {
      merged.back().u += t.u;
    } else {
      merged.push_back(t);
    }
  }
  return Search(std::move(merged), kWorkBound).run(r);
}

}  // namespace

bool exact_overlap(const View& a, const View& b) {
  // a.offset + sum s_k i_k = b.offset + sum t_k j_k
  std::vector<Term> terms;
  i128 r = static_cast<i128>(b.offset) - a.offset;
  bool ok = true;
  for (int k = 0; k < a.rank(); ++k) ok = ok && add_term(&terms, &r, a.stride[k], a.shape[k] - 1);
  for (int k = 0; k < b.rank(); ++k)
    ok = ok && add_term(&terms, &r, -static_cast<i128>(b.stride[k]), b.shape[k] - 1);
  if (!ok) return true;  // (may overlap: the safe side)
  return decide(std::move(terms), r) != Answer::No;
}

bool exact_injective(const View& v) {
  // Two index vectors i != j with sum s_k (i_k - j_k) = 0. Take the first
  // axis k with d_k = i_k - j_k != 0 and (by symmetry) d_k > 0.
  for (int k = 0; k < v.rank(); ++k) {
    if (v.shape[k] <= 1) continue;
    std::vector<Term> terms;
    // d_k = 1 + x, x in [0, n_k - 2]
    i128 r = -static_cast<i128>(v.stride[k]);
    bool ok = add_term(&terms, &r, v.stride[k], v.shape[k] - 2);
    for (int j = k + 1; j < v.rank(); ++j) {
      // d_j = x - (n_j - 1), x in [0, 2 (n_j - 1)]
      if (v.shape[j] <= 1) continue;
      r += static_cast<i128>(v.stride[j]) * (v.shape[j] - 1);
      ok = ok && add_term(&terms, &r, v.stride[j], 2 * (v.shape[j] - 1));
    }
    if (!ok) return false;  // (not proven injective: the safe side)
    if (decide(std::move(terms), r) != Answer::No) return false;
  }
  return true;
}

}  // namespace arrvm
