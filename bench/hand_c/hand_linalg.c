/* Hand-written twins of gauss and lu (see hand_kernels.h): the elimination
 * step k is one pass over the trailing rows (row i: its factor, then the
 * update of columns k..n-1), parallel over rows when the block is large. */
#include "hand_common.h"
#include "hand_kernels.h"

static double* random_dominant(int64_t n, uint64_t seed) {
  double* a = alloc_doubles(n * n);
#pragma omp parallel for if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n * n; ++i) a[i] = philox_uniform(seed, (uint64_t)i);
  for (int64_t i = 0; i < n; ++i) a[i * n + i] += (double)n;
  return a;
}

/* a[k+1:, k:] -= (a[k+1:, k] / a[k, k])[:, None] * a[k, k:], the factors
 * stored into l[k+1:, k] when l is not NULL. */
static void eliminate(double* a, double* l, int64_t n, int64_t k) {
  const double* pivot = a + k * n;
  const double akk = pivot[k];
  const int64_t rows = n - k - 1;
#pragma omp parallel for if (rows * (n - k) >= PARALLEL_MIN) schedule(static)
  for (int64_t i = k + 1; i < n; ++i) {
    double* row = a + i * n;
    const double f = row[k] / akk;
    if (l) l[i * n + k] = f;
    for (int64_t j = k; j < n; ++j) row[j] = row[j] - f * pivot[j];
  }
}

double hand_gauss(int64_t n, int64_t iterations) {
  double* a = random_dominant(n, 3);
  for (int64_t k = 0; k < iterations && k < n - 1; ++k) eliminate(a, NULL, n, k);
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const double d = a[i * n + i];
    for (int64_t j = 0; j < n; ++j) {
      a[i * n + j] /= d;
      sum += a[i * n + j];
    }
  }
  free(a);
  return sum;
}

double hand_lu(int64_t n, int64_t iterations) {
  double* u = random_dominant(n, 4);
  double* l = zero_doubles(n * n);
  for (int64_t i = 0; i < n; ++i) l[i * n + i] = 1.0;
  for (int64_t k = 0; k < iterations && k < n - 1; ++k) eliminate(u, l, n, k);
  double sl = 0, su = 0;
#pragma omp parallel for reduction(+ : sl, su) if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n * n; ++i) {
    sl += l[i];
    su += u[i];
  }
  free(u);
  free(l);
  return sl + su;
}
