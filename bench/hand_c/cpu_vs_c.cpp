// cpu_vs_c: the cpu backend against hand-written C+OpenMP. Every
// program of the benchmark suite (programs/registry.cpp) runs on
// libarrvm fused by greedy on the cpu backend with a warm kernel cache, and
// as its hand-written twin (bench/hand_c/hand_*.c, compiled with the JIT's
// flags: -O3 -march=native -fopenmp -fno-math-errno -fno-trapping-math -ffp-contract=off), the
// two taking turns run by run (a burst of load hits both). One table: the best time of each, fused/hand, the
// program's compulsory bytes (hand_kernels.h: inputs read once, outputs written once per pass), the GB/s both
// achieve on those bytes against a STREAM triad measured at the start of the same run, the kernels arrvm
// launches per run (its profile), and whether the checksums agree within the program's tolerance (both are
// printed under the table). The target is fused within 1.25x of hand.
//
//   cpu_vs_c [--size tiny|default|paper] [--repeat N] [--programs a,b,...]
//            [--singleton] [--triad ELEMENTS] [NAME...]
//   cpu_vs_c --launch [--repeat N] [--ops N] [--elements N]
//
// --singleton adds a column for libarrvm with singleton fusion (one kernel
// per instruction). --launch measures launch overhead instead: a chain of
// --ops (1000) dependent elementwise ops on --elements (100) float64 run as
// one batch with singleton fusion (one kernel each), kernels per second and
// microseconds per kernel, end to end and inside the backend.
//
// Exit status: 0 if every checksum agrees, 1 if one does not (FAIL in the
// table), 2 on an error.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <malloc.h>

#include "arrvm/arrvm.hpp"
#include "bench/hand_c/hand_kernels.h"
#include "engine/runtime.hpp"
#include "programs/programs.hpp"
#include "vm/profile.hpp"

namespace {

using arrvm::bench::Program;
using arrvm::bench::Size;

struct Timing {
  double best = 0;  // seconds, the fastest of the timed runs
  double checksum = 0;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One warm-up run of each contender (it fills the kernel cache), then
// `repeat` rounds in which each runs once, in turn, so that a burst of load
// from elsewhere on the machine hits all of them alike; the best of each.
std::vector<Timing> time_interleaved(const std::vector<std::function<double()>>& runs, int repeat) {
  std::vector<Timing> t(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    t[i].checksum = runs[i]();
    t[i].best = 1e300;
  }
  for (int r = 0; r < repeat; ++r) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const double start = now();
      t[i].checksum = runs[i]();
      t[i].best = std::min(t[i].best, now() - start);
    }
  }
  return t;
}

bool agree(double a, double b, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return false;
  return std::fabs(a - b) <= rtol * std::max(std::fabs(a), std::fabs(b));
}

double rel_diff(double a, double b) {
  const double m = std::max(std::fabs(a), std::fabs(b));
  return m == 0 ? 0 : std::fabs(a - b) / m;
}

const char* kUsage =
    "usage: cpu_vs_c [--size tiny|default|paper] [--repeat N] [--programs a,b,...] [--singleton] [--triad "
    "ELEMENTS] "
    "[NAME...]\n       cpu_vs_c --launch [--repeat N] [--ops N] [--elements N]\n";

int usage(const std::string& what) {
  std::fprintf(stderr, "cpu_vs_c: %s\n%s", what.c_str(), kUsage);
  return 2;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string human_bytes(double b) {
  char buf[32];
  if (b <= 0) return "-";
  if (b >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  return buf;
}

// Seconds with 3-4 significant digits whatever their size.
std::string secs(double s) {
  char buf[32];
  if (s >= 0.01)
    std::snprintf(buf, sizeof buf, "%.4f", s);
  else
    std::snprintf(buf, sizeof buf, "%.3e", s);
  return buf;
}

std::string gbs(double bytes, double seconds) {
  char buf[32];
  if (bytes <= 0) return "-";
  std::snprintf(buf, sizeof buf, "%.2f", bytes / seconds / 1e9);
  return buf;
}

std::string pct(double bytes, double seconds, double triad) {
  char buf[32];
  if (bytes <= 0) return "-";
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * bytes / seconds / triad);
  return buf;
}

// ---- --launch: launch overhead of the cpu backend ----

int launch_mode(int repeat, int64_t ops, int64_t elements) {
  std::printf(
      "launch overhead, cpu backend: a chain of %lld dependent elementwise ops (a = a * 1.0000001) on %lld "
      "float64 elements, one batch, flushed; best of %d batches after a warm-up\n\n",
      static_cast<long long>(ops), static_cast<long long>(elements), repeat);
  std::printf("%-10s %9s %9s %12s %12s %12s %12s %12s %9s\n", "fuser", "kernels", "batch s", "kernels/s",
              "us/kernel", "exec us/k", "fuse us/k", "codegen us/k", "compiled");
  for (const char* fuser : {"singleton", "greedy"}) {
    const arrvm::Vm vm({{"backend", "cpu"}, {"fuser", fuser}, {"tiered", "off"}});
    arrvm::Profile& prof = vm.runtime().profile();
    arrvm::Array a = arrvm::Array::ones({elements}, arrvm::DType::Float64, vm);
    vm.flush();
    double best = 1e300, best_exec = 0, best_fuse = 0, best_codegen = 0;
    uint64_t kernels = 0, compiled = 0;
    for (int r = -1; r < repeat; ++r) {
      const uint64_t k0 = prof.kernels_launched, comp0 = prof.kernels_compiled;
      const double e0 = prof.execution_s(), f0 = prof.fusion_s + prof.merge_cache_s,
                   c0 = prof.codegen_s + prof.compile_s;
      const double start = now();
      for (int64_t i = 0; i < ops; ++i) a = a * 1.0000001;
      vm.flush();
      const double t = now() - start;
      if (r >= 0 && t < best) {
        best = t;
        kernels = prof.kernels_launched - k0;
        compiled = prof.kernels_compiled - comp0;
        best_exec = prof.execution_s() - e0;
        best_fuse = prof.fusion_s + prof.merge_cache_s - f0;
        best_codegen = prof.codegen_s + prof.compile_s - c0;
      }
    }
    const double expect = std::pow(1.0000001, static_cast<double>(ops * (repeat + 1)));
    const double got = a.sum().item<double>() / static_cast<double>(elements);
    const double per = kernels ? best / static_cast<double>(kernels) : 0;
    const double k = kernels ? static_cast<double>(kernels) : 1.0;
    std::printf("%-10s %9llu %9.5f %12.0f %12.2f %12.2f %12.2f %12.2f %9llu%s\n", fuser,
                static_cast<unsigned long long>(kernels), best, kernels ? k / best : 0.0, per * 1e6,
                best_exec / k * 1e6, best_fuse / k * 1e6, best_codegen / k * 1e6,
                static_cast<unsigned long long>(compiled),
                agree(got, expect, 1e-9) ? "" : "  (WRONG RESULT)");
    if (!agree(got, expect, 1e-9)) return 1;
  }
  std::printf(
      "\nus/kernel: the batch's wall time (issue, fusion, merge cache, execution) per kernel launched;\n"
      "exec: Backend::execute less codegen and compile (profile execution_s); fuse: fusion + merge cache;\n"
      "codegen: lowering and printing kernel source (+ compiling, 0 once the kernel cache is warm).\n"
      "compiled: compiler runs in the timed batch. The rest of us/kernel is the frontend (issuing, "
      "validation) and the VM's own bookkeeping.\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  arrvm::bench::SizeClass size = arrvm::bench::SizeClass::Default;
  int repeat = 3;
  bool singleton = false, launch = false;
  int64_t triad_n = 20'000'000, ops = 1000, elements = 100;
  std::vector<std::string> only;
  // The hand twins' buffers stay in the heap when freed, as the cpu
  // backend's pool keeps arrvm's: without this glibc maps each buffer over
  // 32 MB afresh, and every timed run of a hand twin paid the page faults of
  // first touch (game_of_life's 2002 x 2002 boards: 0.091-0.097 s -> 0.077 s) that
  // arrvm, past its warm-up, does not.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--size" && has_value) {
        size = arrvm::bench::parse_size_class(argv[++i]);
      } else if (a == "--repeat" && has_value) {
        repeat = std::atoi(argv[++i]);
        if (repeat < 1) return usage("--repeat needs a positive number");
      } else if (a == "--programs" && has_value) {
        for (const std::string& p : split(argv[++i])) only.push_back(p);
      } else if (a == "--triad" && has_value) {
        triad_n = std::atoll(argv[++i]);
        if (triad_n < 1) return usage("--triad needs a positive number of elements");
      } else if (a == "--ops" && has_value) {
        ops = std::atoll(argv[++i]);
        if (ops < 1) return usage("--ops needs a positive number");
      } else if (a == "--elements" && has_value) {
        elements = std::atoll(argv[++i]);
        if (elements < 1) return usage("--elements needs a positive number");
      } else if (a == "--singleton") {
        singleton = true;
      } else if (a == "--launch") {
        launch = true;
      } else if (a == "--help" || a == "-h") {
        std::printf("%s", kUsage);
        return 0;
      } else if (!a.empty() && a[0] == '-') {
        return usage("unknown option " + a);
      } else {
        only.push_back(a);
      }
    }
    for (const std::string& name : only) {
      if (!arrvm::bench::find_program(name)) return usage("unknown program " + name);
      if (!hand_find_twin(name.c_str())) return usage("no hand-written twin for " + name);
    }
  } catch (const arrvm::Error& e) {
    return usage(e.what());
  }

  try {
    if (launch) return launch_mode(repeat, ops, elements);

    double triad_check = 0;
    const double triad_start = hand_stream_triad(triad_n, std::max(repeat, 5), &triad_check);
    const double triad = triad_start;
    std::printf(
        "cpu backend (greedy) vs hand-written C+OpenMP, size %s; best of %d runs after a warm-up, seconds\n",
        arrvm::bench::size_class_name(size), repeat);
    std::printf(
        "STREAM triad (%lld doubles per array, %s, 24 bytes/element): %.2f GB/s (again at the end)\n\n",
        static_cast<long long>(triad_n), human_bytes(24.0 * static_cast<double>(triad_n)).c_str(),
        triad_start / 1e9);

    const arrvm::Vm fused({{"backend", "cpu"}, {"fuser", "greedy"}, {"tiered", "off"}});
    std::optional<arrvm::Vm> single;
    if (singleton) single.emplace(arrvm::Vm({{"backend", "cpu"}, {"fuser", "singleton"}, {"tiered", "off"}}));
    arrvm::Profile& prof = fused.runtime().profile();

    std::printf("%-17s %-15s %9s %9s %10s %10s %8s %8s %7s %7s %8s", "program", "size", "fused s", "hand s",
                "fused/hand", "bytes", "fused GB/s", "hand GB/s", "f%triad", "h%triad", "kernels");
    if (singleton) std::printf(" %9s %11s", "single s", "single/hand");
    std::printf("  checksum\n");

    struct Row {
      const Program* p;
      double fused, hand, rtol;
      bool ok;
    };
    std::vector<Row> rows;
    int failures = 0;
    for (const Program& p : arrvm::bench::programs()) {
      if (!only.empty() && std::find(only.begin(), only.end(), p.name) == only.end()) continue;
      const hand_twin* twin = hand_find_twin(p.name);
      if (!twin) {
        std::printf("%-17s (no hand-written twin)\n", p.name);
        ++failures;
        continue;
      }
      const Size s = p.size(size);
      // Kernels per run: the warm-up and the timed runs launch the same ones.
      const uint64_t k0 = prof.kernels_launched;
      std::vector<std::function<double()>> runs = {[&] { return p.run(fused, s); },
                                                   [&] { return twin->run(s.n, s.iterations); }};
      if (single) runs.push_back([&] { return p.run(*single, s); });
      const std::vector<Timing> times = time_interleaved(runs, repeat);
      const Timing &tf = times[0], &th = times[1];
      const Timing ts = single ? times[2] : Timing{};
      const uint64_t kernels = (prof.kernels_launched - k0) / static_cast<uint64_t>(repeat + 1);
      const bool ok =
          agree(tf.checksum, th.checksum, p.rtol) && (!single || agree(ts.checksum, th.checksum, p.rtol));
      if (!ok) ++failures;
      rows.push_back({&p, tf.checksum, th.checksum, p.rtol, ok});
      const double bytes = twin->bytes(s.n, s.iterations);
      const std::string sz = std::to_string(s.n) + " x " + std::to_string(s.iterations);
      std::printf("%-17s %-15s %9s %9s %9.2fx %10s %10s %9s %7s %7s %8llu", p.name, sz.c_str(),
                  secs(tf.best).c_str(), secs(th.best).c_str(), tf.best / th.best, human_bytes(bytes).c_str(),
                  gbs(bytes, tf.best).c_str(), gbs(bytes, th.best).c_str(),
                  pct(bytes, tf.best, triad).c_str(), pct(bytes, th.best, triad).c_str(),
                  static_cast<unsigned long long>(kernels));
      if (single) std::printf(" %9s %10.2fx", secs(ts.best).c_str(), ts.best / th.best);
      std::printf("  %s\n", ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }

    const double triad_end = hand_stream_triad(triad_n, std::max(repeat, 5), &triad_check);
    std::printf(
        "\nSTREAM triad at the end: %.2f GB/s (at the start %.2f). The %%triad columns above use the "
        "start's.\n",
        triad_end / 1e9, triad_start / 1e9);
    std::printf("\n%-17s %24s %24s %10s %8s\n", "program", "arrvm checksum", "hand checksum", "rel diff",
                "rtol");
    for (const Row& r : rows) {
      std::printf("%-17s %24.17g %24.17g %10.2e %8.0e  %s\n", r.p->name, r.fused, r.hand,
                  rel_diff(r.fused, r.hand), r.rtol, r.ok ? "ok" : "FAIL");
    }
    std::printf("\nbytes: compulsory traffic of the algorithm (bench/hand_c/hand_twins.c):\n");
    for (const Row& r : rows) std::printf("  %-17s %s\n", r.p->name, hand_find_twin(r.p->name)->traffic);
    std::printf(
        "GB/s = bytes / best time; %%triad = that against the triad above (over 100%%: the working set\n"
        "fits in cache, e.g. gauss and lu at n = 1000, 8 MB). kernels: generated kernels\n"
        "arrvm launches per run (profile kernels_launched over the runs / runs).\n");
    if (failures) std::printf("\n%d program(s) FAILED\n", failures);
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_vs_c: %s\n", e.what());
    return 2;
  }
}
