// Config: typed values parsed once where the configuration is read, and
// errors that name the option or environment variable and the bad value.
#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/cpu_test_util.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"

using arrvm::CacheMode;
using arrvm::Config;

namespace {

using cputest::EnvVar;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const arrvm::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("config: cache modes parse to CacheMode and print back") {
  for (const char* name : {"on", "memory", "off"}) {
    const std::optional<CacheMode> m = arrvm::parse_cache_mode(name);
    REQUIRE(m.has_value());
    CHECK(std::string(arrvm::to_string(*m)) == name);
  }
  CHECK_FALSE(arrvm::parse_cache_mode("On").has_value());
  CHECK_FALSE(arrvm::parse_cache_mode("").has_value());

  Config c;
  CHECK(c.cache == CacheMode::On);
  CHECK_FALSE(c.merge_cache.has_value());
  CHECK(c.anytime);
  c.set("cache", "memory");
  CHECK(c.cache == CacheMode::Memory);
  CHECK(c.merge_cache_mode() == CacheMode::Memory);  // follows cache while unset
  c.set("merge_cache", "off");
  CHECK(c.merge_cache_mode() == CacheMode::Off);
  c.set("merge_cache", "");  // back to "as cache"
  CHECK(c.merge_cache_mode() == CacheMode::Memory);
  c.set("anytime", "off");
  CHECK_FALSE(c.anytime);
}

TEST_CASE("config: a bad value names the option and the value") {
  Config c;
  CHECK(error_of([&] { c.set("cache", "maybe"); }) ==
        "configuration: cache='maybe' is not one of on, memory, off");
  CHECK(error_of([&] { c.set("anytime", "yes"); }) == "configuration: anytime='yes' is not one of on, off");
  CHECK(c.cache == CacheMode::On);  // unchanged
  CHECK(c.anytime);
}

TEST_CASE("config: a bad environment variable names the variable and the value") {
  {
    EnvVar v("ARRVM_CACHE", "disk");
    CHECK(error_of([] { Config::from_env(); }) ==
          "configuration: ARRVM_CACHE='disk' is not one of on, memory, off");
    std::vector<std::string> problems;
    const Config c = Config::from_env(&problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "configuration: ARRVM_CACHE='disk' is not one of on, memory, off");
    CHECK(c.cache == CacheMode::On);  // left at its default
  }
  {
    EnvVar v("ARRVM_MERGE_CACHE", "memory");
    EnvVar a("ARRVM_ANYTIME", "off");
    const Config c = Config::from_env();
    CHECK(c.merge_cache == CacheMode::Memory);
    CHECK_FALSE(c.anytime);
  }
  {
    EnvVar v("ARRVM_BATCH", "-3");
    CHECK(error_of([] { Config::from_env(); }) ==
          "configuration: ARRVM_BATCH='-3' is not a positive integer");
  }
}
