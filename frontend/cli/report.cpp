// The replay report (text and JSON) and its Graphviz files.
#include "frontend/cli/replay.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "vm/error.hpp"

namespace arrvm::cli {

namespace {

// A mismatch value for humans: strings ("nan", "sha256:...") without quotes.
std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f s", s);
  return buf;
}

std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// With --fuser ilp: batches proven optimal and seconds, over the batches.
std::pair<int64_t, double> ilp_totals(const ReplayResult& r) {
  int64_t optimal = 0;
  double solve_s = 0;
  for (const BatchReport& b : r.batches) {
    optimal += b.ilp_optimal;
    solve_s += b.ilp_s;
  }
  return {optimal, solve_s};
}

}  // namespace

int64_t ReplayResult::blocks() const {
  int64_t n = 0;
  for (const BatchReport& b : batches) n += static_cast<int64_t>(b.partition.size());
  return n;
}

double ReplayResult::cost() const {
  double c = 0;
  for (const BatchReport& b : batches) c += b.cost;
  return c;
}

std::string report_text(const ReplayOptions& o, const ReplayResult& r) {
  std::ostringstream s;
  s << "replay of " << o.trace;
  if (o.repeat > 1) s << " (run " << r.repeat << " of " << o.repeat << ")";
  s << "\n";
  s << "  backend " << r.backend << ", fuser " << r.fuser << ", cost model " << r.cost_model << "\n";
  s << "  " << r.instructions << " instructions, " << r.batches.size() << " batches, " << r.blocks()
    << " blocks, cost " << r.cost() << ", " << r.kernels_compiled << " kernels compiled\n";
  s << "  time: fusion " << seconds(r.fusion_s) << ", codegen " << seconds(r.codegen_s) << ", compile "
    << seconds(r.compile_s) << ", exec " << seconds(r.exec_s) << "\n";
  if (r.fuser == "ilp") {
    const auto [optimal, solve_s] = ilp_totals(r);
    s << "  ilp: " << optimal << " of " << r.batches.size() << " batches proven optimal, solve time "
      << seconds(solve_s) << "\n";
  }
  s << "  cache: merge " << r.merge_hits << " hits / " << r.merge_misses << " misses, kernel " << r.kernel_hits
    << " hits / " << r.kernel_misses << " misses\n";
  s << "  syncs: " << r.syncs_checked << " checked";
  if (r.syncs_unchecked > 0) s << ", " << r.syncs_unchecked << " without contents or hash (not checked)";
  s << "\n";
  for (const Mismatch& m : r.mismatches) {
    s << "  MISMATCH: sync at line " << m.line << " (base " << m.base << "): ";
    if (m.index >= 0) {
      s << "element " << m.index << ": expected " << value_text(m.expected) << ", got " << value_text(m.got);
    } else {
      s << "contents differ: expected " << value_text(m.expected) << ", got " << value_text(m.got);
    }
    s << "\n";
  }
  if (r.verified() && r.syncs_checked == 0) {
    s << "verified (vacuously: no sync carried contents or a hash)\n";
  } else if (r.verified()) {
    s << "verified\n";
  } else {
    s << "NOT verified: " << r.mismatches.size() << " of " << r.syncs_checked << " checked syncs differ\n";
  }
  return s.str();
}

nlohmann::ordered_json report_json(const ReplayOptions& o, const ReplayResult& r) {
  nlohmann::ordered_json j;  // ordered: the fields read top-down like the text report
  j["trace"] = o.trace;
  j["backend"] = r.backend;
  j["fuser"] = r.fuser;
  j["cost_model"] = r.cost_model;
  j["verified"] = r.verified();
  nlohmann::ordered_json mismatches = nlohmann::ordered_json::array();
  for (const Mismatch& m : r.mismatches) {
    nlohmann::ordered_json x;
    x["line"] = m.line;
    x["base"] = m.base;
    x["index"] = m.index;
    x["expected"] = m.expected;
    x["got"] = m.got;
    mismatches.push_back(std::move(x));
  }
  j["mismatches"] = std::move(mismatches);
  j["syncs_checked"] = r.syncs_checked;
  j["syncs_unchecked"] = r.syncs_unchecked;
  j["instructions"] = r.instructions;
  j["repeat"] = r.repeat;
  j["cost"] = r.cost();
  j["blocks"] = r.blocks();
  j["kernels_compiled"] = r.kernels_compiled;
  nlohmann::ordered_json batches = nlohmann::ordered_json::array();
  for (const BatchReport& b : r.batches) {
    nlohmann::ordered_json x;
    x["instructions"] = b.instructions;
    x["partition"] = b.partition;
    x["cost"] = b.cost;
    if (b.ilp_solved) x["ilp"] = {{"optimal", b.ilp_optimal}, {"solve_s", b.ilp_s}};
    batches.push_back(std::move(x));
  }
  j["batches"] = std::move(batches);
  if (r.fuser == "ilp") {
    // Summed over the batches (each solved once more by the recorder).
    const auto [optimal, solve_s] = ilp_totals(r);
    j["ilp"] = {{"batches", r.batches.size()}, {"optimal", optimal}, {"solve_s", solve_s}};
  }
  j["time"] = {{"fusion", r.fusion_s}, {"codegen", r.codegen_s}, {"compile", r.compile_s}, {"exec", r.exec_s}};
  j["cache"] = {{"merge_hits", r.merge_hits},
                {"merge_misses", r.merge_misses},
                {"kernel_hits", r.kernel_hits},
                {"kernel_misses", r.kernel_misses}};
  if (r.mpi) {
    j["mpi"] = {{"rank", r.mpi->rank},           {"ranks", r.mpi->ranks},
                {"bytes_sent", r.mpi->bytes_sent}, {"bytes_received", r.mpi->bytes_received},
                {"messages_sent", r.mpi->messages_sent}, {"collectives", r.mpi->collectives},
                {"wait_s", r.mpi->wait_s}};
  }
  return j;
}

void write_dot_files(const std::string& dir, const ReplayResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("--dot: cannot create directory " + dir + ": " + ec.message());
  for (std::size_t k = 0; k < r.batches.size(); ++k) {
    const BatchReport& b = r.batches[k];
    char name[32];
    std::snprintf(name, sizeof name, "batch_%04zu.dot", k);
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path);
    if (!out) throw Error("--dot: cannot write " + path);
    // Nodes are named by trace instruction index (i<N>), so files of
    // different fusers diff against each other.
    out << "digraph batch_" << k << " {\n";
    out << "  // batch " << k << ": " << b.instructions << " instructions, " << b.partition.size()
        << " blocks; solid edges: dependencies, dashed red: fuse-preventing\n";
    out << "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    std::unordered_map<int64_t, std::size_t> local;  // trace index -> position in the batch
    for (std::size_t i = 0; i < b.trace_index.size(); ++i) local[b.trace_index[i]] = i;
    for (std::size_t blk = 0; blk < b.partition.size(); ++blk) {
      out << "  subgraph cluster_" << blk << " {\n";
      out << "    label=\"block " << blk << "\"; style=rounded; color=blue;\n";
      for (int64_t t : b.partition[blk]) {
        const auto it = local.find(t);
        const std::string text = it == local.end() ? "?" : to_string(b.instrs[it->second]);
        out << "    i" << t << " [label=\"" << t << ": " << dot_escape(text) << "\"];\n";
      }
      out << "  }\n";
    }
    for (const auto& [from, to] : b.dependencies) {
      out << "  i" << b.trace_index[from] << " -> i" << b.trace_index[to] << ";\n";
    }
    for (const auto& [x, y] : b.fuse_preventing) {
      out << "  i" << b.trace_index[x] << " -> i" << b.trace_index[y]
          << " [style=dashed, color=red, dir=none, constraint=false];\n";
    }
    out << "}\n";
    if (!out) throw Error("--dot: write failed: " + path);
  }
}

}  // namespace arrvm::cli
