#include "frontend/cli/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>
#include <span>
#include <unordered_map>

#include "engine/fusion_stage.hpp"
#include "engine/runtime.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/ilp.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/partition.hpp"
#include "vm/timeline.hpp"
#include "vm/trace.hpp"

namespace arrvm::cli {

namespace {

struct TraceBase {
  BaseId rt_id;
  DType dtype;
  int64_t nelem;
  std::size_t bytes() const { return static_cast<std::size_t>(nelem) * dtype_size(dtype); }
};

// Runtime batches hold the instructions issued since the previous flush, in
// issue order, after those a deferral carried from the previous batch, so a
// queue of the trace indices by stream position maps each batch back to the
// trace.
class BatchRecorder : public FlushObserver {
 public:
  BatchRecorder(bool keep_instructions, std::string cost_model)
      : keep_(keep_instructions), cost_model_(std::move(cost_model)) {}

  // With --fuser ilp: solve every recorded batch once more with
  // ilp::fuse_report under this limit, for the report's "optimal" and
  // solve time (the partition the run used may come from the merge cache).
  std::optional<double> ilp_time_limit;

  // (stream position, trace instruction index or -1 when not from the trace)
  // of each instruction issued and not flushed yet.
  std::deque<std::pair<uint64_t, int64_t>> pending;
  const Runtime* runtime = nullptr;
  std::unordered_map<BaseId, BaseId> to_trace_base;  // runtime id -> trace id (for --dot)
  std::vector<BatchReport> batches;
  bool active = true;

  void on_flush(std::span<const Instruction> batch, const Partition& partition) override {
    // The VM may add copies (and their frees) for overlapping views: they
    // count as the trace instruction they serve.
    const std::span<const uint64_t> origin = runtime->batch_origin();
    ARRVM_ASSERT(origin.size() == batch.size());
    // A deferral (rewrite/defer.hpp) carries instructions into the next
    // batch: they keep their stream positions, all at least this batch's
    // smallest, so entries below it are done with.
    std::vector<int64_t> index(batch.size(), -1);
    uint64_t lowest = UINT64_MAX;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto it = std::lower_bound(pending.begin(), pending.end(), std::make_pair(origin[i], INT64_MIN));
      ARRVM_ASSERT(it != pending.end() && it->first == origin[i]);
      index[i] = it->second;
      lowest = std::min(lowest, origin[i]);
    }
    while (!pending.empty() && pending.front().first < lowest) pending.pop_front();
    if (!active) return;
    BatchReport b;
    b.instructions = batch.size();
    b.cost = static_cast<double>(partition_cost(batch, partition, cost_model_));
    for (const Block& block : partition.blocks) {
      std::vector<int64_t> ids;
      ids.reserve(block.size());
      for (uint32_t i : block) ids.push_back(index.at(i));
      b.partition.push_back(std::move(ids));
    }
    if (ilp_time_limit) {
      const fusion::Graph graph(batch, runtime->fusion_rules());
      fusion::Options options;
      options.time_limit = *ilp_time_limit;
      fusion::ilp::Report report;
      const auto t0 = std::chrono::steady_clock::now();
      fusion::ilp::fuse_report(graph, *fusion::make_cost_model(cost_model_), options, &report);
      b.ilp_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      b.ilp_solved = true;
      b.ilp_optimal = report.optimal();
    }
    if (keep_) {
      for (const Instruction& in : batch) b.instrs.push_back(with_trace_bases(in));
      b.trace_index = index;
      const fusion::Graph graph(batch, runtime->fusion_rules());
      b.dependencies = graph.dependency_edges();
      b.fuse_preventing = graph.fuse_preventing_edges();
    }
    batches.push_back(std::move(b));
  }

 private:
  BaseId trace_base(BaseId rt) const {
    const auto it = to_trace_base.find(rt);
    return it == to_trace_base.end() ? rt : it->second;
  }
  Instruction with_trace_bases(Instruction in) const {
    in.out.base = trace_base(in.out.base);
    for (int i = 0; i < in.nin; ++i) {
      if (!in.in[i].is_const) in.in[i].view.base = trace_base(in.in[i].view.base);
    }
    return in;
  }

  bool keep_;
  std::string cost_model_;
};

// One pass over the trace against `rt`.
class Replayer {
 public:
  Replayer(const ReplayOptions& o, Runtime& rt, BatchRecorder& rec, ReplayResult& r)
      : o_(o), rt_(rt), rec_(rec), r_(r) {}

  void run() {
    TraceReader reader(o_.trace);
    TraceEvent ev;
    while (reader.next(&ev)) {
      try {
        step(ev);
      } catch (const Error& e) {
        throw Error(o_.trace + ":" + std::to_string(ev.line) + ": " + e.what());
      }
    }
    rt_.flush();
  }

  // Frees what the trace left live, outside the report, so that repeated
  // runs do not accumulate memory.
  void release_leftovers() {
    rec_.active = false;
    for (const auto& [trace_id, b] : bases_) {
      if (rt_.bases().find(b.rt_id) == nullptr) continue;
      rec_.pending.push_back({rt_.instructions_issued(), -1});
      rt_.free_base(b.rt_id);
    }
    rt_.flush();
    rec_.active = true;
  }

  int64_t instructions() const { return index_; }

 private:
  const TraceBase& base(BaseId trace_id) const {
    const auto it = bases_.find(trace_id);
    if (it == bases_.end()) throw Error("base " + std::to_string(trace_id) + " has no base line before it");
    return it->second;
  }

  void step(const TraceEvent& ev) {
    switch (ev.kind) {
      case TraceEvent::Kind::Base: {
        if (bases_.count(ev.base)) throw Error("base " + std::to_string(ev.base) + " is declared twice");
        const BaseId id = rt_.new_base(ev.dtype, ev.nelem);
        bases_.emplace(ev.base, TraceBase{id, ev.dtype, ev.nelem});
        rec_.to_trace_base[id] = ev.base;
        return;
      }
      case TraceEvent::Kind::Data: {
        const TraceBase& b = base(ev.base);
        if (ev.bytes.size() != b.bytes()) {
          throw Error("data for base " + std::to_string(ev.base) + " has " + std::to_string(ev.bytes.size()) +
                      " bytes, the base holds " + std::to_string(b.bytes()));
        }
        rt_.write(b.rt_id, ev.bytes.data(), ev.bytes.size());
        return;
      }
      case TraceEvent::Kind::Instr: {
        Instruction in = ev.instr;
        in.out.base = base(in.out.base).rt_id;
        for (int i = 0; i < in.nin; ++i) {
          if (!in.in[i].is_const) in.in[i].view.base = base(in.in[i].view.base).rt_id;
        }
        rec_.pending.push_back({rt_.instructions_issued(), index_++});
        rt_.issue(in);
        return;
      }
      case TraceEvent::Kind::Sync:
        sync(ev);
        return;
    }
  }

  void sync(const TraceEvent& ev) {
    const TraceBase& b = base(ev.base);
    // The copy this replay holds is memory too: bounded as the VM's (ARRVM_MEM_LIMIT), and out of
    // memory is an error that names the line, not a bare std::bad_alloc.
    const int64_t limit = rt_.config().mem_limit;
    if (limit > 0 && b.bytes() > static_cast<std::size_t>(limit)) {
      throw OutOfMemoryError("sync of base " + std::to_string(ev.base) + ": its " +
                             std::to_string(b.bytes()) +
                             " bytes exceed ARRVM_MEM_LIMIT=" + std::to_string(limit));
    }
    std::vector<uint8_t> got;
    try {
      got.resize(b.bytes());
    } catch (const std::bad_alloc&) {
      throw OutOfMemoryError("sync of base " + std::to_string(ev.base) + ": out of memory allocating " +
                             std::to_string(b.bytes()) + " bytes");
    }
    rec_.pending.push_back({rt_.instructions_issued(), index_++});
    rt_.read(b.rt_id, got.data(), got.size());
    if (ev.has_bytes) {
      if (ev.bytes.size() != got.size()) {
        throw Error("sync of base " + std::to_string(ev.base) + " carries " +
                    std::to_string(ev.bytes.size()) + " bytes, the base holds " + std::to_string(got.size()));
      }
      ++r_.syncs_checked;
      if (auto m = compare_contents(b.dtype, ev.bytes, got.data(), o_.rtol, o_.atol)) {
        m->line = ev.line;
        m->base = ev.base;
        r_.mismatches.push_back(std::move(*m));
      }
      return;
    }
    if (ev.sha256.empty()) {
      ++r_.syncs_unchecked;
      return;
    }
    ++r_.syncs_checked;
    const std::string hash = sha256_hex(got.data(), got.size());
    if (hash == ev.sha256) return;
    Mismatch m;
    m.line = ev.line;
    m.base = ev.base;
    m.expected = "sha256:" + ev.sha256;
    m.got = "sha256:" + hash;
    r_.mismatches.push_back(std::move(m));
  }

  const ReplayOptions& o_;
  Runtime& rt_;
  BatchRecorder& rec_;
  ReplayResult& r_;
  std::unordered_map<BaseId, TraceBase> bases_;
  int64_t index_ = 0;  // next trace instruction index
};

// A value as JSON: numbers as numbers, non-finite floats as the strings the
// trace format uses for them.
template <typename T>
nlohmann::json json_value(T v) {
  if constexpr (kIsComplex<T>) {
    return nlohmann::json::array({json_value(v.real()), json_value(v.imag())});
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return static_cast<double>(v);
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<uint64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

bool close(double got, double expected, double rtol, double atol) {
  if (std::isnan(expected) || std::isnan(got)) return std::isnan(expected) && std::isnan(got);
  if (got == expected) return true;  // also infinities, and -0.0 == 0.0
  if (std::isinf(expected) || std::isinf(got)) return false;
  return std::fabs(got - expected) <= atol + rtol * std::fabs(expected);
}

template <typename T>
std::optional<Mismatch> compare_typed(const uint8_t* expected, const uint8_t* got, std::size_t n, double rtol,
                                      double atol) {
  for (std::size_t i = 0; i < n; ++i) {
    T e, g;
    std::memcpy(&e, expected + i * sizeof(T), sizeof(T));
    std::memcpy(&g, got + i * sizeof(T), sizeof(T));
    bool same;
    if constexpr (kIsComplex<T>) {
      same = close(g.real(), e.real(), rtol, atol) && close(g.imag(), e.imag(), rtol, atol);
    } else if constexpr (std::is_floating_point_v<T>) {
      same = close(g, e, rtol, atol);
    } else {
      same = e == g;
    }
    if (same) continue;
    Mismatch m;
    m.index = static_cast<int64_t>(i);
    m.expected = json_value(e);
    m.got = json_value(g);
    return m;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Mismatch> compare_contents(DType dtype, const std::vector<uint8_t>& expected, const void* got,
                                         std::optional<double> rtol, std::optional<double> atol) {
  const auto* g = static_cast<const uint8_t*>(got);
  const std::size_t n = expected.size() / dtype_size(dtype);
  const bool f32 = dtype == DType::Float32 || dtype == DType::Complex64;
  const double rt = rtol.value_or(f32 ? 1e-5 : 1e-12);
  const double at = atol.value_or(f32 ? 1e-6 : 1e-14);
  return visit_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      // Bools are bytes 0/1: compared (and shown) as bytes, so that a
      // corrupted byte is reported as the number it holds.
      return compare_typed<uint8_t>(expected.data(), g, n, rt, at);
    } else {
      return compare_typed<T>(expected.data(), g, n, rt, at);
    }
  });
}

ReplayOptions parse_replay_args(const std::vector<std::string>& args) {
  ReplayOptions o;
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
    auto number = [&](double lo) {
      const std::string v = need_value();
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(x >= lo)) throw UsageError(a + ": '" + v + "' is not a valid value");
      return x;
    };
    if (a == "--backend" || a == "--fuser" || a == "--cost") {
      o.config.emplace_back(a.substr(2), need_value());
    } else if (a == "--repeat") {
      const double n = number(1);
      if (n != std::floor(n) || n > 1e6) throw UsageError("--repeat needs a whole number from 1 to 1000000");
      o.repeat = static_cast<int>(n);
    } else if (a == "--json") {
      if (has_value) throw UsageError("--json takes no value");
      o.json = true;
    } else if (a == "--rtol") {
      o.rtol = number(0);
    } else if (a == "--atol") {
      o.atol = number(0);
    } else if (a == "--cache-study") {
      if (has_value) throw UsageError("--cache-study takes no value");
      o.cache_study = true;
    } else if (a == "--anytime") {
      o.config.emplace_back("anytime", need_value());
    } else if (a == "--timeline") {
      o.timeline = need_value();
      if (o.timeline.empty()) throw UsageError("--timeline needs a file");
    } else if (a == "--fusers" || a == "--backends") {
      std::vector<std::string>& list = a == "--fusers" ? o.fusers : o.backends;
      const std::string v = need_value();
      std::size_t start = 0;
      while (start <= v.size()) {
        const std::size_t comma = std::min(v.find(',', start), v.size());
        if (comma == start) throw UsageError(a + ": empty name in '" + v + "'");
        list.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--dot") {
      o.dot_dir = need_value();
      if (o.dot_dir.empty()) throw UsageError("--dot needs a directory");
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (o.trace.empty()) {
      o.trace = a;
    } else {
      throw UsageError("more than one TRACE given ('" + o.trace + "' and '" + a + "')");
    }
  }
  if (o.trace.empty()) throw UsageError("replay needs a TRACE");
  return o;
}

ReplayResult replay(const ReplayOptions& o) {
  Config config = Config::from_env();
  for (const auto& [name, value] : o.config) config.set(name, value);
  if (!config.trace.empty()) {
    // Recording the replay (ARRVM_TRACE) is allowed, but never over its input.
    std::error_code ec;
    if (std::filesystem::equivalent(config.trace, o.trace, ec)) {
      throw Error("ARRVM_TRACE names the trace being replayed (" + o.trace + "): it would be overwritten");
    }
  }
  // The recorder outlives the runtime that points at it.
  BatchRecorder rec(!o.dot_dir.empty(), config.cost);
  if (config.fuser == "ilp" && o.ilp_report) rec.ilp_time_limit = config.fuse_time_limit;
  Runtime rt(config);
  rec.runtime = &rt;
  rt.set_flush_observer(&rec);
  Timeline timeline;
  if (!o.timeline.empty()) rt.profile().timeline = &timeline;

  ReplayResult r;
  r.backend = config.backend;
  r.fuser = config.fuser;
  r.cost_model = config.cost;
  for (int rep = 1; rep <= o.repeat; ++rep) {
    // Each run is reported on its own: the last one is kept.
    r.mismatches.clear();
    r.syncs_checked = r.syncs_unchecked = 0;
    rec.batches.clear();
    const Profile before = rt.profile();
    Replayer run(o, rt, rec, r);
    run.run();
    const Profile& after = rt.profile();
    r.wall_s = after.total_s - before.total_s;
    r.fusion_s = after.fusion_s - before.fusion_s;
    r.merge_cache_s = after.merge_cache_s - before.merge_cache_s;
    r.merge_hits = after.merge_cache_hits - before.merge_cache_hits;
    r.merge_misses = after.merge_cache_misses - before.merge_cache_misses;
    r.merge_upgrades = after.merge_cache_upgrades - before.merge_cache_upgrades;
    r.exec_s = after.exec_s - before.exec_s;
    r.codegen_s = after.codegen_s - before.codegen_s;
    r.compile_s = after.compile_s - before.compile_s;
    r.kernels_compiled = after.kernels_compiled - before.kernels_compiled;
    r.kernels_launched = after.kernels_launched - before.kernels_launched;
    r.kernel_hits = after.kernel_cache_hits - before.kernel_cache_hits;
    r.kernel_misses = after.kernel_cache_misses - before.kernel_cache_misses;
    r.instructions = run.instructions();
    r.batches = std::move(rec.batches);
    rec.batches.clear();
    r.repeat = rep;
    run.release_leftovers();
    // A run that disagrees with the trace is the one worth reporting.
    if (!r.verified()) break;
  }
  rt.set_flush_observer(nullptr);
  r.mpi = mpi_backend_stats(rt.backend());
  if (!o.timeline.empty()) {
    rt.profile().timeline = nullptr;
    timeline.write(o.timeline);
  }
  return r;
}

}  // namespace arrvm::cli
