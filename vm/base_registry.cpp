#include "vm/base_registry.hpp"

namespace arrvm {

BaseId BaseRegistry::add(DType dtype, int64_t nelem) {
  const BaseId id = next_++;
  live_.emplace(id, BaseInfo{dtype, nelem});
  return id;
}

void BaseRegistry::remove(BaseId id) {
  const auto it = live_.find(id);
  if (it == live_.end()) return;
  if (it->second.klass >= 0) --filtered_;
  live_.erase(it);
}

void BaseRegistry::set_class(BaseId id, BaseId klass, int64_t length) {
  BaseInfo* b = find(id);
  if (b == nullptr) return;
  filtered_ += (klass >= 0) - (b->klass >= 0);
  b->klass = klass;
  b->length = klass >= 0 ? length : -1;
}

const BaseInfo* BaseRegistry::find(BaseId id) const {
  const auto it = live_.find(id);
  return it == live_.end() ? nullptr : &it->second;
}

BaseInfo* BaseRegistry::find(BaseId id) {
  const auto it = live_.find(id);
  return it == live_.end() ? nullptr : &it->second;
}

}  // namespace arrvm
