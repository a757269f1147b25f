// The replay report (text and JSON) and its Graphviz files.
#include "frontend/cli/replay.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "vm/error.hpp"

namespace arrvm::cli {

namespace {

// A mismatch value for humans: strings ("nan", "sha256:...") without quotes.
std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

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
  s << "  cache: merge " << r.merge_hits << " hits / " << r.merge_misses << " misses, kernel "
    << r.kernel_hits << " hits / " << r.kernel_misses << " misses\n";
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
  j["time"] = {
      {"fusion", r.fusion_s}, {"codegen", r.codegen_s}, {"compile", r.compile_s}, {"exec", r.exec_s}};
  j["cache"] = {{"merge_hits", r.merge_hits},
                {"merge_misses", r.merge_misses},
                {"kernel_hits", r.kernel_hits},
                {"kernel_misses", r.kernel_misses}};
  if (r.mpi) {
    j["mpi"] = {{"rank", r.mpi->rank},
                {"ranks", r.mpi->ranks},
                {"bytes_sent", r.mpi->bytes_sent},
                {"bytes_received", r.mpi->bytes_received},
                {"messages_sent", r.mpi->messages_sent},
                {"collectives", r.mpi->collectives},
                {"wait_s", r.mpi->wait_s}};
  }
  return j;
}

namespace {

// Batches with more instructions than this (free and sync not counted) are
// drawn with one node per block.
constexpr std::size_t kDotCollapseAbove = 60;

bool hidden_in_dot(const Instruction& in) {
  return in.op == Opcode::Free || in.op == Opcode::Sync;
}

// A constant as short as it reads back: -273.15, not -273.14999999999998:float64.
std::string compact_constant(const Scalar& c) {
  char buf[64];
  if (c.dtype == DType::Float32 || c.dtype == DType::Float64) {
    const auto r = c.dtype == DType::Float32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(c.f))
                                             : std::to_chars(buf, buf + sizeof buf, c.f);
    return std::string(buf, r.ptr);
  }
  if (c.dtype == DType::Bool) return c.i ? "true" : "false";
  const bool is_unsigned = c.dtype == DType::UInt8 || c.dtype == DType::UInt16 || c.dtype == DType::UInt32 ||
                           c.dtype == DType::UInt64;
  return is_unsigned ? std::to_string(c.u) : std::to_string(c.i);
}

// "b3 = add(b1, 2)": the op and base names; the views are in the tooltip.
std::string compact_label(const Instruction& in) {
  std::string s = "b" + std::to_string(in.out.base) + " = " + std::string(opcode_name(in.op)) + "(";
  for (int i = 0; i < in.nin; ++i) {
    if (i > 0) s += ", ";
    s += in.in[i].is_const ? compact_constant(in.in[i].constant) : "b" + std::to_string(in.in[i].view.base);
  }
  return s + ")";
}

// The edges (from < to, nodes 0..n-1) not implied by a longer path: a
// dependency drawn once, not again from every ancestor.
std::vector<std::pair<uint32_t, uint32_t>> transitive_reduction(
    std::size_t n, std::vector<std::pair<uint32_t, uint32_t>> edges) {
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<std::vector<uint32_t>> succ(n);
  for (const auto& [a, b] : edges) succ[a].push_back(b);
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));  // reach[u][v]: a path u -> v
  for (std::size_t u = n; u-- > 0;) {
    for (uint32_t w : succ[u]) {
      if (w <= u) continue;  // not in index order: kept, not used for reduction
      reach[u][w] = true;
      for (std::size_t v = 0; v < n; ++v) {
        if (reach[w][v]) reach[u][v] = true;
      }
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [a, b] : edges) {
    bool implied = false;
    for (uint32_t w : succ[a]) {
      if (w != b && w > a && reach[w][b]) {
        implied = true;
        break;
      }
    }
    if (!implied) out.emplace_back(a, b);
  }
  return out;
}

// Fuse-preventing pairs are drawn only when there are few; else they are
// listed in the nodes' tooltips.
constexpr std::size_t kDotMaxPreventingEdges = 24;

// "add x3, multiply x2" for a block's instructions, most frequent first.
std::string op_counts(const BatchReport& b, const std::vector<int64_t>& block,
                      const std::unordered_map<int64_t, std::size_t>& local) {
  std::vector<std::pair<std::string, int>> counts;
  for (int64_t t : block) {
    const auto it = local.find(t);
    if (it == local.end() || hidden_in_dot(b.instrs[it->second])) continue;
    const std::string op(opcode_name(b.instrs[it->second].op));
    auto c = std::find_if(counts.begin(), counts.end(), [&](const auto& x) { return x.first == op; });
    if (c == counts.end()) {
      counts.emplace_back(op, 1);
    } else {
      ++c->second;
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string s;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (i == 4) {
      s += "\\n...";
      break;
    }
    s += (i == 0 ? "" : (i % 2 == 0 ? "\\n" : ", ")) + counts[i].first;
    if (counts[i].second > 1) s += " x" + std::to_string(counts[i].second);
  }
  return s;
}

// Graph-wide settings: compact boxes, and a bounded size (inches) so that a
// wide batch scales down instead of rendering thousands of pixels wide.
void dot_header(std::ostream& out, std::size_t k) {
  out << "digraph batch_" << k << " {\n";
  out << "  graph [size=\"14,14\", ranksep=0.3, nodesep=0.2, fontname=\"Helvetica\", fontsize=10];\n";
  out << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=10,"
         " margin=\"0.08,0.03\", height=0.2];\n";
  out << "  edge [arrowsize=0.6];\n";
}

void write_dot_detailed(std::ostream& out, const BatchReport& b,
                        const std::unordered_map<int64_t, std::size_t>& local) {
  auto shown = [&](uint32_t pos) { return !hidden_in_dot(b.instrs[pos]); };
  std::vector<std::pair<uint32_t, uint32_t>> preventing;
  std::vector<std::string> not_fusible(b.instrs.size());  // per position: "#3 #7"
  for (const auto& [x, y] : b.fuse_preventing) {
    if (!shown(x) || !shown(y)) continue;
    preventing.emplace_back(x, y);
    not_fusible[x] += " #" + std::to_string(b.trace_index[y]);
    not_fusible[y] += " #" + std::to_string(b.trace_index[x]);
  }
  for (std::size_t blk = 0; blk < b.partition.size(); ++blk) {
    std::string nodes;
    for (int64_t t : b.partition[blk]) {
      const auto it = local.find(t);
      if (it == local.end() || hidden_in_dot(b.instrs[it->second])) continue;
      const Instruction& in = b.instrs[it->second];
      std::string tooltip = "#" + std::to_string(t) + ": " + to_string(in);
      if (!not_fusible[it->second].empty()) tooltip += "&#10;not fusible with" + not_fusible[it->second];
      nodes += "    i" + std::to_string(t) + " [label=\"" + dot_escape(compact_label(in)) + "\", tooltip=\"" +
               dot_escape(tooltip) + "\"];\n";
    }
    if (nodes.empty()) continue;  // a block of frees and syncs
    out << "  subgraph cluster_" << blk << " {\n";
    out << "    label=\"block " << blk << "\"; style=rounded; color=blue; fontcolor=blue;\n";
    out << nodes << "  }\n";
  }
  std::vector<std::pair<uint32_t, uint32_t>> deps;
  for (const auto& [from, to] : b.dependencies) {
    if (shown(from) && shown(to)) deps.emplace_back(from, to);
  }
  for (const auto& [from, to] : transitive_reduction(b.instrs.size(), deps)) {
    out << "  i" << b.trace_index[from] << " -> i" << b.trace_index[to] << ";\n";
  }
  if (preventing.size() > kDotMaxPreventingEdges) return;
  for (const auto& [x, y] : preventing) {
    out << "  i" << b.trace_index[x] << " -> i" << b.trace_index[y]
        << " [style=dashed, color=red, dir=none, constraint=false];\n";
  }
}

void write_dot_collapsed(std::ostream& out, const BatchReport& b,
                         const std::unordered_map<int64_t, std::size_t>& local) {
  std::vector<int64_t> block_of(b.instrs.size(), -1);  // position in the batch -> block
  for (std::size_t blk = 0; blk < b.partition.size(); ++blk) {
    std::size_t n = 0;
    for (int64_t t : b.partition[blk]) {
      const auto it = local.find(t);
      if (it == local.end()) continue;
      block_of[it->second] = static_cast<int64_t>(blk);
      n += hidden_in_dot(b.instrs[it->second]) ? 0 : 1;
    }
    if (n == 0) continue;
    std::string tooltip;
    for (int64_t t : b.partition[blk]) {
      const auto it = local.find(t);
      if (it != local.end() && !hidden_in_dot(b.instrs[it->second])) {
        tooltip += "#" + std::to_string(t) + ": " + compact_label(b.instrs[it->second]) + "&#10;";
      }
    }
    out << "  k" << blk << " [label=\"block " << blk << ": " << n
        << (n == 1 ? " instruction" : " instructions") << "\\n"
        << op_counts(b, b.partition[blk], local) << "\", tooltip=\"" << dot_escape(tooltip)
        << "\", color=blue];\n";
  }
  std::set<std::pair<int64_t, int64_t>> deps, prevent;
  for (const auto& [from, to] : b.dependencies) {
    if (hidden_in_dot(b.instrs[from]) || hidden_in_dot(b.instrs[to])) continue;
    const int64_t x = block_of[from], y = block_of[to];
    if (x >= 0 && y >= 0 && x != y) deps.emplace(x, y);
  }
  for (const auto& [from, to] : b.fuse_preventing) {
    if (hidden_in_dot(b.instrs[from]) || hidden_in_dot(b.instrs[to])) continue;
    const int64_t x = block_of[from], y = block_of[to];
    if (x >= 0 && y >= 0 && x != y && !deps.count({x, y}) && !deps.count({y, x})) {
      prevent.emplace(std::min(x, y), std::max(x, y));
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> block_deps;
  for (const auto& [x, y] : deps) block_deps.emplace_back(static_cast<uint32_t>(x), static_cast<uint32_t>(y));
  for (const auto& [x, y] : transitive_reduction(b.partition.size(), block_deps)) {
    out << "  k" << x << " -> k" << y << ";\n";
  }
  if (prevent.size() > kDotMaxPreventingEdges) return;
  for (const auto& [x, y] : prevent) {
    out << "  k" << x << " -> k" << y << " [style=dashed, color=red, dir=none, constraint=false];\n";
  }
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The `dot` program, if Graphviz is installed.
bool have_graphviz() {
  static const bool found = std::system("command -v dot >/dev/null 2>&1") == 0;
  return found;
}

}  // namespace

void write_dot_files(const std::string& dir, const ReplayResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("--dot: cannot create directory " + dir + ": " + ec.message());
  const bool render = have_graphviz();
  for (std::size_t k = 0; k < r.batches.size(); ++k) {
    const BatchReport& b = r.batches[k];
    char name[32];
    std::snprintf(name, sizeof name, "batch_%04zu", k);
    const std::string path = (std::filesystem::path(dir) / (std::string(name) + ".dot")).string();
    std::ofstream out(path);
    if (!out) throw Error("--dot: cannot write " + path);
    std::unordered_map<int64_t, std::size_t> local;  // trace index -> position in the batch
    std::size_t shown = 0;
    for (std::size_t i = 0; i < b.trace_index.size(); ++i) {
      local[b.trace_index[i]] = i;
      shown += hidden_in_dot(b.instrs[i]) ? 0 : 1;
    }
    const bool collapsed = shown > kDotCollapseAbove;
    // Nodes are named by trace instruction index (i<N>) or block (k<N>),
    // so files of different fusers diff against each other.
    dot_header(out, k);
    out << "  label=\"batch " << k << ": " << b.instructions << " instructions (" << shown
        << " shown: free and sync hidden), " << b.partition.size() << " blocks, cost " << b.cost
        << (collapsed ? "; one node per block" : "")
        << "\\narrows: dependencies (transitive ones left out); dashed red: fuse-preventing (when few; else "
           "in "
           "the tooltips)\";\n";
    out << "  labelloc=t;\n";
    if (collapsed) {
      write_dot_collapsed(out, b, local);
    } else {
      write_dot_detailed(out, b, local);
    }
    out << "}\n";
    out.close();
    if (!out) throw Error("--dot: write failed: " + path);
    if (render) {
      const std::string svg = (std::filesystem::path(dir) / (std::string(name) + ".svg")).string();
      const std::string cmd = "dot -Tsvg " + shell_quoted(path) + " -o " + shell_quoted(svg) + " 2>/dev/null";
      if (std::system(cmd.c_str()) != 0) throw Error("--dot: Graphviz could not render " + path);
    }
  }
}

}  // namespace arrvm::cli
