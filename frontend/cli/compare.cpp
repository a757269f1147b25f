#include "frontend/cli/compare.hpp"

#include <cstdio>
#include <exception>
#include <sstream>

#include "vm/config.hpp"

namespace arrvm::cli {

namespace {

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

std::string status(const ComparisonRow& row) {
  if (!row.error.empty()) return "ERROR: " + row.error;
  if (row.result.verified()) return row.result.syncs_checked > 0 ? "verified" : "verified (no sync checked)";
  return "MISMATCH (" + std::to_string(row.result.mismatches.size()) + " of " +
         std::to_string(row.result.syncs_checked) + " syncs)";
}

}  // namespace

std::vector<ComparisonRow> compare(const ReplayOptions& o) {
  Config configured = Config::from_env();
  for (const auto& [name, value] : o.config) configured.set(name, value);
  const std::vector<std::string> backends =
      o.backends.empty() ? std::vector<std::string>{configured.backend} : o.backends;
  const std::vector<std::string> fusers =
      o.fusers.empty() ? std::vector<std::string>{configured.fuser} : o.fusers;
  std::vector<ComparisonRow> rows;
  for (const std::string& backend : backends) {
    for (const std::string& fuser : fusers) {
      ReplayOptions one = o;
      one.fusers.clear();
      one.backends.clear();
      one.dot_dir.clear();
      one.timeline.clear();
      one.config.emplace_back("merge_cache", "memory");
      one.config.emplace_back("anytime", "off");
      one.config.emplace_back("backend", backend);
      one.config.emplace_back("fuser", fuser);
      ComparisonRow row;
      row.backend = backend;
      row.fuser = fuser;
      try {
        row.result = replay(one);
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string comparison_text(const ReplayOptions& o, const std::vector<ComparisonRow>& rows) {
  std::ostringstream s;
  std::string cost_model = rows.empty() ? "" : rows.front().result.cost_model;
  for (const ComparisonRow& r : rows) {
    if (r.error.empty()) cost_model = r.result.cost_model;
  }
  s << "replay of " << o.trace << " per backend x fuser (cost model " << cost_model << ", merge cache cold"
    << (o.repeat > 1 ? ", last of " + std::to_string(o.repeat) + " runs" : "") << ")\n";
  s << pad("backend", 8) << pad("fuser", 12) << rpad("batches", 8) << rpad("cost", 12) << rpad("blocks", 8)
    << rpad("kernels", 8) << rpad("compiled", 9) << rpad("fusion[s]", 10) << rpad("compile[s]", 11)
    << rpad("exec[s]", 9) << rpad("total[s]", 9) << "  check\n";
  for (const ComparisonRow& row : rows) {
    s << pad(row.backend, 8) << pad(row.fuser, 12);
    if (!row.error.empty()) {
      s << "  " << status(row) << "\n";
      continue;
    }
    const ReplayResult& r = row.result;
    s << rpad(std::to_string(r.batches.size()), 8) << rpad(fmt("%.6g", r.cost()), 12)
      << rpad(std::to_string(r.blocks()), 8) << rpad(std::to_string(r.kernels_launched), 8)
      << rpad(std::to_string(r.kernels_compiled), 9) << rpad(fmt("%.4f", r.fusion_s), 10)
      << rpad(fmt("%.4f", r.compile_s), 11) << rpad(fmt("%.4f", r.exec_s - r.codegen_s - r.compile_s), 9)
      << rpad(fmt("%.4f", r.wall_s), 9) << "  " << status(row) << "\n";
  }
  int bad = 0;
  for (const ComparisonRow& row : rows) bad += row.ok() ? 0 : 1;
  s << "kernels: launched; compiled: compiler runs (kernel cache as configured); exec: execution without "
       "codegen and compile\n";
  s << (bad == 0 ? "all " + std::to_string(rows.size()) + " combinations verified"
                 : std::to_string(bad) + " of " + std::to_string(rows.size()) + " combinations failed")
    << "\n";
  return s.str();
}

nlohmann::ordered_json comparison_json(const ReplayOptions& o, const std::vector<ComparisonRow>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ComparisonRow& row : rows) {
    nlohmann::ordered_json j;
    if (row.error.empty()) {
      j = report_json(o, row.result);
      j["kernels_launched"] = row.result.kernels_launched;
    } else {
      j["trace"] = o.trace;
      j["backend"] = row.backend;
      j["fuser"] = row.fuser;
      j["verified"] = false;
      j["error"] = row.error;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace arrvm::cli
