/* See hand_kernels.h. Float expressions follow the Array programs operation
 * for operation, so the checksums agree up to the order of summation. */
#include "hand_kernels.h"
#include "hand_common.h"

/* ---- Black-Scholes ---- */

static inline double cnd(double x) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double l = fabs(x);
  const double k = 1.0 / (1.0 + 0.2316419 * l);
  const double k2 = k * k, k3 = k2 * k, k4 = k3 * k, k5 = k4 * k;
  const double w =
      1.0 - 1.0 / sqrt(2 * M_PI) * exp(-l * l / 2.0) * (a1 * k + a2 * k2 + a3 * k3 + a4 * k4 + a5 * k5);
  const double mask = x < 0;
  return w * (1.0 - mask) + (1.0 - w) * mask;
}

double hand_black_scholes(int64_t n, int64_t iterations) {
  double* s = alloc_doubles(n);
#pragma omp parallel for if (n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) s[i] = philox_uniform(1, (uint64_t)i) * 4.0 - 2.0 + 60.0;
  const double x = 65.0, dt = 1.0 / 365.0, r = 0.08, v = 0.3;
  double t = dt, checksum = 0;
  for (int64_t it = 0; it < iterations; ++it) {
    const double drift = (r + v * v / 2.0) * t, vol = v * sqrt(t), discount = x * exp(-r * t);
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n >= PARALLEL_MIN) schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      const double d1 = (log(s[i] / x) + drift) / vol;
      const double d2 = d1 - vol;
      sum += s[i] * cnd(d1) - discount * cnd(d2);
    }
    checksum += sum / (double)n;
    t += dt;
  }
  free(s);
  return checksum;
}

/* ---- heat equation: two grids swapped, the delta in the same pass ---- */

double hand_heat_equation(int64_t n, int64_t iterations) {
  const int64_t w = n + 2;
  double* a = alloc_doubles(w * w);
  double* b = alloc_doubles(w * w);
  memset(a, 0, (size_t)(w * w) * sizeof(double));
  for (int64_t i = 0; i < w; ++i) {
    a[i * w] = -273.15;
    a[i * w + w - 1] = -273.15;
  }
  for (int64_t j = 0; j < w; ++j) {
    a[(w - 1) * w + j] = -273.15;
    a[j] = 40.0;
  }
  memcpy(b, a, (size_t)(w * w) * sizeof(double));
  const double epsilon = 0.005;
  double delta = epsilon + 1;
  int64_t iteration = 0;
  while (delta > epsilon) {
    ++iteration;
    double d = 0;
#pragma omp parallel for reduction(+ : d) if (n * n >= PARALLEL_MIN) schedule(static)
    for (int64_t i = 1; i <= n; ++i) {
      for (int64_t j = 1; j <= n; ++j) {
        const double c = a[i * w + j];
        const double work =
            0.2 * (c + a[(i - 1) * w + j] + a[i * w + j + 1] + a[i * w + j - 1] + a[(i + 1) * w + j]);
        d += fabs(work - c);
        b[i * w + j] = work;
      }
    }
    delta = d;
    double* tmp = a;
    a = b;
    b = tmp;
    if (iteration >= iterations) break;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 1; i <= n; ++i) {
    for (int64_t j = 1; j <= n; ++j) sum += a[i * w + j];
  }
  free(a);
  free(b);
  return sum + delta;
}

/* ---- Leibnitz pi ---- */

double hand_leibnitz_pi(int64_t n, int64_t iterations) {
  double total = 0;
  for (int64_t it = 0; it < iterations; ++it) {
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n >= PARALLEL_MIN) schedule(static)
    for (int64_t k = 0; k < n; ++k) sum += 1.0 / (double)(4 * k + 1) - 1.0 / (double)(4 * k + 3);
    total += 4.0 * sum;
  }
  return total / (double)iterations;
}

/* ---- Monte Carlo pi ---- */

double hand_monte_carlo_pi(int64_t n, int64_t iterations) {
  double total = 0;
  for (int64_t it = 0; it < iterations; ++it) {
    const uint64_t seed = (uint64_t)(100 + 2 * it);
    int64_t inside = 0;
    /* A block per two points of each coordinate. */
#pragma omp parallel for reduction(+ : inside) if (n >= PARALLEL_MIN) schedule(static)
    for (int64_t b = 0; b < (n + 1) / 2; ++b) {
      double x[2], y[2];
      philox_uniform_pair(seed, (uint64_t)b, x);
      philox_uniform_pair(seed + 1, (uint64_t)b, y);
      for (int64_t k = 0; k < 2 && 2 * b + k < n; ++k) inside += sqrt(x[k] * x[k] + y[k] * y[k]) <= 1.0;
    }
    total += (double)inside * 4.0 / (double)n;
  }
  return total / (double)iterations;
}

/* ---- Rosenbrock: the data set in memory, as the program keeps it ---- */

double hand_rosenbrock(int64_t n, int64_t iterations) {
  double* x = alloc_doubles(n);
#pragma omp parallel for if (n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] = (double)i / (double)n;
  double total = 0;
  for (int64_t it = 0; it < iterations; ++it) {
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n >= PARALLEL_MIN) schedule(static)
    for (int64_t i = 0; i < n - 1; ++i) {
      const double a = x[i], b = x[i + 1];
      const double t = 1 - a, u = b - a * a;
      sum += t * t + 100.0 * (u * u);
    }
    total += sum;
  }
  free(x);
  return total / (double)iterations;
}
