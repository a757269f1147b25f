static inline double f_add_float64(double a, double b) { return a + b; }
static inline int64_t arrvm_flat(int64_t f, const int64_t* q, int r) {
  int64_t off = q[0];
  for (int d = r - 1; d >= 0; --d) { off += (f % q[2 + d]) * q[2 + r + d]; f /= q[2 + d]; }
  return off;
}
static void arrvm_bad_index(int64_t* e, int64_t f, int64_t x) {
#pragma omp critical(arrvm_bad_index)
  if (f < e[0]) { e[0] = f; e[1] = x; }
}
void kernel(void** p, const int64_t* a, const uint64_t* c) {
  double* P0 = (double*)p[0];
  int64_t* P1 = (int64_t*)p[1];
  double* Q0 = (double*)p[2];
  int64_t* E = (int64_t*)p[3];
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2];
  const int64_t s0_0 = a[3];
  const int64_t o1_0 = a[4];
  const int64_t s1_0 = a[5];
  const int64_t* q0 = a + 6;
  const int64_t N0 = q0[1];
  double C0_; memcpy(&C0_, &c[0], sizeof(C0_)); const double C0 = C0_;
  for (int64_t i0 = 0; i0 < n0; ++i0) {
    const int64_t o0_1 = o0_0 + i0;
    const int64_t o1_1 = o1_0 + i0;
    const int64_t f = i0;
    double t0;
    t0 = (double)f_add_float64(P0[o0_1], C0);
    {
      const int64_t x = P1[o1_1];
      if ((uint64_t)x < (uint64_t)N0) Q0[q0[0] + x * q0[3]] = t0; else arrvm_bad_index(E + 0, f, x);
    }
  }
}
