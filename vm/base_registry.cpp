#include "vm/base_registry.hpp"

namespace arrvm {

BaseId BaseRegistry::add(DType dtype, int64_t nelem) {
  const BaseId id = next_++;
  live_.emplace(id, BaseInfo{dtype, nelem});
  return id;
}

const BaseInfo* BaseRegistry::find(BaseId id) const {
  const auto it = live_.find(id);
  return it == live_.end() ? nullptr : &it->second;
}

}  // namespace arrvm
