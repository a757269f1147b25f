// `ref`: the reference interpreter. Runs one instruction at a time with the
// scalar semantics of backends/ref/scalar_ops.hpp; no fusion, no code
// generation. It is the correctness oracle every other backend and every
// fusion algorithm is tested against.
#pragma once

#include <memory>

#include "backends/backend.hpp"

namespace arrvm {

std::unique_ptr<Backend> make_ref_backend(const Config& config);

}  // namespace arrvm
