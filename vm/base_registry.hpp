// The live base arrays of one VM: what validation checks instructions
// against and what the runtime allocates from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vm/base_map.hpp"
#include "vm/dtype.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

struct BaseInfo {
  DType dtype;
  int64_t nelem;
};

// Live base arrays. Ids are handed out in increasing order and never reused,
// so a freed base needs no tombstone: an id below next_id() that is not
// live was freed (this keeps a long loop's registry at constant size).
class BaseRegistry {
 public:
  BaseId add(DType dtype, int64_t nelem) {
    const BaseId id = next_++;
    live_[id] = BaseInfo{dtype, nelem};
    return id;
  }
  void remove(BaseId id) { live_.erase(id); }
  const BaseInfo* find(BaseId id) const { return live_.find(id); }
  bool was_freed(BaseId id) const { return id >= 0 && id < next_ && !live_.contains(id); }
  std::size_t live_count() const { return live_.size(); }

 private:
  BaseMap<BaseInfo> live_;  // (flat: no allocation per base)
  BaseId next_ = 0;
};

}  // namespace arrvm
