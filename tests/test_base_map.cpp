// BaseMap (vm/base_map.hpp), the flat map of the base registry and host
// memory, against std::unordered_map under random inserts and erases with
// ids in runs, in strides of powers of two (probe runs that wrap and
// collide) and spread out; and a value's destructor runs once, on erase.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "vm/base_map.hpp"

using namespace arrvm;  // tests only

namespace {

void check_same(const BaseMap<int64_t>& m, const std::unordered_map<BaseId, int64_t>& ref,
                const std::vector<BaseId>& universe) {
  REQUIRE(m.size() == ref.size());
  for (BaseId id : universe) {
    const int64_t* v = m.find(id);
    const auto it = ref.find(id);
    REQUIRE((v != nullptr) == (it != ref.end()));
    if (v != nullptr) REQUIRE(*v == it->second);
  }
}

}  // namespace

TEST_CASE("BaseMap agrees with std::unordered_map") {
  for (int pattern = 0; pattern < 4; ++pattern) {
    std::vector<BaseId> universe;
    for (BaseId i = 0; i < 600; ++i) {
      switch (pattern) {
        case 0:
          universe.push_back(i);  // a run (the VM's ids)
          break;
        case 1:
          universe.push_back(i * 64);  // one home slot for many in small tables
          break;
        case 2:
          universe.push_back(i * 4096 + 3);
          break;
        default:
          universe.push_back(i * 1000003 + (i % 7));
          break;
      }
    }
    std::mt19937_64 rng(1234 + pattern);
    BaseMap<int64_t> m;
    std::unordered_map<BaseId, int64_t> ref;
    for (int step = 0; step < 20000; ++step) {
      const BaseId id = universe[rng() % universe.size()];
      if (rng() % 3 == 0) {
        CHECK(m.erase(id) == (ref.erase(id) == 1));
      } else {
        const int64_t value = static_cast<int64_t>(rng() % 1000);
        m[id] = value;
        ref[id] = value;
      }
      if (step % 1000 == 0) check_same(m, ref, universe);
    }
    check_same(m, ref, universe);
    // Erase everything in a random order, checking as the table empties.
    std::vector<BaseId> left;
    for (const auto& [id, v] : ref) left.push_back(id);
    std::shuffle(left.begin(), left.end(), rng);
    for (std::size_t i = 0; i < left.size(); ++i) {
      CHECK(m.erase(left[i]));
      ref.erase(left[i]);
      if (i % 50 == 0) check_same(m, ref, universe);
    }
    CHECK(m.empty());
    CHECK(m.find(universe[0]) == nullptr);
    CHECK_FALSE(m.erase(universe[0]));
  }
}

TEST_CASE("BaseMap: negative ids are never found, a value is destroyed once when erased") {
  BaseMap<std::shared_ptr<int>> m;
  CHECK(m.find(-1) == nullptr);  // (an empty slot's marker)
  auto counted = std::make_shared<int>(7);
  for (BaseId id = 0; id < 200; ++id) m[id] = counted;
  CHECK(counted.use_count() == 201);
  CHECK(m.find(-1) == nullptr);
  CHECK_FALSE(m.erase(-1));
  for (BaseId id = 0; id < 200; id += 2) CHECK(m.erase(id));
  CHECK(counted.use_count() == 101);
  for (BaseId id = 1; id < 200; id += 2) REQUIRE(m.find(id) != nullptr);
  // A new value in a slot some erase emptied starts empty.
  CHECK(m[0] == nullptr);
  m.clear();
  CHECK(counted.use_count() == 1);
  CHECK(m.size() == 0);
}
