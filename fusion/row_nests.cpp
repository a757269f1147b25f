#include "fusion/row_nests.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "vm/row_nest.hpp"

namespace arrvm::fusion {

namespace {

bool frees_only(const Graph& g, const Block& b) {
  return std::all_of(b.begin(), b.end(), [&](uint32_t i) { return g.access(i).kind == OpKind::Free; });
}

bool has_work(const Graph& g, const Block& b) {
  return std::any_of(b.begin(), b.end(), [&](uint32_t i) { return !g.access(i).is_control(); });
}

BlockSummary summary(const Graph& g, const Block& b) {
  BlockSummary s;
  for (uint32_t i : b) s.add(g, i);
  return s;
}

}  // namespace

std::size_t nest_rows(const Graph& g, const CostModel& cost, Partition* p) {
  std::vector<Block>& blocks = p->blocks;
  const std::size_t n = blocks.size();
  std::vector<Block> out;
  out.reserve(n);
  std::size_t nests = 0;
  const std::span<const Instruction> batch = g.batch();
  Block merged;
  std::vector<uint32_t> rows, rest;
  RowProgram shape;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t y = k + 1;
    while (y < n && frees_only(g, blocks[y])) ++y;
    if (y < n && has_work(g, blocks[k])) {
      merged.clear();
      for (std::size_t b = k; b <= y; ++b) merged.insert(merged.end(), blocks[b].begin(), blocks[b].end());
      const bool frees_after = y + 1 < n && frees_only(g, blocks[y + 1]);
      if (frees_after) merged.insert(merged.end(), blocks[y + 1].begin(), blocks[y + 1].end());
      std::sort(merged.begin(), merged.end());
      if (row_nest_split(batch, merged, &rows, &rest) && row_nest_legal(batch, rows, rest)) {
        Block x;
        for (std::size_t b = k; b < y; ++b) x.insert(x.end(), blocks[b].begin(), blocks[b].end());
        if (cost.saving(g, summary(g, x), summary(g, blocks[y])) >= 0) {
          out.push_back(std::move(merged));
          merged = Block();
          ++nests;
          k = frees_after ? y + 1 : y;
          continue;
        }
      }
    }
    // A row program (a reduction and its epilogues): blocks k, k+1, ...
    // while each next block with work keeps it legal and saves. The union
    // may pass through one segment on the way (an elementwise block and a
    // reduction that the rules kept apart, mpi's rule 8: `y = x.copy();
    // y /= abs(y).max(1)[:, None]`); the program is the longest legal one.
    if (has_work(g, blocks[k])) {
      Block program = blocks[k], grown;
      std::size_t last = k, at = k;
      while (true) {
        std::size_t next = at + 1;
        while (next < n && frees_only(g, blocks[next])) ++next;
        if (next >= n) break;
        merged = at == last ? program : grown;
        for (std::size_t b = at + 1; b <= next; ++b)
          merged.insert(merged.end(), blocks[b].begin(), blocks[b].end());
        std::sort(merged.begin(), merged.end());
        if (!row_program_shapes(batch, merged, &shape)) break;
        if (shape.segments() >= 2 && !row_program_legal(batch, merged, shape)) break;
        if (cost.saving(g, summary(g, at == last ? program : grown), summary(g, blocks[next])) < 0) break;
        at = next;
        if (shape.segments() >= 2) {
          program = std::move(merged);
          last = next;
        } else {
          grown = std::move(merged);
        }
      }
      if (last > k) {
        if (last + 1 < n && frees_only(g, blocks[last + 1])) {
          program.insert(program.end(), blocks[last + 1].begin(), blocks[last + 1].end());
          std::sort(program.begin(), program.end());
          ++last;
        }
        out.push_back(std::move(program));
        merged = Block();
        ++nests;
        k = last;
        continue;
      }
    }
    out.push_back(std::move(blocks[k]));
  }
  blocks = std::move(out);
  return nests;
}

Partition run_algorithm(const Algorithm& a, const Graph& g, const CostModel& cost, const Options& options) {
  Partition p = a.fuse(g, cost, options);
  if (g.rules().row_nests && std::string_view(a.name) != "singleton" && g.size() > 0) nest_rows(g, cost, &p);
  return p;
}

}  // namespace arrvm::fusion
