// Host access at once (no flush): an element read or written where nothing
// pending touches its base goes straight to the backend's memory
// (Backend::read_elements / write_elements). NumPy loops read and write
// single elements between array operations (`T[i, j] = max(...)`, `if
// x[k] > 0`); a flush per access cost tens of microseconds.
#include "backends/backend.hpp"
#include "engine/runtime.hpp"

namespace arrvm {

// The bases the pending batch touches, indexed as far as asked (a read in a
// loop that issues asks once per instruction, not once per instruction of
// the batch). Between flushes the batch only grows at its end (an
// instruction rejected or moved is popped again: the index may then hold
// more bases than the batch touches, which only costs a flush); whatever
// replaces it (a flush's carry, the eager path) resets the index.
bool Runtime::pending_uses(BaseId id) {
  if (touched_upto_ > batch_.size()) forget_touched();
  for (; touched_upto_ < batch_.size(); ++touched_upto_) {
    const Instruction& in = batch_[touched_upto_];
    touched_.insert(in.out.base);
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) touched_.insert(in.in[k].view.base);
    }
  }
  return touched_.count(id) != 0;
}

void Runtime::forget_touched() {
  // (clear() zeroes every bucket, however few bases the set holds: the eager
  // path forgets once per instruction, so an empty index is left alone and
  // one a large batch grew is dropped rather than cleared.)
  if (!touched_.empty()) {
    if (touched_.bucket_count() > 64) {
      std::unordered_set<BaseId>().swap(touched_);
    } else {
      touched_.clear();
    }
  }
  touched_upto_ = 0;
}

bool Runtime::read_now(BaseId id, int64_t offset, int64_t count, void* dst, int64_t stride) {
  const BaseInfo* b = bases_.find(id);
  // (A traced run records every read as a sync, with its data: trace_->sync.)
  if (trace_ || b == nullptr || b->klass >= 0 || offset < 0 || count < 0) return false;
  if (stride == 1) {
    if (offset > b->nelem - count) return false;
  } else if (count > 0) {
    int64_t last = 0;  // the element read last, inside the base
    if (stride == 0 || __builtin_mul_overflow(count - 1, stride, &last) ||
        __builtin_add_overflow(last, offset, &last) || last < 0 || last >= b->nelem || offset >= b->nelem)
      return false;
  }
  if ((!poisoned_.empty() && poisoned_.count(id) != 0) || copy_back_.is_padded(id) ||
      (!batch_.empty() && pending_uses(id)))
    return false;
  if (!backend_->read_elements(id, offset, stride, count, dst)) return false;
  // What a sync would do to the deferral's watch list (Runtime::watch).
  if (!watched_.empty()) watched_.erase(id);
  ++profile_.reads_direct;
  profile_.bytes_to_host += static_cast<std::size_t>(count) * dtype_size(b->dtype);
  return true;
}

bool Runtime::write_now(BaseId id, int64_t offset, int64_t count, const void* src) {
  const BaseInfo* b = bases_.find(id);
  if (trace_ || b == nullptr || b->klass >= 0 || offset < 0 || count < 0 || offset > b->nelem - count)
    return false;
  if (!poisoned_.empty() && poisoned_.count(id) != 0) return false;
  if (copy_back_.involves(id) || (!batch_.empty() && pending_uses(id))) return false;
  if (!backend_->write_elements(id, offset, count, src)) return false;
  bases_.note_write(id);
  ++profile_.writes_direct;
  profile_.bytes_from_host += static_cast<std::size_t>(count) * dtype_size(b->dtype);
  return true;
}

uint64_t Runtime::version(BaseId id) {
  // (Memory the program gave, adopt: written behind the VM's back whenever
  // the program likes, so never the same version twice.)
  if (adopted_.count(id) != 0) return ++adopted_versions_ | (uint64_t{1} << 63);
  const BaseInfo* b = bases_.find(id);
  return b == nullptr ? 0 : b->writes;
}

}  // namespace arrvm
