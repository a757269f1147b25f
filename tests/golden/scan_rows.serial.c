static inline double f_multiply_float64(double a, double b) { return a * b; }
static inline double f_add_float64(double a, double b) { return a + b; }
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
  double C0_; memcpy(&C0_, &c[0], sizeof(C0_)); const double C0 = C0_;
  for (int64_t i0 = 0; i0 < n0; ++i0) {
    const int64_t o0_1 = o0_0 + i0 * s0_0;
    const int64_t o1_1 = o1_0 + i0 * s1_0;
    double acc0 = -0.0;
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1 + i1;
      const int64_t o1_2 = o1_1 + i1;
      double t0;
      t0 = (double)f_multiply_float64(P0[o0_2], C0);
      acc0 = (double)f_add_float64(acc0, t0);
      P1[o1_2] = acc0;
    }
  }
}
