// The C ABI's handles as seen from C++ (for tests and C++ code built on the
// C ABI): the Runtime behind a VM handle and the View behind an array handle.
// Bindings use include/arrvm/arrvm.h only.
#pragma once

#include <arrvm/arrvm.h>

#include "vm/view.hpp"

namespace arrvm {

class Runtime;

// The VM's runtime; the reference is valid while `vm` is alive.
Runtime& c_api_runtime(arrvm_vm* vm);

// The view an array handle stands for (its dtype is the base's).
const View& c_api_view(const arrvm_array* a);

}  // namespace arrvm
