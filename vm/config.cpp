#include "vm/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "vm/error.hpp"
#include "vm/log.hpp"

namespace arrvm {
namespace {

int64_t parse_int(const std::string& name, const std::string& v) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x <= 0) {
    throw Error("configuration: " + name + "='" + v + "' is not a positive integer");
  }
  return x;
}

// A byte count with an optional K, M or G suffix (powers of 1024); 0 allowed.
int64_t parse_bytes(const std::string& name, const std::string& v) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  int64_t unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1LL << 10;
  if (*end == 'M' || *end == 'm') unit = 1LL << 20;
  if (*end == 'G' || *end == 'g') unit = 1LL << 30;
  if (unit != 1) ++end;
  if (v.empty() || end == v.c_str() || *end != '\0' || x < 0) {
    throw Error("configuration: " + name + "='" + v + "' is not a byte count (e.g. 1048576 or 64M)");
  }
  return x * unit;
}

double parse_seconds(const std::string& name, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= 0)) {
    throw Error("configuration: " + name + "='" + v + "' is not a number of seconds");
  }
  return x;
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/arrvm";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/arrvm";
  // No home: a directory of this user's own in the temp directory (created
  // 0700; used only if nobody else owns or can write it: cache/disk_entry.hpp).
  const char* t = std::getenv("TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/arrvm-cache-" + std::to_string(geteuid());
}

void check_choice(const std::string& name, const std::string& v, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return;
    list += std::string(list.empty() ? "" : ", ") + a;
  }
  throw Error("configuration: " + name + "='" + v + "' is not one of " + list);
}

// ARRVM_PROFILE: "1" (text on stderr), "" (none) or a path for JSON. A
// value is a path only if it looks like one, so that ARRVM_PROFILE=yes does
// not write a file called "yes".
std::string parse_profile(const std::string& name, const std::string& v) {
  std::string lower;
  for (char c : v) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* on : {"1", "true", "on", "yes", "stderr"}) {
    if (lower == on) return "1";
  }
  for (const char* off : {"", "0", "false", "off", "no"}) {
    if (lower == off) return "";
  }
  const bool json = v.size() > 5 && v.compare(v.size() - 5, 5, ".json") == 0;
  if (v.find('/') != std::string::npos || json) return v;
  throw Error("configuration: " + name + "='" + v +
              "' is neither 1/true/on/yes/stderr (a profile on stderr), 0/false/off/no (none), nor a path "
              "(one containing '/' or ending in .json, e.g. ./" +
              v + ".json)");
}

CacheMode parse_cache_choice(const std::string& name, const std::string& v) {
  if (const std::optional<CacheMode> m = parse_cache_mode(v)) return *m;
  throw Error("configuration: " + name + "='" + v + "' is not one of on, memory, off");
}

bool parse_on_off(const std::string& name, const std::string& v) {
  check_choice(name, v, {"on", "off"});
  return v == "on";
}

}  // namespace

const char* to_string(CacheMode mode) {
  switch (mode) {
    case CacheMode::On:
      return "on";
    case CacheMode::Memory:
      return "memory";
    case CacheMode::Off:
      return "off";
  }
  return "?";
}

std::optional<CacheMode> parse_cache_mode(std::string_view name) {
  for (CacheMode m : {CacheMode::On, CacheMode::Memory, CacheMode::Off}) {
    if (name == to_string(m)) return m;
  }
  return std::nullopt;
}

namespace {

// Sets option `name` of `c`; errors call the value `label` (the option's
// name, or the environment variable it came from) and quote it.
void set_option(Config& c, const std::string& name, const std::string& label, const std::string& value) {
  if (name == "backend") {
    c.backend = value;
  } else if (name == "fuser") {
    c.fuser = value;
  } else if (name == "cost") {
    c.cost = value;
  } else if (name == "batch") {
    c.batch = parse_int(label, value);
  } else if (name == "cache_dir") {
    c.cache_dir = value;
  } else if (name == "cache") {
    c.cache = parse_cache_choice(label, value);
  } else if (name == "trace") {
    c.trace = value;
  } else if (name == "profile") {
    c.profile = parse_profile(label, value);
  } else if (name == "log") {
    c.log = value;
  } else if (name == "cc") {
    c.cc = value;
  } else if (name == "cflags") {
    c.cflags = value;
  } else if (name == "opencl_device") {
    c.opencl_device = value;
  } else if (name == "fuse_time_limit") {
    c.fuse_time_limit = parse_seconds(label, value);
  } else if (name == "merge_cache") {
    c.merge_cache = value.empty() ? std::nullopt : std::optional(parse_cache_choice(label, value));
  } else if (name == "anytime") {
    c.anytime = parse_on_off(label, value);
  } else if (name == "passes") {
    c.passes = value;
    c.pass_names();  // (checks the syntax; the names are the VM's to check)
  } else if (name == "defer_every_site") {
    c.defer_every_site = parse_on_off(label, value);
  } else if (name == "mpi_node_backend") {
    c.mpi_node_backend = value;
  } else if (name == "mem_limit") {
    c.mem_limit = parse_bytes(label, value);
  } else if (name == "compile_timeout") {
    c.compile_timeout = parse_seconds(label, value);
  } else if (name == "tiered") {
    c.tiered = parse_on_off(label, value);
  } else if (name == "eager") {
    char* end = nullptr;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    if (value == "on" || value == "off") {
      c.eager = value == "on" ? Config::kEagerDefault : 0;
    } else if (!value.empty() && *end == '\0' && n >= 0) {
      c.eager = n;
    } else {
      throw Error("configuration: " + label + "='" + value + "' is not on, off or a number of elements");
    }
  } else if (name == "background_grace") {
    c.background_grace = parse_seconds(label, value);
  } else {
    throw Error("configuration: unknown option '" + name + "'");
  }
}

}  // namespace

std::vector<std::string> Config::pass_names() const {
  std::vector<std::string> names;
  std::size_t at = 0;
  while (at <= passes.size()) {
    std::size_t comma = passes.find(',', at);
    if (comma == std::string::npos) comma = passes.size();
    std::string word = passes.substr(at, comma - at);
    at = comma + 1;
    if (word == "default" || word == "none") continue;
    if (!word.empty() && (word[0] == '+' || word[0] == '-')) word.erase(0, 1);
    const bool ok = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) {
      return std::islower(static_cast<unsigned char>(ch)) || ch == '-';
    });
    if (!ok) {
      throw Error("configuration: ARRVM_PASSES='" + passes +
                  "': each item is default, none, NAME, +NAME or -NAME (e.g. default,-cse)");
    }
    names.push_back(word);
  }
  return names;
}

bool Config::pass_on(std::string_view name) const {
  bool on = true;
  std::size_t at = 0;
  while (at <= passes.size()) {
    std::size_t comma = passes.find(',', at);
    if (comma == std::string::npos) comma = passes.size();
    std::string_view word = std::string_view(passes).substr(at, comma - at);
    at = comma + 1;
    if (word == "default") {
      on = true;
    } else if (word == "none") {
      on = false;
    } else if (!word.empty() && word[0] == '-') {
      if (word.substr(1) == name) on = false;
    } else if (!word.empty() && word[0] == '+') {
      if (word.substr(1) == name) on = true;
    } else if (word == name) {
      on = true;
    }
  }
  return on;
}

void Config::set(const std::string& name, const std::string& value) {
  set_option(*this, name, name, value);
}

Config Config::from_env() {
  return from_env(nullptr);
}

Config Config::from_env(std::vector<std::string>* problems) {
  Config c;
  c.cache_dir = default_cache_dir();
  c.tiered = true;  // (Config's own defaults are off: vm/config.hpp)
  c.eager = Config::kEagerDefault;
  static const std::pair<const char*, const char*> kVars[] = {
      {"ARRVM_BACKEND", "backend"},
      {"ARRVM_FUSER", "fuser"},
      {"ARRVM_COST", "cost"},
      {"ARRVM_BATCH", "batch"},
      {"ARRVM_CACHE_DIR", "cache_dir"},
      {"ARRVM_CACHE", "cache"},
      {"ARRVM_TRACE", "trace"},
      {"ARRVM_PROFILE", "profile"},
      {"ARRVM_LOG", "log"},
      {"ARRVM_CC", "cc"},
      {"ARRVM_CFLAGS", "cflags"},
      {"ARRVM_OPENCL_DEVICE", "opencl_device"},
      {"ARRVM_FUSE_TIME_LIMIT", "fuse_time_limit"},
      {"ARRVM_MERGE_CACHE", "merge_cache"},
      {"ARRVM_ANYTIME", "anytime"},
      {"ARRVM_PASSES", "passes"},
      {"ARRVM_MPI_NODE_BACKEND", "mpi_node_backend"},
      {"ARRVM_MEM_LIMIT", "mem_limit"},
      {"ARRVM_COMPILE_TIMEOUT", "compile_timeout"},
      {"ARRVM_TIERED", "tiered"},
      {"ARRVM_EAGER", "eager"},
      {"ARRVM_BACKGROUND_GRACE", "background_grace"},
  };
  // One variable each for an optimisation until ARRVM_PASSES replaced them.
  static const std::pair<const char*, const char*> kGone[] = {
      {"ARRVM_PULL_GATHERS", "pull-gathers"},
      {"ARRVM_FOLD_FILLS", "fold-fills"},
      {"ARRVM_SPLIT_BOXES", "split-boxes"},
      {"ARRVM_SPLIT_FILLS", "split-fills"},
      {"ARRVM_CSE", "cse"},
      {"ARRVM_FORWARD_COPIES", "forward-copies"},
      {"ARRVM_FORWARD_STORES", "forward-stores"},
      {"ARRVM_COPY_RENAME", "copy-rename"},
      {"ARRVM_ROW_FUSION", "row-fusion"},
      {"ARRVM_VECTOR_MATH", "vector-math"},
      {"ARRVM_DEFER", "defer"},
      {"ARRVM_LANES", "lanes"},
  };
  for (const auto& [env, pass] : kGone) {
    if (std::getenv(env) == nullptr) continue;
    const std::string msg = std::string(env) + " is no longer read: ARRVM_PASSES=default,-" + pass +
                            " turns that pass off (docs/reference.md)";
    if (problems != nullptr) problems->push_back("configuration: " + msg);
    logger().warn("{}", msg);
  }
  for (const auto& [env, name] : kVars) {
    const char* v = std::getenv(env);
    if (v == nullptr) continue;
    try {
      set_option(c, name, env, v);
    } catch (const Error& e) {
      if (problems == nullptr) throw;
      problems->push_back(e.what());
    }
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> Config::describe() const {
  return {
      {"ARRVM_BACKEND", backend},
      {"ARRVM_FUSER", fuser},
      {"ARRVM_COST", cost},
      {"ARRVM_BATCH", std::to_string(batch)},
      {"ARRVM_CACHE_DIR", cache_dir},
      {"ARRVM_CACHE", to_string(cache)},
      {"ARRVM_TRACE", trace},
      {"ARRVM_PROFILE", profile == "1"    ? "1 (text on stderr)"
                        : profile.empty() ? ""
                                          : profile + " (JSON)"},
      {"ARRVM_LOG", log},
      {"ARRVM_CC", cc},
      {"ARRVM_CFLAGS", cflags},
      {"ARRVM_OPENCL_DEVICE", opencl_device},
      {"ARRVM_FUSE_TIME_LIMIT", std::to_string(fuse_time_limit)},
      {"ARRVM_MERGE_CACHE", to_string(merge_cache_mode())},
      {"ARRVM_ANYTIME", anytime ? "on" : "off"},
      {"ARRVM_PASSES", passes},
      {"ARRVM_MPI_NODE_BACKEND", mpi_node_backend},
      {"ARRVM_MEM_LIMIT", std::to_string(mem_limit)},
      {"ARRVM_COMPILE_TIMEOUT", std::to_string(compile_timeout)},
      {"ARRVM_TIERED", tiered ? "on" : "off"},
      {"ARRVM_EAGER", eager > 0 ? std::to_string(eager) : "off"},
      {"ARRVM_BACKGROUND_GRACE", std::to_string(background_grace)},
  };
}

void configure_logging(const std::string& level) {
  const auto lvl = spdlog::level::from_str(level);
  // from_str maps unknown names to "off"; only accept that for "off" itself.
  if (lvl == spdlog::level::off && level != "off") {
    throw Error("configuration: log level '" + level + "' is not a spdlog level");
  }
  logger().set_level(lvl);
}

}  // namespace arrvm
