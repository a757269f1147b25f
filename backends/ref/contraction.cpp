#include "backends/ref/contraction.hpp"

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

#include "backends/ref/ref_iterate.hpp"

namespace arrvm::ref {

namespace {

bool same_view(const View& a, const View& b) {
  return a.base == b.base && a.offset == b.offset && a.shape == b.shape && a.stride == b.stride;
}

bool frees(std::span<const Instruction> batch, std::span<const uint32_t> block, BaseId id) {
  return std::any_of(block.begin(), block.end(),
                     [&](uint32_t i) { return batch[i].op == Opcode::Free && batch[i].out.base == id; });
}

// A panel of rows of sums: for k < n, for each outer index o < no,
// acc[o * m + j] (+)= x[xo[o] + k*kx + j*jx] * y[yo[o] + k*ky + j*jy] for
// j < m, each product rounded to T before the add; at k = 0, acc = the
// product. k outermost: y's row (a @ b's b[k, :]) is read once for the
// whole panel, whose sums stay in cache. Every sum still adds its products
// in k order, so the loop order is free. (This file is compiled without
// floating-point contraction: a fused multiply-add would not round the
// product, and ref's values would be lost. The loops over j vectorize
// exactly, each acc element being its own sum. The clones run AVX-512 or
// AVX2 where the machine has them; the library's baseline is SSE2.)
template <typename T>
inline void panel_kernel(double* acc, const T* x, const int64_t* xo, int64_t kx, int64_t jx, const T* y,
                         const int64_t* yo, int64_t ky, int64_t jy, int64_t no, int64_t m, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t o = 0; o < no; ++o) {
      double* a = acc + o * m;
      const T* xr = x + xo[o] + k * kx;
      const T* yr = y + yo[o] + k * ky;
      if (jx == 0 && jy == 1) {  // a @ b: a's element times b's row
        const T u = *xr;
        if (k == 0) {
          for (int64_t j = 0; j < m; ++j) a[j] = static_cast<double>(static_cast<T>(u * yr[j]));
        } else {
          for (int64_t j = 0; j < m; ++j) a[j] += static_cast<double>(static_cast<T>(u * yr[j]));
        }
      } else if (jx == 1 && jy == 0) {
        const T v = *yr;
        if (k == 0) {
          for (int64_t j = 0; j < m; ++j) a[j] = static_cast<double>(static_cast<T>(xr[j] * v));
        } else {
          for (int64_t j = 0; j < m; ++j) a[j] += static_cast<double>(static_cast<T>(xr[j] * v));
        }
      } else if (jx == 1 && jy == 1) {  // sum(x * y, axis=0)
        if (k == 0) {
          for (int64_t j = 0; j < m; ++j) a[j] = static_cast<double>(static_cast<T>(xr[j] * yr[j]));
        } else {
          for (int64_t j = 0; j < m; ++j) a[j] += static_cast<double>(static_cast<T>(xr[j] * yr[j]));
        }
      } else if (k == 0) {
        for (int64_t j = 0; j < m; ++j) a[j] = static_cast<double>(static_cast<T>(xr[j * jx] * yr[j * jy]));
      } else {
        for (int64_t j = 0; j < m; ++j) a[j] += static_cast<double>(static_cast<T>(xr[j * jx] * yr[j * jy]));
      }
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void panel_f64(
    double* acc, const double* x, const int64_t* xo, int64_t kx, int64_t jx, const double* y,
    const int64_t* yo, int64_t ky, int64_t jy, int64_t no, int64_t m, int64_t n) {
  panel_kernel<double>(acc, x, xo, kx, jx, y, yo, ky, jy, no, m, n);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void panel_f32(
    double* acc, const float* x, const int64_t* xo, int64_t kx, int64_t jx, const float* y, const int64_t* yo,
    int64_t ky, int64_t jy, int64_t no, int64_t m, int64_t n) {
  panel_kernel<float>(acc, x, xo, kx, jx, y, yo, ky, jy, no, m, n);
}

template <typename T>
void contract(const Contraction& c, const T* xp, const T* yp, T* rp) {
  const View& x = c.product->in[0].view;
  const View& y = c.product->in[1].view;
  const View& r = c.sum->out;
  const int axis = c.sum->axis;
  const Dims& shape = x.shape;  // t's, and x's and y's
  const int rank = shape.size();
  const int64_t n = shape[axis];
  const int64_t kx = x.stride[axis], ky = y.stride[axis];
  // The innermost axis other than the summed one: a row of sums, when it
  // is long enough to pay and x and y step along it by 0 or 1 element (or
  // can be packed so), so that the row's loop vectorizes. Else dots: k
  // innermost, kChains sums of the row at a time (`A @ v` is this form).
  const int j = axis == rank - 1 ? rank - 2 : rank - 1;
  const int64_t m = j >= 0 ? shape[j] : 1;
  const int64_t jx = j >= 0 ? x.stride[j] : 0, jy = j >= 0 ? y.stride[j] : 0;
  const int64_t jr = j >= 0 ? r.stride[j < axis ? j : j - 1] : 0;
  // The outer axes: all but the summed one and j; r's strides are the
  // output's, whose axes are t's without the summed one.
  Dims outer, sx, sy, sr;
  for (int d = 0, o = 0; d < rank; ++d) {
    if (d == axis) continue;
    const int64_t r_stride = r.stride[o++];
    if (d == j) continue;
    outer.push_back(shape[d]);
    sx.push_back(x.stride[d]);
    sy.push_back(y.stride[d]);
    sr.push_back(r_stride);
  }
  // An operand that steps along j by more elements but is the same for
  // every outer index (b in `a @ b.T`) is copied once into k-major rows
  // (at most kPackBytes), and the panel takes it with unit stride.
  constexpr int64_t kPackBytes = int64_t{16} << 20;
  auto packable = [&](int64_t step, const Dims& so) {
    return step == 0 || step == 1 ||
           (outer.product() > 1 && single(so) && n * m * static_cast<int64_t>(sizeof(T)) <= kPackBytes);
  };
  const bool rows = j >= 0 && m >= 8 && packable(jx, sx) && packable(jy, sy);
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  if (rows) {
    std::vector<T> packed_x, packed_y;
    auto pack = [&](const T* p, int64_t kstep, int64_t jstep, std::vector<T>& buf) {
      buf.resize(static_cast<std::size_t>(n * m));
      for (int64_t q = 0; q < m; ++q) {
        for (int64_t k = 0; k < n; ++k) buf[static_cast<std::size_t>(k * m + q)] = p[k * kstep + q * jstep];
      }
      return buf.data();
    };
    const bool pack_x = jx != 0 && jx != 1, pack_y = jy != 0 && jy != 1;
    const T* px = pack_x ? pack(xp + x.offset, kx, jx, packed_x) : xp + x.offset;
    const T* py = pack_y ? pack(yp + y.offset, ky, jy, packed_y) : yp + y.offset;
    const int64_t pkx = pack_x ? m : kx, pjx = pack_x ? 1 : jx;
    const int64_t pky = pack_y ? m : ky, pjy = pack_y ? 1 : jy;
    // Panels of outer indices whose sums take at most kPanel doubles.
    constexpr int64_t kPanel = 16384;
    const int64_t per = std::max<int64_t>(1, kPanel / m);
    std::vector<double> acc(static_cast<std::size_t>(std::min(per, outer.product()) * m));
    std::vector<int64_t> xo, yo, ro;
    auto flush = [&] {
      const auto no = static_cast<int64_t>(xo.size());
      if constexpr (std::is_same_v<T, double>) {
        panel_f64(acc.data(), px, xo.data(), pkx, pjx, py, yo.data(), pky, pjy, no, m, n);
      } else {
        panel_f32(acc.data(), px, xo.data(), pkx, pjx, py, yo.data(), pky, pjy, no, m, n);
      }
      for (int64_t o = 0; o < no; ++o) {
        T* out = rp + r.offset + ro[static_cast<std::size_t>(o)];
        const double* a = acc.data() + o * m;
        for (int64_t q = 0; q < m; ++q) out[q * jr] = static_cast<T>(a[q]);
      }
      xo.clear();
      yo.clear();
      ro.clear();
    };
    for_each_index<3>(outer, {0, 0, 0}, {&sx, &sy, &sr}, [&](const std::array<int64_t, 3>& o) {
      xo.push_back(o[0]);
      yo.push_back(o[1]);
      ro.push_back(o[2]);
      if (static_cast<int64_t>(xo.size()) == per) flush();
    });
    if (!xo.empty()) flush();
    return;
  }
  constexpr int kChains = 8;  // independent sums in flight: an add's latency over its throughput
  auto product = [&](const T* xr, const T* yr, int64_t k) {
    return static_cast<Acc>(static_cast<T>(xr[k * kx] * yr[k * ky]));
  };
  for_each_index<3>(outer, {0, 0, 0}, {&sx, &sy, &sr}, [&](const std::array<int64_t, 3>& o) {
    const T* xr = xp + x.offset + o[0];
    const T* yr = yp + y.offset + o[1];
    T* out = rp + r.offset + o[2];
    int64_t q = 0;
    for (; q + kChains <= m; q += kChains) {
      const T* x0 = xr + q * jx;
      const T* y0 = yr + q * jy;
      std::array<Acc, kChains> acc;
      for (int c = 0; c < kChains; ++c) acc[c] = product(x0 + c * jx, y0 + c * jy, 0);
      for (int64_t k = 1; k < n; ++k) {
        for (int c = 0; c < kChains; ++c) acc[c] += product(x0 + c * jx, y0 + c * jy, k);
      }
      for (int c = 0; c < kChains; ++c) out[(q + c) * jr] = static_cast<T>(acc[c]);
    }
    for (; q < m; ++q) {
      Acc s = product(xr + q * jx, yr + q * jy, 0);
      for (int64_t k = 1; k < n; ++k) s += product(xr + q * jx, yr + q * jy, k);
      out[q * jr] = static_cast<T>(s);
    }
  });
}

}  // namespace

bool find_contraction(std::span<const Instruction> batch, std::span<const uint32_t> block, Contraction* c) {
  const Instruction* product = nullptr;
  const Instruction* sum = nullptr;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (in.op == Opcode::Free || in.op == Opcode::Sync) continue;
    if (in.length_class >= 0) return false;
    if (in.op == Opcode::Multiply && product == nullptr && sum == nullptr) {
      product = &in;
    } else if (in.op == Opcode::AddReduce && product != nullptr && sum == nullptr) {
      sum = &in;
    } else {
      return false;
    }
  }
  if (product == nullptr || sum == nullptr || product->nin != 2 || sum->nin != 1) return false;
  const View& t = product->out;
  const Operand& x = product->in[0];
  const Operand& y = product->in[1];
  if (x.is_const || y.is_const || sum->in[0].is_const) return false;
  if (t.dtype != DType::Float64 && t.dtype != DType::Float32) return false;
  if (x.view.dtype != t.dtype || y.view.dtype != t.dtype || sum->out.dtype != t.dtype) return false;
  if (!(x.view.shape == t.shape) || !(y.view.shape == t.shape) || !same_view(sum->in[0].view, t))
    return false;
  if (sum->axis < 0 || sum->axis >= t.rank() || t.shape[sum->axis] == 0) return false;
  const BaseId r = sum->out.base;
  if (r == t.base || r == x.view.base || r == y.view.base || x.view.base == t.base || y.view.base == t.base)
    return false;
  if (!frees(batch, block, t.base)) return false;  // (t is read later: ref stores it)
  c->product = product;
  c->sum = sum;
  return true;
}

bool run_contraction(const Contraction& c, HostMemory& memory) {
  const View& x = c.product->in[0].view;
  const View& y = c.product->in[1].view;
  const View& r = c.sum->out;
  const void* xp = memory.for_read(x.base);
  const void* yp = memory.for_read(y.base);
  if (xp == nullptr || yp == nullptr || r.nelem() == 0) return false;
  void* rp = memory.for_write(r.base, r.offset == 0 && r.nelem() == memory.find(r.base).nelem);
  if (x.dtype == DType::Float64) {
    contract<double>(c, static_cast<const double*>(xp), static_cast<const double*>(yp),
                     static_cast<double*>(rp));
  } else {
    contract<float>(c, static_cast<const float*>(xp), static_cast<const float*>(yp), static_cast<float*>(rp));
  }
  return true;
}

}  // namespace arrvm::ref
