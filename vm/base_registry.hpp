// The live base arrays of one VM: what validation checks instructions
// against and what the runtime allocates from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vm/base_map.hpp"
#include "vm/dtype.hpp"
#include "vm/instruction.hpp"
#include "vm/size.hpp"

namespace arrvm {

struct BaseInfo {
  DType dtype;
  int64_t nelem;
  // Length classes (vm/length_class.hpp): the base whose `compress` this
  // base's length comes from (-1: an ordinary base), and that length once a
  // flush has run it (-1 while pending). A whole view of such a base
  // denotes its first `length` elements.
  BaseId klass = -1;
  int64_t length = -1;
  // How often the base was written (Runtime::version): counted where
  // validation resolves an instruction's output view (validate.cpp: no
  // lookup of its own on the issue path; a rejected instruction counts too,
  // which only makes a frontend recompute), and by the host's writes
  // (Runtime::write, write_now, adopt).
  mutable uint64_t writes = 0;
};

// Live base arrays. Ids are handed out in increasing order and never reused,
// so a freed base needs no tombstone: an id below next_id() that is not
// live was freed (this keeps a long loop's registry at constant size).
class BaseRegistry {
 public:
  // Throws Error for a size past vm/size.hpp's limit (nothing is added).
  BaseId add(DType dtype, int64_t nelem) {
    check_base_size(dtype, nelem, "new base");
    const BaseId id = next_++;
    live_[id] = BaseInfo{dtype, nelem};
    return id;
  }
  void remove(BaseId id) {
    const BaseInfo* b = live_.find(id);
    if (b == nullptr) return;
    if (b->klass >= 0) --filtered_;
    live_.erase(id);
  }
  const BaseInfo* find(BaseId id) const { return live_.find(id); }
  BaseInfo* find(BaseId id) { return live_.find(id); }
  bool was_freed(BaseId id) const { return id >= 0 && id < next_ && !live_.contains(id); }
  std::size_t live_count() const { return live_.size(); }
  // Length classes (vm/length_class.hpp): sets a live base's class and
  // length; how many live bases belong to a class.
  void set_class(BaseId id, BaseId klass, int64_t length) {
    BaseInfo* b = live_.find(id);
    if (b == nullptr) return;
    filtered_ += (klass >= 0) - (b->klass >= 0);
    b->klass = klass;
    b->length = klass >= 0 ? length : -1;
  }
  std::size_t filtered_count() const { return filtered_; }
  void note_write(BaseId id) {
    if (BaseInfo* b = live_.find(id)) ++b->writes;
  }

 private:
  BaseMap<BaseInfo> live_;  // (flat: no allocation per base)
  BaseId next_ = 0;
  std::size_t filtered_ = 0;
};

}  // namespace arrvm
