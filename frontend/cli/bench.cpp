#include "frontend/cli/bench.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <span>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "engine/fusion_stage.hpp"
#include "engine/runtime.hpp"
#include "frontend/cli/replay.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"

#ifndef ARRVM_NUMPY_PROGRAMS
#define ARRVM_NUMPY_PROGRAMS "bench/numpy/programs.py"
#endif

namespace arrvm::cli {

namespace {

using bench::Program;
using bench::Size;

std::vector<std::string> split_list(const std::string& flag, const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    std::string item = s.substr(start, comma - start);
    if (item.empty()) throw UsageError(flag + ": empty name in '" + s + "'");
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

// A shell word: the string in single quotes.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// ---- the NumPy reference ----

struct NumpyResult {
  double checksum = 0;
  double seconds = 0;
};

// The NumPy programs: in the source tree this binary was built from, else
// where `cmake --install` put them (PREFIX/share/arrvm, next to PREFIX/bin).
std::string default_numpy_script() {
  if (std::filesystem::exists(ARRVM_NUMPY_PROGRAMS)) return ARRVM_NUMPY_PROGRAMS;
#ifdef ARRVM_NUMPY_PROGRAMS_INSTALLED
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / ARRVM_NUMPY_PROGRAMS_INSTALLED;
    if (std::filesystem::exists(installed)) return installed.string();
  }
#endif
  return ARRVM_NUMPY_PROGRAMS;
}

// Runs the NumPy twins of `progs` at `size` in one Python process. Throws
// Error with what to do when Python or NumPy is missing or the script fails.
std::map<std::string, NumpyResult> run_numpy(const BenchOptions& o,
                                             const std::vector<const Program*>& progs) {
  const std::string script = o.numpy_script.empty() ? default_numpy_script() : o.numpy_script;
  const std::string probe = quoted(o.python) + " -c 'import numpy' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    throw Error("arrvm bench needs NumPy for the reference checksums and times, but '" + o.python +
                "' cannot import numpy: install it (apt-get install python3-numpy; scripts/setup.sh does) "
                "or name another interpreter with --python");
  }
  if (!std::filesystem::exists(script)) {
    throw Error("the NumPy programs are not at " + script + " (--numpy-script names them)");
  }
  std::string cmd = quoted(o.python) + " " + quoted(script);
  for (const Program* p : progs) {
    const Size s = p->size(o.size);
    cmd += " " + std::string(p->name) + " " + std::to_string(s.n) + " " + std::to_string(s.iterations);
  }
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) throw Error("cannot run " + o.python);
  std::map<std::string, NumpyResult> out;
  std::string line;
  char buf[4096];
  std::string parse_error;
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(line);
      NumpyResult r;
      r.checksum = std::strtod(j.at("checksum").get<std::string>().c_str(), nullptr);
      r.seconds = j.at("time").get<double>();
      out[j.at("name").get<std::string>()] = r;
    } catch (const std::exception& e) {
      parse_error = "unexpected output from " + script + ": " + line;
    }
    line.clear();
  }
  const int status = ::pclose(pipe);
  if (status != 0) throw Error(script + " failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
  if (!parse_error.empty()) throw Error(parse_error);
  for (const Program* p : progs) {
    if (!out.count(p->name)) throw Error(script + " gave no result for " + p->name);
  }
  return out;
}

// ---- measured runs ----

// Sums the partition cost (under the runtime's cost model) of every batch
// the runtime flushes during the observer's lifetime.
class CostObserver : public FlushObserver {
 public:
  explicit CostObserver(Runtime& rt) : rt_(rt), model_(rt.config().cost) { rt_.set_flush_observer(this); }
  ~CostObserver() override { rt_.set_flush_observer(nullptr); }
  CostObserver(const CostObserver&) = delete;
  CostObserver& operator=(const CostObserver&) = delete;

  void on_flush(std::span<const Instruction> batch, const Partition& partition) override {
    cost += static_cast<double>(partition_cost(batch, partition, model_));
    ++batches;
  }
  double cost = 0;
  uint64_t batches = 0;

 private:
  Runtime& rt_;
  std::string model_;
};

// Kernels launched so far. The cpu backend keeps its own count (until it
// reports to the profile, as the OpenCL backend does); take whichever is set.
uint64_t kernels_launched(Runtime& rt) {
  uint64_t n = rt.profile().kernels_launched;
  if (const BackendStats s = rt.backend().stats(); s.has("kernels_launched"))
    n = std::max(n, s.count("kernels_launched"));
  return n;
}

struct RunResult {
  double checksum = 0;
  double seconds = 0;
  double fusion_s = 0;
  uint64_t kernels = 0;
  uint64_t merge_misses = 0;  // batches the merge cache did not hold
};

// One run of `p` on `vm`. The program's arrays die when it returns; their
// frees are flushed after the clock stops, so that the next run starts with
// an empty batch.
RunResult run_once(const Program& p, const Size& size, const Vm& vm) {
  Runtime& rt = vm.runtime();
  rt.flush();
  const Profile before = rt.profile();
  const uint64_t kernels_before = kernels_launched(rt);
  const auto start = std::chrono::steady_clock::now();
  RunResult r;
  r.checksum = p.run(vm, size);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Profile& after = rt.profile();
  r.fusion_s = after.fusion_s - before.fusion_s;
  r.merge_misses = after.merge_cache_misses - before.merge_cache_misses;
  r.kernels = kernels_launched(rt) - kernels_before;
  rt.flush();
  return r;
}

struct Row {
  std::string backend, fuser;
  RunResult timed;                  // the mean of the timed runs (checksum: the last one)
  double fastest = 0, slowest = 0;  // the timed runs' extremes (seconds)
  int runs = 0;                     // timed runs
  double cost = 0;                  // the first warm-up's, summed over its batches
  uint64_t batches = 0;             // the first warm-up's
  double fusion_s = 0;              // the warm-ups': the fuser ran on every new batch
  std::string error;                // a run threw
  std::string mismatch;             // a checksum disagreed with NumPy
};

bool close_enough(double got, double want, double rtol) {
  if (std::isnan(got) || std::isnan(want)) return false;
  return std::fabs(got - want) <= rtol * std::max(std::fabs(got), std::fabs(want));
}

std::string checksum_text(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// Adds name=value to `options` if this build's Config knows the option.
void add_if_known(Vm::Options* options, const char* name, const char* value) {
  try {
    Config probe;
    probe.set(name, value);
    options->emplace_back(name, value);
  } catch (const Error&) {
    // an option this build does not have
  }
}

// The VM options of one row. The merge cache is kept in memory only, so that
// the warm-ups run the fuser on every batch (their time is the fusion column)
// whatever earlier processes left on disk, and the timed runs find every
// partition cached (the seed's "warm fuse cache"). Anytime fusion is off:
// with it, optimal and ilp would run greedy's partitions until their own
// were ready, and the cost column would show greedy's.
Vm::Options vm_options(const BenchOptions& o, const std::string& backend, const std::string& fuser) {
  Vm::Options options = {{"backend", backend}, {"fuser", fuser}};
  add_if_known(&options, "merge_cache", "memory");
  add_if_known(&options, "anytime", "off");
  add_if_known(&options, "tiered", "off");  // (the timed runs are of compiled kernels)
  for (const auto& kv : o.config) options.push_back(kv);
  return options;
}

// Warm-up runs at most: the first fills the kernel and merge caches; a
// second run of a program in one VM may still issue batches the first did
// not (what the VM learned in the first: bases deferred, copy-backs renamed;
// lattice_boltzmann's first timed run under ilp solved 3 new batches, 0.18 s
// of its 0.55), so warm-ups go on until one misses the merge cache no more.
constexpr int kMaxWarmUps = 3;

// One backend x fuser: a fresh VM, warm-up runs (which fill the kernel and
// merge caches; the first measures the partition cost), then `repeat`
// timed runs.
Row measure(const BenchOptions& o, const Program& p, const std::string& backend, const std::string& fuser,
            const NumpyResult& numpy) {
  Row row;
  row.backend = backend;
  row.fuser = fuser;
  try {
    Vm vm(vm_options(o, backend, fuser));
    const Size size = p.size(o.size);
    std::vector<double> checksums;
    {
      // Partition costs are summed in the warm-up only: the timed runs flush
      // the same batches, and computing costs would count as their time.
      CostObserver observer(vm.runtime());
      const RunResult warm_up = run_once(p, size, vm);
      checksums.push_back(warm_up.checksum);
      row.fusion_s = warm_up.fusion_s;
      row.cost = observer.cost;
      row.batches = observer.batches;
    }
    for (int i = 1; i < kMaxWarmUps; ++i) {
      const RunResult again = run_once(p, size, vm);
      checksums.push_back(again.checksum);
      row.fusion_s += again.fusion_s;
      if (again.merge_misses == 0) break;
    }
    for (int i = 0; i < o.repeat; ++i) {
      const RunResult r = run_once(p, size, vm);
      row.timed.seconds += r.seconds / o.repeat;
      row.fastest = i == 0 ? r.seconds : std::min(row.fastest, r.seconds);
      row.slowest = std::max(row.slowest, r.seconds);
      ++row.runs;
      row.timed.kernels = r.kernels;
      row.timed.checksum = r.checksum;
      checksums.push_back(r.checksum);
    }
    for (double c : checksums) {
      if (close_enough(c, numpy.checksum, p.rtol)) continue;
      row.mismatch = "checksum " + checksum_text(c) + ", NumPy " + checksum_text(numpy.checksum) + " (rtol " +
                     checksum_text(p.rtol) + ")";
      break;
    }
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

// Records one run of `p` on the first backend and fuser to DIR/NAME.trace.
std::string record(const BenchOptions& o, const Program& p) {
  std::filesystem::create_directories(o.record_dir);
  const std::string path = (std::filesystem::path(o.record_dir) / (std::string(p.name) + ".trace")).string();
  Vm::Options options = vm_options(o, o.backends.front(), o.fusers.front());
  options.emplace_back("trace", path);
  {
    Vm vm(options);
    p.run(vm, p.size(o.size));
    vm.flush();
  }
  return path;
}

// ---- the table ----

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}
std::string rpad(const std::string& s, std::size_t w) {
  return s.size() >= w ? " " + s : std::string(w - s.size(), ' ') + s;
}

// Seconds with four significant digits (a tiny run's 0.000123 s, not 0.000).
std::string seconds_text(double s) {
  return s == 0 ? "0" : fmt(s < 1e-3 ? "%.3e" : "%.4g", s);
}

// The timed runs' spread, (slowest - fastest) / mean, in percent.
std::string spread_text(const Row& r) {
  return r.runs > 1 && r.timed.seconds > 0 ? fmt("%.0f%%", 100 * (r.slowest - r.fastest) / r.timed.seconds)
                                           : "-";
}

void print_header(std::ostream& out) {
  out << pad("program", 18) << pad("size", 16) << pad("backend", 8) << pad("fuser", 12) << rpad("time[s]", 10)
      << rpad("spread", 7) << rpad("cost", 11) << rpad("batches", 9) << rpad("kernels", 9)
      << rpad("fusion[s]", 10) << rpad("numpy[s]", 10) << rpad("speedup", 9) << "  check\n";
}

void print_row(std::ostream& out, const Program& p, const Size& size, const Row& r, const NumpyResult& numpy,
               bool first) {
  out << pad(first ? p.name : "", 18)
      << pad(first ? std::to_string(size.n) + " x " + std::to_string(size.iterations) : "", 16)
      << pad(r.backend, 8) << pad(r.fuser, 12);
  if (!r.error.empty()) {
    out << "  ERROR: " << r.error << "\n";
    return;
  }
  out << rpad(seconds_text(r.timed.seconds), 10) << rpad(spread_text(r), 7) << rpad(fmt("%.4g", r.cost), 11)
      << rpad(std::to_string(r.batches), 9) << rpad(std::to_string(r.timed.kernels), 9)
      << rpad(seconds_text(r.fusion_s), 10) << rpad(seconds_text(numpy.seconds), 10)
      << rpad(fmt("%.2fx", numpy.seconds / r.timed.seconds), 9) << "  "
      << (r.mismatch.empty() ? "ok" : "MISMATCH: " + r.mismatch) << "\n";
}

// ---- --json and --csv ----

struct Record {
  const Program* program;
  Size size;
  Row row;
  NumpyResult numpy;
};

std::string status_of(const Row& r) {
  return !r.error.empty() ? "error" : !r.mismatch.empty() ? "mismatch" : "ok";
}

nlohmann::ordered_json records_json(const BenchOptions& o, const std::string& cost_model,
                                    const std::vector<Record>& records) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Record& rec : records) {
    const Row& r = rec.row;
    nlohmann::ordered_json j;
    j["program"] = rec.program->name;
    j["title"] = rec.program->title;
    j["n"] = rec.size.n;
    j["iterations"] = rec.size.iterations;
    j["backend"] = r.backend;
    j["fuser"] = r.fuser;
    j["status"] = status_of(r);
    j["message"] = !r.error.empty() ? r.error : r.mismatch;
    const bool ok = r.error.empty();
    j["time_s"] = ok ? nlohmann::ordered_json(r.timed.seconds) : nlohmann::ordered_json();
    j["time_min_s"] = ok ? nlohmann::ordered_json(r.fastest) : nlohmann::ordered_json();
    j["time_max_s"] = ok ? nlohmann::ordered_json(r.slowest) : nlohmann::ordered_json();
    j["cost"] = r.cost;
    j["batches"] = r.batches;
    j["kernels"] = r.timed.kernels;
    j["fusion_s"] = r.fusion_s;
    j["numpy_s"] = rec.numpy.seconds;
    j["speedup"] = ok && r.timed.seconds > 0 ? nlohmann::ordered_json(rec.numpy.seconds / r.timed.seconds)
                                             : nlohmann::ordered_json();
    j["checksum"] = r.timed.checksum;
    j["numpy_checksum"] = rec.numpy.checksum;
    rows.push_back(std::move(j));
  }
  nlohmann::ordered_json doc;
  doc["size"] = bench::size_class_name(o.size);
  doc["repeat"] = o.repeat;
  doc["cost_model"] = cost_model;
  doc["rows"] = std::move(rows);
  return doc;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string records_csv(const std::vector<Record>& records) {
  std::string out =
      "program,n,iterations,backend,fuser,status,time_s,cost,batches,kernels,fusion_s,numpy_s,speedup,"
      "message\n";
  for (const Record& rec : records) {
    const Row& r = rec.row;
    const bool ok = r.error.empty();
    out += std::string(rec.program->name) + "," + std::to_string(rec.size.n) + "," +
           std::to_string(rec.size.iterations) + "," + csv_field(r.backend) + "," + csv_field(r.fuser) + "," +
           status_of(r) + "," + (ok ? fmt("%.6g", r.timed.seconds) : "") + "," + fmt("%.6g", r.cost) + "," +
           std::to_string(r.batches) + "," + std::to_string(r.timed.kernels) + "," + fmt("%.6g", r.fusion_s) +
           "," + fmt("%.6g", rec.numpy.seconds) + "," +
           (ok && r.timed.seconds > 0 ? fmt("%.6g", rec.numpy.seconds / r.timed.seconds) : "") + "," +
           csv_field(!r.error.empty() ? r.error : r.mismatch) + "\n";
  }
  return out;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw Error("cannot write " + path);
  f << text;
  if (!f) throw Error("write failed: " + path);
}

}  // namespace

BenchOptions parse_bench_args(const std::vector<std::string>& args) {
  BenchOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_value = false;
    if (a.rfind("--", 0) == 0) {
      if (const auto eq = a.find('='); eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_value = true;
      }
    }
    auto need_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--fusers") {
      o.fusers = split_list(a, need_value());
      for (const std::string& f : o.fusers) {
        try {
          check_fuser_name(f);
        } catch (const Error& e) {
          throw UsageError(std::string("--fusers: ") + e.what());
        }
      }
    } else if (a == "--backends") {
      o.backends = split_list(a, need_value());
    } else if (a == "--size") {
      try {
        o.size = bench::parse_size_class(need_value());
      } catch (const Error& e) {
        throw UsageError(std::string("--size: ") + e.what());
      }
    } else if (a == "--repeat") {
      const std::string v = need_value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 1000)
        throw UsageError("--repeat needs a whole number from 1 to 1000");
      o.repeat = static_cast<int>(n);
    } else if (a == "--record") {
      o.record_dir = need_value();
      if (o.record_dir.empty()) throw UsageError("--record needs a directory");
    } else if (a == "--cost") {
      o.config.emplace_back("cost", need_value());
    } else if (a == "--json") {
      o.json_path = need_value();
      if (o.json_path.empty()) throw UsageError("--json needs a file");
    } else if (a == "--csv") {
      o.csv_path = need_value();
      if (o.csv_path.empty()) throw UsageError("--csv needs a file");
    } else if (a == "--python") {
      o.python = need_value();
    } else if (a == "--numpy-script") {
      o.numpy_script = need_value();
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else {
      if (bench::find_program(a) == nullptr) {
        std::string known;
        for (const Program& p : bench::programs()) known += std::string(" ") + p.name;
        throw UsageError("unknown program '" + a + "' (known:" + known + ")");
      }
      o.programs.push_back(a);
    }
  }
  return o;
}

int run_bench(const BenchOptions& o, std::ostream& out) {
  std::vector<const Program*> progs;
  if (o.programs.empty()) {
    for (const Program& p : bench::programs()) progs.push_back(&p);
  } else {
    for (const std::string& name : o.programs) progs.push_back(bench::find_program(name));
  }
  // A bad backend or cost name fails here, once, rather than in every row.
  {
    Config c = Config::from_env();
    for (const auto& [k, v] : o.config) c.set(k, v);
    check_cost_name(c.cost);
    const std::vector<std::string> known = backend_names();
    for (const std::string& b : o.backends) {
      if (std::find(known.begin(), known.end(), b) == known.end()) throw Error("unknown backend '" + b + "'");
    }
  }
  const std::map<std::string, NumpyResult> numpy = run_numpy(o, progs);

  std::string fusers, backends;
  for (const std::string& f : o.fusers) fusers += (fusers.empty() ? "" : ",") + f;
  for (const std::string& b : o.backends) backends += (backends.empty() ? "" : ",") + b;
  Config shown = Config::from_env();
  for (const auto& [k, v] : o.config) shown.set(k, v);
  out << "arrvm bench: size " << bench::size_class_name(o.size) << ", backends " << backends << ", fusers "
      << fusers << ", cost model " << shown.cost << "\n"
      << "time, kernels: mean of " << o.repeat << " run(s) after warm-ups (kernel and merge cache warm: "
      << "warm-ups go on until a run misses the merge cache no more, at most " << kMaxWarmUps << ")\n"
      << "spread: (slowest - fastest) / mean of those runs. On a shared or loaded machine a program's time "
      << "moves by tens of percent between runs and processes: compare rows of one table, and use --repeat 5 "
      << "or more for a number to quote\n"
      << "cost (summed over batches), batches: the first warm-up's; fusion: the warm-ups' (merge cache cold "
      << "at the first's start)\n\n";
  print_header(out);
  int failures = 0, rows = 0;
  std::vector<Record> records;
  for (const Program* p : progs) {
    const NumpyResult& np = numpy.at(p->name);
    bool first = true;
    for (const std::string& backend : o.backends) {
      for (const std::string& fuser : o.fusers) {
        const Row row = measure(o, *p, backend, fuser, np);
        print_row(out, *p, p->size(o.size), row, np, first);
        records.push_back(Record{p, p->size(o.size), row, np});
        out.flush();
        first = false;
        ++rows;
        if (!row.error.empty() || !row.mismatch.empty()) ++failures;
      }
    }
  }
  if (!o.json_path.empty()) {
    write_file(o.json_path, records_json(o, shown.cost, records).dump(2) + "\n");
    out << "\nwrote " << o.json_path << "\n";
  }
  if (!o.csv_path.empty()) {
    write_file(o.csv_path, records_csv(records));
    out << "\nwrote " << o.csv_path << "\n";
  }
  if (!o.record_dir.empty()) {
    out << "\n";
    for (const Program* p : progs) {
      try {
        out << "recorded " << record(o, *p) << "\n";
      } catch (const std::exception& e) {
        out << "recording " << p->name << " failed: " << e.what() << "\n";
        ++failures;
      }
    }
  }
  out << "\n"
      << (failures == 0
              ? "all " + std::to_string(rows) + " runs match NumPy"
              : std::to_string(failures) + " of " + std::to_string(rows) + " runs failed or mismatched")
      << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace arrvm::cli
