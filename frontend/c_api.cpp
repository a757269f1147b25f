#include "frontend/c_api.hpp"

#include <cctype>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/instruction.hpp"
#include "vm/log.hpp"
#include "vm/size.hpp"
#include "vm/validate.hpp"

// ---- Handles ----------------------------------------------------------------

// One base array owned by C handles. The last handle on it going away issues
// its `free`; it also keeps the runtime alive, so that arrays may outlive
// arrvm_vm_destroy.
namespace arrvm::c_api {
struct BaseHandle {
  std::shared_ptr<arrvm::Runtime> rt;
  arrvm::BaseId id;
  int64_t nelem;
  // Set for the result of an array-level call (c_api_numpy.cpp): the base
  // belongs to the C++ Array frontend's owner, which frees it.
  std::shared_ptr<void> owner;

  BaseHandle(std::shared_ptr<arrvm::Runtime> r, arrvm::BaseId i, int64_t n, std::shared_ptr<void> o = nullptr)
      : rt(std::move(r)), id(i), nelem(n), owner(std::move(o)) {}
  BaseHandle(const BaseHandle&) = delete;
  BaseHandle& operator=(const BaseHandle&) = delete;
  ~BaseHandle() {
    if (owner) return;
    // Releasing never fails for the caller. The free itself cannot be
    // rejected (the base is live while a handle holds it), but it may fill
    // the batch and run it; an error of that run has no caller to go to.
    try {
      rt->free_base(id);
    } catch (const std::exception& e) {
      arrvm::logger().error("arrvm_release: freeing base b{} failed: {}", id, e.what());
    } catch (...) {
      arrvm::logger().error("arrvm_release: freeing base b{} failed", id);
    }
  }
};
}  // namespace arrvm::c_api

struct arrvm_vm {
  std::shared_ptr<arrvm::Runtime> rt;
};

struct arrvm_array {
  std::shared_ptr<arrvm::c_api::BaseHandle> base;
  arrvm::View view;
};

// ---- The exception boundary -------------------------------------------------

namespace {

thread_local std::string g_last_error;

// A failure with an explicit status (argument checks, and run-time errors
// that surfaced inside a call that otherwise reports user errors).
class StatusError : public std::exception {
 public:
  StatusError(arrvm_status status, std::string msg) : status_(status), msg_(std::move(msg)) {}
  arrvm_status status() const { return status_; }
  const char* what() const noexcept override { return msg_.c_str(); }

 private:
  arrvm_status status_;
  std::string msg_;
};

[[noreturn]] void invalid(const std::string& msg) {
  throw StatusError(ARRVM_ERR_INVALID, msg);
}

arrvm_status fail(arrvm_status status, const char* msg) noexcept {
  try {
    g_last_error = msg;
  } catch (...) {
    g_last_error.clear();  // no memory for the message; the status still says what happened
  }
  return status;
}

// Runs `f`, turning every exception into a status and arrvm_last_error. A
// plain arrvm::Error means `user_error` (INVALID for calls that only
// validate, RUNTIME for calls that execute the program).
template <class F>
arrvm_status guarded(arrvm_status user_error, F&& f) noexcept {
  try {
    f();
    return ARRVM_OK;
  } catch (const StatusError& e) {
    return fail(e.status(), e.what());
  } catch (const arrvm::OutOfMemoryError& e) {
    return fail(ARRVM_ERR_NOMEM, e.what());
  } catch (const arrvm::BackendError& e) {
    return fail(ARRVM_ERR_BACKEND, e.what());
  } catch (const arrvm::Error& e) {
    return fail(user_error, e.what());
  } catch (const std::bad_alloc&) {
    return fail(ARRVM_ERR_NOMEM, "out of memory");
  } catch (const std::exception& e) {
    return fail(ARRVM_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(ARRVM_ERR_INTERNAL, "unknown exception");
  }
}

bool valid_dtype(int d) {
  return d >= 0 && d < arrvm::kDTypeCount;
}
bool valid_opcode(int op) {
  return op >= 0 && op < arrvm::kOpcodeCount;
}

arrvm::DType to_dtype(arrvm_dtype d, const char* fn) {
  if (!valid_dtype(d))
    invalid(std::string(fn) + ": invalid dtype value " + std::to_string(static_cast<int>(d)));
  return static_cast<arrvm::DType>(d);
}

template <typename T>
void require(const T* p, const char* fn, const char* what) {
  if (p == nullptr) invalid(std::string(fn) + ": " + what + " is NULL");
}

arrvm::Dims to_dims(int rank, const int64_t* values, const char* fn, const char* what) {
  if (rank < 0 || rank > arrvm::kMaxRank) {
    invalid(std::string(fn) + ": rank " + std::to_string(rank) + " is outside 0.." +
            std::to_string(arrvm::kMaxRank));
  }
  if (rank > 0) require(values, fn, what);
  arrvm::Dims d;
  for (int i = 0; i < rank; ++i) d.push_back(values[i]);
  return d;
}

int64_t checked_nelem(const arrvm::Dims& shape, const char* fn) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0) invalid(std::string(fn) + ": negative extent in shape " + arrvm::to_string(shape));
    if (__builtin_mul_overflow(n, e, &n))
      invalid(std::string(fn) + ": shape " + arrvm::to_string(shape) + " is too large");
  }
  return n;
}

arrvm_array* new_handle(std::shared_ptr<arrvm::c_api::BaseHandle> base, const arrvm::View& view) {
  auto* a = new arrvm_array;
  a->base = std::move(base);
  a->view = view;
  return a;
}

// A new base of `shape`, wrapped in a handle; with `copy`, `data` is its
// initial contents.
arrvm_array* make_base(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape, bool copy,
                       const void* data, const char* fn) {
  require(vm, fn, "vm");
  const arrvm::DType dt = to_dtype(dtype, fn);
  const arrvm::Dims dims = to_dims(rank, shape, fn, "shape");
  const int64_t n = checked_nelem(dims, fn);
  arrvm::check_base_size(dt, n, fn);
  const std::size_t bytes = static_cast<std::size_t>(n) * arrvm::dtype_size(dt);
  if (copy && bytes > 0) require(data, fn, "data");

  arrvm::Runtime& rt = *vm->rt;
  const arrvm::BaseId id = rt.new_base(dt, n);
  // From here on the base exists: the handle owns it, so an error below frees it.
  std::unique_ptr<arrvm_array> a(new_handle(std::make_shared<arrvm::c_api::BaseHandle>(vm->rt, id, n),
                                            arrvm::contiguous_view(id, dt, dims)));
  if (copy && bytes > 0) {
    if (dt == arrvm::DType::Bool) {
      // Backends assume bools are bytes 0/1; C hands us any nonzero byte.
      std::vector<uint8_t> norm(bytes);
      const auto* src = static_cast<const uint8_t*>(data);
      for (std::size_t i = 0; i < bytes; ++i) norm[i] = src[i] != 0;
      rt.write(id, norm.data(), bytes);
    } else {
      rt.write(id, data, bytes);
    }
  }
  return a.release();
}

arrvm::Operand to_operand(const arrvm_operand& o, const arrvm_vm* vm, const std::string& what) {
  if (o.array != nullptr) {
    if (o.array->base->rt != vm->rt) invalid(what + " is an array of another VM");
    return arrvm::Operand::of(o.array->view);
  }
  if (!valid_dtype(o.dtype))
    invalid(what + " is a constant of invalid dtype value " + std::to_string(static_cast<int>(o.dtype)));
  const auto dt = static_cast<arrvm::DType>(o.dtype);
  // (A constant of a complex dtype is real here: o.f, imaginary part 0.)
  if (arrvm::is_float(dt) || arrvm::is_complex(dt))
    return arrvm::Operand::of(arrvm::Scalar::of_double(dt, o.f));
  if (arrvm::is_unsigned_int(dt)) return arrvm::Operand::of(arrvm::Scalar::of_uint(dt, o.u));
  return arrvm::Operand::of(arrvm::Scalar::of_int(dt, o.i));
}

bool whole_base(const arrvm_array* a) {
  const arrvm::View& v = a->view;
  return v.nelem() == a->base->nelem &&
         arrvm::same_elements(v, arrvm::contiguous_view(v.base, v.dtype, v.shape));
}

// Frees a temporary base when it goes out of scope, error or not.
class TempBase {
 public:
  TempBase(arrvm::Runtime& rt, arrvm::DType dtype, int64_t nelem) : rt_(rt), id_(rt.new_base(dtype, nelem)) {}
  TempBase(const TempBase&) = delete;
  TempBase& operator=(const TempBase&) = delete;
  ~TempBase() {
    try {
      rt_.free_base(id_);
    } catch (const std::exception& e) {
      arrvm::logger().error("arrvm_copy_out: freeing temporary base b{} failed: {}", id_, e.what());
    } catch (...) {
    }
  }
  arrvm::BaseId id() const { return id_; }

 private:
  arrvm::Runtime& rt_;
  arrvm::BaseId id_;
};

}  // namespace

// ---- Internal accessors (frontend/c_api.hpp) ---------------------------------

namespace arrvm {

Runtime& c_api_runtime(arrvm_vm* vm) {
  return *vm->rt;
}
const View& c_api_view(const arrvm_array* a) {
  return a->view;
}

}  // namespace arrvm

// ---- The C ABI ----------------------------------------------------------------

extern "C" {

const char* arrvm_version(void) {
  return ARRVM_VERSION_STRING;
}

const char* arrvm_opcode_name(arrvm_opcode op) {
  if (!valid_opcode(op)) return nullptr;
  // The names are string literals in the opcode table: NUL-terminated.
  return arrvm::opcode_name(static_cast<arrvm::Opcode>(op)).data();
}

int arrvm_opcode_from_name(const char* name, arrvm_opcode* out) {
  if (name == nullptr || out == nullptr) return 0;
  const auto op = arrvm::opcode_from_name(name);
  if (!op) return 0;
  *out = static_cast<arrvm_opcode>(*op);
  return 1;
}

size_t arrvm_dtype_size(arrvm_dtype dtype) {
  return valid_dtype(dtype) ? arrvm::dtype_size(static_cast<arrvm::DType>(dtype)) : 0;
}

const char* arrvm_dtype_name(arrvm_dtype dtype) {
  return valid_dtype(dtype) ? arrvm::dtype_name(static_cast<arrvm::DType>(dtype)).data() : nullptr;
}

int arrvm_dtype_from_name(const char* name, arrvm_dtype* out) {
  if (name == nullptr || out == nullptr) return 0;
  const auto dt = arrvm::dtype_from_name(name);
  if (!dt) return 0;
  *out = static_cast<arrvm_dtype>(*dt);
  return 1;
}

const char* arrvm_last_error(void) {
  return g_last_error.c_str();
}

arrvm_status arrvm_vm_create(const char* options, arrvm_vm** out) {
  if (out != nullptr) *out = nullptr;
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(out, "arrvm_vm_create", "out");
    arrvm::Config config = arrvm::Config::from_env();
    const std::string opts = options ? options : "";
    std::size_t i = 0;
    while (i < opts.size()) {
      if (std::isspace(static_cast<unsigned char>(opts[i]))) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < opts.size() && !std::isspace(static_cast<unsigned char>(opts[j]))) ++j;
      const std::string token = opts.substr(i, j - i);
      const std::size_t eq = token.find('=');
      if (eq == std::string::npos || eq == 0) {
        invalid("arrvm_vm_create: option '" + token + "' is not key=value");
      }
      config.set(token.substr(0, eq), token.substr(eq + 1));
      i = j;
    }
    auto vm = std::make_unique<arrvm_vm>();
    vm->rt = std::make_shared<arrvm::Runtime>(std::move(config));
    *out = vm.release();
  });
}

void arrvm_vm_destroy(arrvm_vm* vm) {
  delete vm;
}

arrvm_status arrvm_flush(arrvm_vm* vm) {
  return guarded(ARRVM_ERR_RUNTIME, [&] {
    require(vm, "arrvm_flush", "vm");
    vm->rt->flush();
  });
}

arrvm_status arrvm_empty(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape, arrvm_array** out) {
  if (out != nullptr) *out = nullptr;
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(out, "arrvm_empty", "out");
    *out = make_base(vm, dtype, rank, shape, false, nullptr, "arrvm_empty");
  });
}

arrvm_status arrvm_from_host(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape,
                             const void* data, arrvm_array** out) {
  if (out != nullptr) *out = nullptr;
  // Writing flushes pending instructions on the base (never any, for a new
  // base), so a failure here is a user error or a backend failure.
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(out, "arrvm_from_host", "out");
    *out = make_base(vm, dtype, rank, shape, true, data, "arrvm_from_host");
  });
}

arrvm_status arrvm_wrap_host(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape, void* data,
                             arrvm_deleter deleter, void* deleter_ctx, arrvm_array** out) {
  if (out != nullptr) *out = nullptr;
  return guarded(ARRVM_ERR_INVALID, [&] {
    const char* fn = "arrvm_wrap_host";
    require(out, fn, "out");
    require(vm, fn, "vm");
    const arrvm::DType dt = to_dtype(dtype, fn);
    const int64_t n = checked_nelem(to_dims(rank, shape, fn, "shape"), fn);
    std::size_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<std::size_t>(n), arrvm::dtype_size(dt), &bytes)) {
      invalid(std::string(fn) + ": the array is too large");
    }
    if (bytes > 0) require(data, fn, "data");
    // Every check is done: from here on the deleter is ours to run.
    std::unique_ptr<arrvm_array> a(make_base(vm, dtype, rank, shape, false, nullptr, fn));
    if (bytes == 0) {
      if (deleter) deleter(data, deleter_ctx);
      *out = a.release();
      return;
    }
    std::function<void(void*)> del;
    if (deleter) del = [deleter, deleter_ctx](void* p) { deleter(p, deleter_ctx); };
    vm->rt->adopt(a->view.base, data, bytes, std::move(del));
    *out = a.release();
  });
}

arrvm_status arrvm_view(const arrvm_array* a, int64_t offset, int rank, const int64_t* shape,
                        const int64_t* stride, arrvm_array** out) {
  if (out != nullptr) *out = nullptr;
  return guarded(ARRVM_ERR_INVALID, [&] {
    const char* fn = "arrvm_view";
    require(out, fn, "out");
    require(a, fn, "array");
    arrvm::View v;
    v.base = a->view.base;
    v.dtype = a->view.dtype;
    v.offset = offset;
    v.shape = to_dims(rank, shape, fn, "shape");
    checked_nelem(v.shape, fn);
    v.stride = stride ? to_dims(rank, stride, fn, "stride") : arrvm::row_major_strides(v.shape);
    const std::string bad = arrvm::check_view_bounds(v, a->base->nelem);
    if (!bad.empty()) invalid(std::string(fn) + ": view " + bad);
    *out = new_handle(a->base, v);
  });
}

arrvm_dtype arrvm_array_dtype(const arrvm_array* a) {
  if (a == nullptr) {
    fail(ARRVM_ERR_INVALID, "arrvm_array_dtype: array is NULL");
    return static_cast<arrvm_dtype>(-1);
  }
  return static_cast<arrvm_dtype>(a->view.dtype);
}

int arrvm_array_rank(const arrvm_array* a) {
  if (a == nullptr) {
    fail(ARRVM_ERR_INVALID, "arrvm_array_rank: array is NULL");
    return -1;
  }
  return a->view.rank();
}

arrvm_status arrvm_array_shape(const arrvm_array* a, int64_t* shape_out) {
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(a, "arrvm_array_shape", "array");
    if (a->view.rank() > 0) require(shape_out, "arrvm_array_shape", "shape_out");
    for (int i = 0; i < a->view.rank(); ++i) shape_out[i] = a->view.shape[i];
  });
}

arrvm_status arrvm_array_stride(const arrvm_array* a, int64_t* stride_out) {
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(a, "arrvm_array_stride", "array");
    if (a->view.rank() > 0) require(stride_out, "arrvm_array_stride", "stride_out");
    for (int i = 0; i < a->view.rank(); ++i) stride_out[i] = a->view.stride[i];
  });
}

int64_t arrvm_array_offset(const arrvm_array* a) {
  if (a == nullptr) {
    fail(ARRVM_ERR_INVALID, "arrvm_array_offset: array is NULL");
    return -1;
  }
  return a->view.offset;
}

void arrvm_release(arrvm_array* a) {
  delete a;
}

arrvm_status arrvm_issue(arrvm_vm* vm, arrvm_opcode op, const arrvm_array* out, int nin,
                         const arrvm_operand* in, int64_t axis, uint64_t seed) {
  return guarded(ARRVM_ERR_INVALID, [&] {
    require(vm, "arrvm_issue", "vm");
    if (!valid_opcode(op))
      invalid("arrvm_issue: invalid opcode value " + std::to_string(static_cast<int>(op)));
    const auto code = static_cast<arrvm::Opcode>(op);
    const std::string fn = "arrvm_issue(" + std::string(arrvm::opcode_name(code)) + ")";
    if (arrvm::is_control(code)) {
      invalid(fn + ": free and sync are not issued directly; use arrvm_release and arrvm_copy_out");
    }
    require(out, fn.c_str(), "output");
    if (out->base->rt != vm->rt) invalid(fn + ": the output is an array of another VM");
    if (nin < 0 || nin > 3) invalid(fn + ": " + std::to_string(nin) + " inputs (0..3 allowed)");
    if (nin > 0) require(in, fn.c_str(), "input list");

    arrvm::Instruction instr;
    instr.op = code;
    instr.out = out->view;
    for (int i = 0; i < nin; ++i) {
      instr.add_input(to_operand(in[i], vm, fn + ": input " + std::to_string(i)));
    }
    const arrvm::OpKind kind = arrvm::opcode_kind(code);
    if (kind == arrvm::OpKind::Reduce || kind == arrvm::OpKind::Accumulate) {
      if (axis < 0 || axis >= arrvm::kMaxRank)
        invalid(fn + ": axis " + std::to_string(axis) + " out of range");
      instr.axis = static_cast<int>(axis);
    }
    if (code == arrvm::Opcode::Random) instr.seed = seed;

    // A rejected instruction leaves the VM as it was; an accepted one may
    // fill the batch and run it, and an error of that run is a run-time
    // error of the program, not a rejection.
    arrvm::Runtime& rt = *vm->rt;
    const uint64_t before = rt.instructions_issued();
    try {
      rt.issue(instr);
    } catch (const arrvm::BackendError&) {
      throw;
    } catch (const arrvm::Error& e) {
      if (rt.instructions_issued() != before) throw StatusError(ARRVM_ERR_RUNTIME, e.what());
      throw;
    }
  });
}

arrvm_status arrvm_copy_out(const arrvm_array* a, void* dst, size_t dst_bytes) {
  return guarded(ARRVM_ERR_RUNTIME, [&] {
    const char* fn = "arrvm_copy_out";
    require(a, fn, "array");
    const arrvm::View& v = a->view;
    std::size_t bytes = 0;
    // A broadcast view may have more elements than memory has bytes: its
    // size must not wrap around into a small one that dst_bytes matches.
    if (__builtin_mul_overflow(static_cast<std::size_t>(v.nelem()), arrvm::dtype_size(v.dtype), &bytes)) {
      invalid(std::string(fn) + ": the view has " + std::to_string(v.nelem()) + " elements of " +
              std::string(arrvm::dtype_name(v.dtype)) + ", more bytes than memory can hold");
    }
    if (dst_bytes != bytes) {
      invalid(std::string(fn) + ": the view has " + std::to_string(v.nelem()) + " elements of " +
              std::string(arrvm::dtype_name(v.dtype)) + " (" + std::to_string(bytes) +
              " bytes), dst_bytes is " + std::to_string(dst_bytes));
    }
    if (bytes > 0) require(dst, fn, "dst");
    arrvm::Runtime& rt = *a->base->rt;
    if (bytes == 0) {
      rt.flush();
      return;
    }
    if (whole_base(a)) {
      rt.read(v.base, dst, bytes);
      return;
    }
    // A strided or partial view: gather it into a contiguous temporary.
    TempBase tmp(rt, v.dtype, v.nelem());
    arrvm::Instruction copy;
    copy.op = arrvm::Opcode::Identity;
    copy.out = arrvm::contiguous_view(tmp.id(), v.dtype, v.shape);
    copy.add_input(arrvm::Operand::of(v));
    rt.issue(copy);
    rt.read(tmp.id(), dst, bytes);
  });
}

}  // extern "C"

// The array-level calls (NumPy's rules, through the C++ Array frontend) share
// this file's handles and exception boundary.
#include "frontend/c_api_numpy.inc"
