// ilp with length classes: fusion/ilp_filters.hpp.
#include "fusion/ilp_filters.hpp"

#include <algorithm>

namespace arrvm::fusion::ilp {

std::vector<uint32_t> lacking_compresses(const Graph& g, const std::vector<uint32_t>& domains,
                                         const std::vector<uint32_t>& filters) {
  if (domains.size() <= 1) return {};
  auto parent = [&](uint32_t d) { return d == kNone ? kNone : g.access(d).domain; };
  auto depth = [&](uint32_t d) {
    int k = 0;
    for (; d != kNone; d = parent(d)) ++k;
    return k;
  };
  uint32_t top = domains[0];
  for (std::size_t i = 1; i < domains.size(); ++i) {
    uint32_t a = top, b = domains[i];
    int da = depth(a), db = depth(b);
    for (; da > db; --da) a = parent(a);
    for (; db > da; --db) b = parent(b);
    while (a != b) {
      a = parent(a);
      b = parent(b);
    }
    top = a;
  }
  std::vector<uint32_t> out;
  for (uint32_t d : domains) {
    for (uint32_t x = d; x != top; x = parent(x)) {
      if (!std::binary_search(filters.begin(), filters.end(), x)) out.push_back(x);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint32_t> lacking_compresses(const BlockSet& units, std::span<const uint32_t> ids) {
  std::vector<uint32_t> domains, filters, merged;
  for (uint32_t id : ids) {
    const BlockSummary& s = units.summary(id);
    merged.clear();
    std::set_union(domains.begin(), domains.end(), s.domains.begin(), s.domains.end(),
                   std::back_inserter(merged));
    domains.swap(merged);
    merged.clear();
    std::set_union(filters.begin(), filters.end(), s.filters.begin(), s.filters.end(),
                   std::back_inserter(merged));
    filters.swap(merged);
  }
  return lacking_compresses(units.graph(), domains, filters);
}

}  // namespace arrvm::fusion::ilp
