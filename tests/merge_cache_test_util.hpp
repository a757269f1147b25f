// Helpers shared by the merge-cache tests (test_merge_cache.cpp,
// test_merge_cache_disk.cpp): small batches, keys, cache configurations,
// the entries of a cache directory and a log capture.
#pragma once

#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cache/merge_cache.hpp"
#include "engine/runtime.hpp"
#include "fusion/block_set.hpp"
#include "fusion/graph.hpp"
#include "tests/fusion_test_util.hpp"
#include "vm/log.hpp"

namespace mc_test {

using namespace arrvm;  // tests only
using fusion_test::c;
using fusion_test::control;
using fusion_test::make;
using fusion_test::v;
using fusion_test::view1;

namespace fs = std::filesystem;

inline constexpr DType f64 = DType::Float64;

inline Operand cf(double x) {
  return Operand::of(Scalar::of_double(f64, x));
}

// t = x * alpha; y = y + t; free t — over bases created after `skip` others,
// so that two calls can differ in their base ids only.
inline std::vector<Instruction> axpy(double alpha, int skip) {
  fusion_test::Batch b;
  for (int i = 0; i < skip; ++i) b.base(f64, 1);
  const BaseId x = b.base(f64, 8), y = b.base(f64, 8), t = b.base(f64, 8);
  b.add(make(Opcode::Multiply, view1(t, 0, 8), {v(view1(x, 0, 8)), cf(alpha)}));
  b.add(make(Opcode::Add, view1(y, 0, 8), {v(view1(y, 0, 8)), v(view1(t, 0, 8))}));
  b.add(control(Opcode::Free, t));
  return b.instrs;
}

// t[s:s+4] = x * 2; y = t[s+off:s+off+4] + x (s: `shift`). off 0: the same view (fusible);
// off 2: overlapping, not identical (fuse-preventing); off 4: disjoint.
inline std::vector<Instruction> shifted_read(int64_t off, int64_t shift = 0) {
  fusion_test::Batch b;
  const BaseId x = b.base(f64, 4), t = b.base(f64, 8 + shift), y = b.base(f64, 4);
  b.add(make(Opcode::Multiply, view1(t, shift, 4), {v(view1(x, 0, 4)), cf(2)}));
  b.add(make(Opcode::Add, view1(y, 0, 4), {v(view1(t, shift + off, 4)), v(view1(x, 0, 4))}));
  return b.instrs;
}

inline MergeKey key_of(const std::vector<Instruction>& batch, const std::string& fuser = "greedy",
                       const std::string& cost = "bohrium", double limit = 0) {
  MergeKeyBuilder builder(fuser, cost, limit);
  MergeKey k;
  builder.build(batch, &k);
  return k;
}

inline bool same(const Partition& a, const Partition& b) {
  return a.blocks == b.blocks;
}

inline std::string legality(const std::vector<Instruction>& batch, const Partition& p) {
  const fusion::Graph g(batch);
  return fusion::check_partition(g, p);
}

inline Config cache_config(const std::string& dir, const std::string& fuser = "greedy") {
  Config c;
  c.backend = "ref";
  c.fuser = fuser;
  c.cache = CacheMode::On;
  c.cache_dir = dir;
  return c;
}

inline std::vector<fs::path> entries(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "merge", ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_all(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << data;
}

// Captures what libarrvm logs while it lives.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    logger().sinks().push_back(sink_);
  }
  ~LogCapture() { logger().sinks().pop_back(); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

}  // namespace mc_test
