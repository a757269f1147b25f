// opencl_bench: the opencl backend (PoCL on a machine without a GPU) against
// cpu on three programs written on the C++ Array API, in one run:
//   elementwise  a chain of 12 float64 elementwise ops over n elements
//                (fused into one kernel), then one sum read back;
//   reductions   row sums, column sums, row maxima and the total of an
//                m x m float64 matrix, `iterations` times, each read back;
//   heat         `iterations` Jacobi steps of the heat equation on an
//                m x m grid, the grid read back at the end.
// Each program runs once cold (kernels built, on a fresh cache directory)
// and then `--repeat` times warm (kernels in memory); the table gives the
// best warm time, the cold time (with PoCL's own kernel cache as it is: set
// POCL_CACHE_DIR to an empty directory for a really cold one), the
// opencl/cpu ratio of warm times, and opencl's host<->device transfers and
// kernel launches in one warm run.
// Usage: opencl_bench [--n N] [--m M] [--iterations K] [--repeat R] [--fuser F]
#include <arrvm/arrvm.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"

using arrvm::Array;
using arrvm::Slice;
using arrvm::Vm;

namespace {

using Clock = std::chrono::steady_clock;

struct Sizes {
  int64_t n = 1 << 22;  // elementwise elements (32 MiB of float64)
  int64_t m = 1000;     // matrix / grid side
  int iterations = 20;
};

double elementwise(const Vm& vm, const Sizes& s) {
  const Array x = Array::random_uniform({s.n}, 7, vm);
  const Array y = ((x * 2.0 + 1.0) * (x - 0.5) + arrvm::sqrt(x + 1.0)) / (x + 2.0);
  const Array z = arrvm::exp(-y * y) + arrvm::absolute(y - x) * 0.25 - x;
  return z.sum().item<double>();
}

double reductions(const Vm& vm, const Sizes& s) {
  const Array a = Array::random_uniform({s.m, s.m}, 3, vm);
  double checksum = 0;
  for (int i = 0; i < s.iterations; ++i) {
    const Array b = a * static_cast<double>(i + 1);
    checksum += b.sum(1).max().item<double>() + b.sum(0).sum().item<double>() + b.max(1).sum().item<double>();
  }
  return checksum;
}

double heat(const Vm& vm, const Sizes& s) {
  const Array grid = Array::zeros({s.m + 2, s.m + 2}, arrvm::DType::Float64, vm);
  grid(0, Slice()) = 100.0;
  const Slice inner(1, -1), head({}, -2), tail(2, {});
  for (int i = 0; i < s.iterations; ++i) {
    Array centre = grid(inner, inner);
    const Array next =
        (centre + grid(head, inner) + grid(tail, inner) + grid(inner, head) + grid(inner, tail)) * 0.2;
    centre.assign(next);
  }
  return grid(inner, inner).mean().item<double>();
}

struct Program {
  const char* name;
  double (*run)(const Vm&, const Sizes&);
};

struct Measurement {
  double cold_s = 0, warm_s = 1e300, checksum = 0;
  arrvm::Profile profile;  // of the last warm run
};

Measurement measure(const Program& p, const std::string& backend, const Sizes& s, int repeat,
                    const std::string& fuser, const std::string& cache_dir) {
  const Vm vm({{"backend", backend}, {"fuser", fuser}, {"cache", "on"}, {"cache_dir", cache_dir}});
  Measurement m;
  auto t0 = Clock::now();
  m.checksum = p.run(vm, s);
  m.cold_s = std::chrono::duration<double>(Clock::now() - t0).count();
  for (int r = 0; r < repeat; ++r) {
    const arrvm::Profile before = vm.runtime().profile();
    t0 = Clock::now();
    const double c = p.run(vm, s);
    m.warm_s = std::min(m.warm_s, std::chrono::duration<double>(Clock::now() - t0).count());
    if (c != m.checksum && !(std::isnan(c) && std::isnan(m.checksum))) {
      std::fprintf(stderr, "%s on %s: checksum changed between runs (%.17g vs %.17g)\n", p.name,
                   backend.c_str(), c, m.checksum);
    }
    const arrvm::Profile& after = vm.runtime().profile();
    m.profile = after;
    m.profile.bytes_to_device = after.bytes_to_device - before.bytes_to_device;
    m.profile.bytes_from_device = after.bytes_from_device - before.bytes_from_device;
    m.profile.kernels_launched = after.kernels_launched - before.kernels_launched;
    m.profile.kernels_compiled = after.kernels_compiled - before.kernels_compiled;
  }
  return m;
}

int64_t arg_int(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "opencl_bench: %s needs a value\n", argv[i]);
    std::exit(2);
  }
  return std::atoll(argv[++i]);
}

}  // namespace

int main(int argc, char** argv) {
  Sizes s;
  int repeat = 3;
  std::string fuser = "greedy";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n") {
      s.n = arg_int(i, argc, argv);
    } else if (a == "--m") {
      s.m = arg_int(i, argc, argv);
    } else if (a == "--iterations") {
      s.iterations = static_cast<int>(arg_int(i, argc, argv));
    } else if (a == "--repeat") {
      repeat = static_cast<int>(arg_int(i, argc, argv));
    } else if (a == "--fuser" && i + 1 < argc) {
      fuser = argv[++i];
    } else {
      std::fprintf(stderr, "usage: opencl_bench [--n N] [--m M] [--iterations K] [--repeat R] [--fuser F]\n");
      return 2;
    }
  }
  const Program programs[] = {{"elementwise", elementwise}, {"reductions", reductions}, {"heat", heat}};
  char tmpl[] = "/tmp/arrvm-opencl-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 2;
  const std::string dir = tmpl;
  std::printf("opencl_bench: n=%lld, m=%lld, iterations=%d, repeat=%d, fuser %s; times in ms\n",
              static_cast<long long>(s.n), static_cast<long long>(s.m), s.iterations, repeat, fuser.c_str());
  std::printf("%-12s %10s %10s %8s   %10s %10s   %9s %9s %8s  %s\n", "program", "cpu warm", "ocl warm",
              "ocl/cpu", "cpu cold", "ocl cold", "to dev kB", "from dev", "kernels", "checksums");
  int status = 0;
  try {
    for (const Program& p : programs) {
      const Measurement cpu = measure(p, "cpu", s, repeat, fuser, dir + "/cpu-" + p.name);
      const Measurement ocl = measure(p, "opencl", s, repeat, fuser, dir + "/ocl-" + p.name);
      const double rel = std::abs(ocl.checksum - cpu.checksum) / std::max(1e-300, std::abs(cpu.checksum));
      const bool agree = rel <= 1e-9;
      if (!agree) status = 1;
      std::printf("%-12s %10.2f %10.2f %8.2f   %10.1f %10.1f   %9.3f %9.3f %8llu  %s (%.3g)\n", p.name,
                  cpu.warm_s * 1e3, ocl.warm_s * 1e3, ocl.warm_s / cpu.warm_s, cpu.cold_s * 1e3,
                  ocl.cold_s * 1e3, static_cast<double>(ocl.profile.bytes_to_device) / 1e3,
                  static_cast<double>(ocl.profile.bytes_from_device) / 1e3,
                  static_cast<unsigned long long>(ocl.profile.kernels_launched), agree ? "agree" : "DIFFER",
                  rel);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencl_bench: %s\n", e.what());
    status = 2;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return status;
}
