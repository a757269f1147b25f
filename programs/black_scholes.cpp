// Black-Scholes (benchpress black_scholes): the mean price of n European call
// options whose spot prices are uniform in [58, 62), re-priced on each of
// `iterations` days. Checksum: the sum of the daily mean prices.
#include <cmath>

#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

// The cumulative normal distribution (Abramowitz-Stegun 26.2.17), with the
// negative half mirrored by mask arithmetic as the NumPy original does.
Array cnd(const Array& x) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const Array l = absolute(x);
  const Array k = 1.0 / (1.0 + 0.2316419 * l);
  const Array k2 = k * k, k3 = k2 * k, k4 = k3 * k, k5 = k4 * k;
  Array w =
      1.0 - 1.0 / std::sqrt(2 * M_PI) * exp(-l * l / 2.0) * (a1 * k + a2 * k2 + a3 * k3 + a4 * k4 + a5 * k5);
  const Array mask = x < 0;
  return w * ~mask + (1.0 - w) * mask;
}

// The call price for spot prices s, strike x, time t, rate r, volatility v.
Array call_price(const Array& s, double x, double t, double r, double v) {
  const Array d1 = (log(s / x) + (r + v * v / 2.0) * t) / (v * std::sqrt(t));
  const Array d2 = d1 - v * std::sqrt(t);
  return s * cnd(d1) - x * std::exp(-r * t) * cnd(d2);
}

}  // namespace

double black_scholes(const Vm& vm, const Size& size) {
  const Array s = Array::random_uniform({size.n}, 1, vm) * 4.0 - 2.0 + 60.0;
  const double strike = 65.0, dt = 1.0 / 365.0, rate = 0.08, volatility = 0.3;
  double t = dt, checksum = 0;
  for (int64_t i = 0; i < size.iterations; ++i) {
    // np.sum(...) / N is a host number each day: one sync per iteration.
    // The sum is named so that the prices die before it is read (see leibnitz_pi.cpp).
    const Array total = call_price(s, strike, t, rate, volatility).sum();
    checksum += total.item<double>() / static_cast<double>(size.n);
    t += dt;
  }
  return checksum;
}

}  // namespace arrvm::bench
