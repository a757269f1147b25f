// NumPy's reductions by name over several axes, with keepdims and dtype= (the
// entry point bindings use; arrvm/arrvm.hpp `reduce`).
#include <algorithm>
#include <string>

#include "arrvm/arrvm.hpp"
#include "frontend/array_internal.hpp"
#include "vm/error.hpp"

namespace arrvm {
namespace {

enum class Kind { Sum, Prod, Min, Max, All, Any, Mean };

Kind kind_of(std::string_view name) {
  if (name == "sum") return Kind::Sum;
  if (name == "prod") return Kind::Prod;
  if (name == "min" || name == "amin") return Kind::Min;
  if (name == "max" || name == "amax") return Kind::Max;
  if (name == "all") return Kind::All;
  if (name == "any") return Kind::Any;
  if (name == "mean") return Kind::Mean;
  throw Error("reduce: '" + std::string(name) + "' is not a reduction libarrvm computes");
}

Array reduce_one(Kind k, const Array& x, int axis) {
  switch (k) {
    case Kind::Sum:
      return x.sum(axis);
    case Kind::Prod:
      return x.prod(axis);
    case Kind::Min:
      return x.min(axis);
    case Kind::Max:
      return x.max(axis);
    case Kind::All:
      return x.all(axis);
    case Kind::Any:
      return x.any(axis);
    case Kind::Mean:
      break;
  }
  return x.sum(axis);
}

}  // namespace

Array reduce(std::string_view name, const Array& a, const std::optional<std::vector<int>>& axes,
             bool keepdims, std::optional<DType> dtype) {
  const Kind k = kind_of(name);
  const std::string what(name);
  const int rank = a.ndim();
  std::vector<bool> reduced(rank, !axes.has_value());
  if (axes) {
    for (int ax : *axes) {
      const int n = frontend::normalize_axis(ax, rank, what.c_str());
      if (reduced[n]) throw Error(what + ": duplicate value in 'axis'");
      reduced[n] = true;
    }
  }
  Array x = a;
  if (dtype) {
    if (k != Kind::Sum && k != Kind::Prod && k != Kind::Mean) throw Error(what + ": takes no dtype");
    x = frontend::cast_to(x, *dtype);
  }
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) count *= a.shape()[i];
  }
  const Kind step = k == Kind::Mean ? Kind::Sum : k;
  if (k == Kind::Mean && !is_float(x.dtype()) && !is_complex(x.dtype())) x = x.astype(DType::Float64);
  Array r;
  if (!axes && !keepdims) {
    r = step == Kind::Sum    ? x.sum()
        : step == Kind::Prod ? x.prod()
        : step == Kind::Min  ? x.min()
        : step == Kind::Max  ? x.max()
        : step == Kind::All  ? x.all()
                             : x.any();
  } else {
    // Innermost first, so the remaining axis numbers stay valid.
    r = x;
    bool any = false;
    for (int i = rank - 1; i >= 0; --i) {
      if (reduced[i]) {
        r = reduce_one(step, r, i);
        any = true;
      }
    }
    // No axis (axis=() or a 0-d input): NumPy still returns a new array in
    // the reduction's dtype; reducing over an added axis of length 1 gives it.
    if (!any) r = reduce_one(step, x.expand_dims(rank), rank);
  }
  if (k == Kind::Mean) r = divide(r, static_cast<double>(count));
  // NumPy's sum/prod with dtype= return that dtype; the accumulation above
  // widens small integers (and bools) to 64 bits, whose result cast back is
  // the same (integer sums wrap alike; a bool sum is any).
  if (dtype && k != Kind::Mean) r = frontend::cast_to(r, *dtype);
  if (keepdims) {
    for (int i = 0; i < rank; ++i) {
      if (reduced[i]) r = r.expand_dims(i);
    }
  }
  return r;
}

}  // namespace arrvm
