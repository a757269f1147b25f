static inline double f_divide_float64(double a, double b) { return a / b; }
static inline double f_add_float64(double a, double b) { return a + b; }
#pragma omp declare reduction(arrvm_r0 : double : omp_out = f_add_float64(omp_out, omp_in)) initializer(omp_priv = -0.0)
void kernel(void** p, const int64_t* a, const uint64_t* c) {
  double* P0 = (double*)p[0];
  double* P1 = (double*)p[1];
  const int64_t n0 = a[0];
  const int64_t n1 = a[1];
  const int64_t o0_0 = a[3];
  const int64_t s0_0 = a[4];
  const int64_t s0_1 = a[5];
  const int64_t o1_0 = a[6];
  const int64_t s1_0 = a[7];
  const int64_t s1_1 = a[8];
#pragma omp parallel for if(a[2] > 1) num_threads(a[2] > 1 ? (int)a[2] : 1) schedule(static)
  for (int64_t i0 = 0; i0 < n0; ++i0) {
    const int64_t o0_1 = o0_0 + i0 * s0_0;
    const int64_t o1_1 = o1_0 + i0 * s1_0;
    double t0;
    double acc0 = -0.0;
#pragma omp simd reduction(arrvm_r0:acc0) if(simd: n1 >= 256)
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1 + i1;
      const int64_t o1_2 = o1_1 + i1;
      acc0 = (double)f_add_float64(acc0, P0[o0_2]);
    }
    if (n1 == 0) acc0 = 0;
    t0 = acc0;
#pragma omp simd
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1 + i1;
      const int64_t o1_2 = o1_1 + i1;
      P1[o1_2] = (double)f_divide_float64(P0[o0_2], t0);
    }
  }
}
