#include "rewrite/block_lanes.hpp"

#include "vm/row_nest.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "rewrite/pass.hpp"
#include "vm/opcode.hpp"

namespace arrvm {

namespace {

uint64_t mix(uint64_t h, uint64_t x) {
  return (h ^ x) * 1099511628211ull;
}

// A view's structure: dtype, shape and the strides of axes longer than one.
uint64_t mix_view(uint64_t h, const View& v) {
  h = mix(h, uint64_t{static_cast<uint8_t>(v.dtype)} | uint64_t{static_cast<uint8_t>(v.rank())} << 8);
  for (int d = 0; d < v.rank(); ++d) {
    h = mix(h, static_cast<uint64_t>(v.shape[d]));
    h = mix(h, static_cast<uint64_t>(v.shape[d] > 1 ? v.stride[d] : 0));
  }
  return h;
}

}  // namespace

uint64_t lane_structure(const Instruction& in) {
  uint64_t h = mix(1469598103934665603ull, uint64_t{static_cast<uint16_t>(in.op)} |
                                               uint64_t{static_cast<uint8_t>(in.nin)} << 16 |
                                               uint64_t{static_cast<uint32_t>(in.axis + 1)} << 24 |
                                               uint64_t{in.length_class >= 0} << 56);
  if (is_control(in.op)) return h;
  h = mix_view(h, in.out);
  for (int k = 0; k < in.nin; ++k) {
    const Operand& o = in.in[k];
    h = o.is_const ? mix(h, uint64_t{1} << 60 | static_cast<uint8_t>(o.constant.dtype)) : mix_view(h, o.view);
  }
  return h;
}

namespace {

uint64_t structure(const Instruction& in) {
  return lane_structure(in);
}

struct Run {
  std::size_t start = 0, period = 0, lanes = 0;
  std::size_t length = 0;  // of the periodic stretch from start (lanes * period, and a part of a lane)
};

// The run of `s` covering the most instructions that repeats at least
// kMinLanes times with a period of at most kMaxPeriod (the smaller period
// on a tie).
Run longest_run(const std::vector<uint64_t>& s) {
  Run best;
  const std::size_t w = s.size();
  for (std::size_t p = 1; p <= kMaxPeriod && kMinLanes * p <= w; ++p) {
    std::size_t i = 0;
    while (i + p < w) {
      if (s[i] != s[i + p]) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j + p < w && s[j] == s[j + p]) ++j;
      const std::size_t lanes = (j - i + p) / p;  // s[i, j + p) has period p
      if (lanes >= kMinLanes && lanes * p > best.lanes * best.period) best = {i, p, lanes, j - i + p};
      i = j + 1;
    }
  }
  return best;
}

// Chunk sizes, in lanes, for a run of `lanes`: kMaxLanes while that many
// are left, then the binary digits of the rest, largest first.
std::vector<std::size_t> chunk_sizes(std::size_t lanes) {
  std::vector<std::size_t> sizes;
  for (; lanes >= kMaxLanes; lanes -= kMaxLanes) sizes.push_back(kMaxLanes);
  for (std::size_t b = kMaxLanes / 2; b >= 1; b /= 2) {
    if ((lanes & b) != 0) sizes.push_back(b);
  }
  return sizes;
}

// Splits blocks into chunks of lanes (block_lanes.hpp); scratch reused
// from block to block.
class LaneSplitter {
 public:
  explicit LaneSplitter(std::span<const Instruction> batch) : batch_(batch) {}

  // Appends `b` to `out`, or its parts in program order; true if split.
  // What comes before and after a run is split again, and, being the rest
  // of a loop's lanes (`leftover`), into its smallest self-contained parts
  // where it has no run of its own: otherwise every mix of a lane or two of
  // one iteration with the next iteration's first would be a kernel of its
  // own. `b` is sorted.
  bool split(Block b, std::vector<Block>* out, bool leftover = false) {
    if (b.size() < 2 || (b.size() < 3 && !leftover)) {
      out->push_back(std::move(b));
      return false;
    }
    s_.resize(b.size());
    for (std::size_t q = 0; q < b.size(); ++q) s_[q] = structure(batch_[b[q]]);
    const Run run = longest_run(s_);
    if (run.lanes == 0 && !leftover) {
      out->push_back(std::move(b));
      return false;
    }
    mark_crossings(b);
    auto part = [&](std::size_t from, std::size_t to) {
      return Block(b.begin() + static_cast<std::ptrdiff_t>(from),
                   b.begin() + static_cast<std::ptrdiff_t>(to));
    };
    const Run lanes = run.lanes == 0 ? run : aligned(run);
    if (lanes.lanes == 0) {
      if (!leftover) {
        out->push_back(std::move(b));
        return false;
      }
      std::size_t from = 0;
      for (std::size_t x = 1; x <= b.size(); ++x) {
        if (x == b.size() || crossed_[x] == 0) {
          out->push_back(part(from, x));
          from = x;
        }
      }
      return true;
    }
    const bool whole = lanes.start == 0 && lanes.lanes * lanes.period == b.size();
    if (whole && lanes.lanes <= kMaxLanes && std::has_single_bit(lanes.lanes)) {
      out->push_back(std::move(b));
      return false;
    }
    if (lanes.start > 0) split(part(0, lanes.start), out, true);
    std::size_t at = lanes.start;
    for (std::size_t n : chunk_sizes(lanes.lanes)) {
      out->push_back(part(at, at + n * lanes.period));
      at += n * lanes.period;
    }
    if (at < b.size()) split(part(at, b.size()), out, true);
    return true;
  }

 private:
  // crossed_[x] != 0: a cut before position x of `b` separates two uses of
  // a temporary (an array freed in the block).
  void mark_crossings(const Block& b) {
    temps_.clear();
    for (uint32_t i : b) {
      if (batch_[i].op == Opcode::Free) temps_.emplace(batch_[i].out.base, std::make_pair(b.size(), 0));
    }
    crossed_.assign(b.size() + 1, 0);
    if (temps_.empty()) return;
    auto use = [&](BaseId id, std::size_t q) {
      const auto it = temps_.find(id);
      if (it == temps_.end()) return;
      it->second.first = std::min(it->second.first, q);
      it->second.second = std::max(it->second.second, q);
    };
    for (std::size_t q = 0; q < b.size(); ++q) {
      const Instruction& in = batch_[b[q]];
      use(in.out.base, q);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) use(in.in[k].view.base, q);
      }
    }
    for (const auto& [id, range] : temps_) {
      if (range.first < range.second) {  // cuts in (first, last]
        ++crossed_[range.first + 1];
        --crossed_[range.second + 1];
      }
    }
    for (std::size_t x = 1; x <= b.size(); ++x) crossed_[x] += crossed_[x - 1];
  }

  // The run's lanes shifted to start where no temporary is used on both
  // sides of a lane's border (a run found from a `free` that ends the
  // instructions before it starts a lane early by one), and of those
  // phases the one whose lane is the least rotation (by structure), so
  // that the lanes of a loop are cut alike whichever instruction a block
  // of them starts with. No lanes if no phase has kMinLanes of them.
  Run aligned(const Run& run) {
    Run best;
    for (std::size_t shift = 0; shift < run.period; ++shift) {
      const std::size_t n = (run.length - shift) / run.period;
      if (n < kMinLanes) break;
      bool clean = true;
      for (std::size_t j = 0; j <= n && clean; ++j) clean = crossed_[run.start + shift + j * run.period] == 0;
      if (!clean) continue;
      const Run r{run.start + shift, run.period, n, n * run.period};
      if (best.lanes == 0 ||
          std::lexicographical_compare(s_.begin() + static_cast<std::ptrdiff_t>(r.start),
                                       s_.begin() + static_cast<std::ptrdiff_t>(r.start + r.period),
                                       s_.begin() + static_cast<std::ptrdiff_t>(best.start),
                                       s_.begin() + static_cast<std::ptrdiff_t>(best.start + best.period)))
        best = r;
    }
    return best;
  }

  std::span<const Instruction> batch_;
  std::vector<uint64_t> s_;
  std::unordered_map<BaseId, std::pair<std::size_t, std::size_t>> temps_;  // first, last use
  std::vector<int> crossed_;
};

}  // namespace

std::size_t split_lanes(std::span<const Instruction> batch, Partition* partition) {
  std::size_t split = 0;
  std::vector<Block> out;
  LaneSplitter splitter(batch);
  RowProgram program;
  for (Block& b : partition->blocks) {
    if (b.size() >= 3) std::sort(b.begin(), b.end());  // (smaller ones are left as they are)
    // A row program stays whole: a part of it may be no kernel (vm/row_nest.hpp).
    if (b.size() >= 3 && row_program(batch, b, &program)) {
      out.push_back(std::move(b));
      continue;
    }
    split += splitter.split(std::move(b), &out) ? 1 : 0;
  }
  partition->blocks = std::move(out);
  return split;
}

uint64_t run_lanes(RewriteBatch& batch, RewriteContext& ctx) {
  return ctx.compiles ? split_lanes(batch.instrs, batch.partition) : 0;
}

}  // namespace arrvm
