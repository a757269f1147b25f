#include "frontend/cli/cache_study.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "vm/error.hpp"

namespace arrvm::cli {

namespace {

// A temporary cache directory, removed with its contents.
class StudyDir {
 public:
  StudyDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "arrvm-cache-study-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw Error("cache study: cannot create a temporary directory");
    path_ = tmpl;
  }
  ~StudyDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  StudyDir(const StudyDir&) = delete;
  StudyDir& operator=(const StudyDir&) = delete;
  const std::string& path() const { return path_; }
  void clear_merge_entries() const {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(path_) / "merge", ec);
  }

 private:
  std::string path_;
};

CacheStudyCell cell_of(const ReplayResult& r) {
  CacheStudyCell c;
  c.total_s = r.wall_s;
  c.fuse_s = r.fusion_s + r.merge_cache_s;
  c.hits = r.merge_hits;
  c.misses = r.merge_misses;
  c.upgrades = r.merge_upgrades;
  c.cost = r.cost();
  c.verified = r.verified();
  return c;
}

// The faster of two runs; a failed verification sticks.
void keep_best(CacheStudyCell* best, const CacheStudyCell& c, bool first) {
  const bool verified = best->verified && c.verified;
  if (first || c.total_s < best->total_s) *best = c;
  best->verified = verified;
}

class Study {
 public:
  Study(const ReplayOptions& o, const StudyDir& dir) : o_(o), dir_(dir) {}

  CacheStudyRow row(const std::string& fuser, const std::string& anytime) {
    CacheStudyRow row;
    row.fuser = fuser;
    row.anytime = anytime;
    // Kernels for this fuser's partitions (exact and, with anytime, greedy's).
    run(fuser, anytime, "off", 1);
    dir_.clear_merge_entries();
    run(fuser, anytime, "on", 1);
    for (int rep = 0; rep < o_.repeat; ++rep) {
      const bool first = rep == 0;
      keep_best(&row.none, cell_of(run(fuser, anytime, "off", 1)), first);
      dir_.clear_merge_entries();
      keep_best(&row.cold, cell_of(run(fuser, anytime, "on", 1)), first);
      // A new Runtime on the directory the cold run left; its second pass
      // finds everything in memory.
      const ReplayResult warm = run(fuser, anytime, "on", 1);
      keep_best(&row.warm, cell_of(warm), first);
      keep_best(&row.hot, cell_of(run(fuser, anytime, "on", 2)), first);
    }
    last_ = run(fuser, anytime, "on", 1);
    return row;
  }

  const ReplayResult& last() const { return last_; }

 private:
  ReplayResult run(const std::string& fuser, const std::string& anytime, const std::string& merge_cache,
                   int repeat) {
    ReplayOptions o = o_;
    o.repeat = repeat;
    o.dot_dir.clear();
    o.cache_study = false;
    o.ilp_report = false;  // its extra solve would be timed as if it were the run's
    std::erase_if(o.config, [](const auto& kv) { return kv.first == "fuser" || kv.first == "anytime"; });
    o.config.emplace_back("fuser", fuser);
    if (anytime != "-") o.config.emplace_back("anytime", anytime);
    o.config.emplace_back("cache", "on");
    o.config.emplace_back("cache_dir", dir_.path());
    o.config.emplace_back("merge_cache", merge_cache);
    o.config.emplace_back("profile", "");
    o.config.emplace_back("trace", "");
    return replay(o);
  }

  const ReplayOptions& o_;
  const StudyDir& dir_;
  ReplayResult last_;
};

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.3f", s * 1e3);
  return buf;
}

nlohmann::ordered_json cell_json(const CacheStudyCell& c) {
  return {{"total", c.total_s},     {"fusion", c.fuse_s}, {"merge_hits", c.hits},  {"merge_misses", c.misses},
          {"upgrades", c.upgrades}, {"cost", c.cost},     {"verified", c.verified}};
}

}  // namespace

bool CacheStudy::verified() const {
  for (const CacheStudyRow& r : rows) {
    for (const CacheStudyCell* c : {&r.none, &r.cold, &r.warm, &r.hot}) {
      if (!c->verified) return false;
    }
  }
  return true;
}

CacheStudy cache_study(const ReplayOptions& options) {
  const StudyDir dir;
  Study study(options, dir);
  CacheStudy s;
  s.trace = options.trace;
  const std::pair<const char*, const char*> rows[] = {{"linear", "-"},   {"greedy", "-"}, {"optimal", "off"},
                                                      {"optimal", "on"}, {"ilp", "off"},  {"ilp", "on"}};
  for (const auto& [fuser, anytime] : rows) s.rows.push_back(study.row(fuser, anytime));
  s.backend = study.last().backend;
  s.cost_model = study.last().cost_model;
  s.instructions = study.last().instructions;
  s.batches = study.last().batches.size();
  return s;
}

std::string cache_study_text(const CacheStudy& s) {
  std::ostringstream o;
  o << "cache study of " << s.trace << ": backend " << s.backend << ", cost model " << s.cost_model << ", "
    << s.instructions << " instructions in " << s.batches << " batches\n";
  o << "times in ms: total replay / of which fusion + merge cache (hash, lookup, disk)\n";
  o << "fuser    anytime |       no cache      |      cold cache     |  warm (new process) "
       "|  hot (same process) | cost cold -> hot\n";
  for (const CacheStudyRow& r : s.rows) {
    char head[32];
    std::snprintf(head, sizeof head, "%-8s %-7s", r.fuser.c_str(), r.anytime.c_str());
    o << head;
    for (const CacheStudyCell* c : {&r.none, &r.cold, &r.warm, &r.hot}) {
      o << " |" << ms(c->total_s) << " /" << ms(c->fuse_s);
    }
    o << " | " << r.cold.cost << " -> " << r.hot.cost;
    if (r.cold.upgrades + r.hot.upgrades > 0) o << " (" << r.cold.upgrades + r.hot.upgrades << " upgrades)";
    o << "\n";
  }
  o << "merge cache (cold run): ";
  for (const CacheStudyRow& r : s.rows) {
    o << r.fuser << (r.anytime == "on" ? "+anytime" : "") << " " << r.cold.hits << " hits / " << r.cold.misses
      << " misses; ";
  }
  o << "\n" << (s.verified() ? "verified" : "NOT verified: some run's syncs differ from the trace") << "\n";
  return o.str();
}

nlohmann::ordered_json cache_study_json(const CacheStudy& s) {
  nlohmann::ordered_json j;
  j["trace"] = s.trace;
  j["backend"] = s.backend;
  j["cost_model"] = s.cost_model;
  j["instructions"] = s.instructions;
  j["batches"] = s.batches;
  j["verified"] = s.verified();
  j["rows"] = nlohmann::ordered_json::array();
  for (const CacheStudyRow& r : s.rows) {
    j["rows"].push_back({{"fuser", r.fuser},
                         {"anytime", r.anytime},
                         {"none", cell_json(r.none)},
                         {"cold", cell_json(r.cold)},
                         {"warm", cell_json(r.warm)},
                         {"hot", cell_json(r.hot)}});
  }
  return j;
}

}  // namespace arrvm::cli
