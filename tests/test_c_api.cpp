// The C ABI's error paths, from C++: every failure returns its status, sets
// arrvm_last_error, and leaves the VM usable.
#include <arrvm/arrvm.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "engine/runtime.hpp"
#include "frontend/c_api.hpp"

namespace {

constexpr const char* kOptions = "backend=ref fuser=singleton";

std::string last_error() {
  return arrvm_last_error();
}

// Owns a VM for one test case.
struct Vm {
  arrvm_vm* vm = nullptr;
  explicit Vm(const char* options = kOptions) {
    REQUIRE_MESSAGE(arrvm_vm_create(options, &vm) == ARRVM_OK, last_error());
  }
  ~Vm() { arrvm_vm_destroy(vm); }
  Vm(const Vm&) = delete;
  Vm& operator=(const Vm&) = delete;
  operator arrvm_vm*() const { return vm; }
};

// Owns an array handle.
struct Arr {
  arrvm_array* a = nullptr;
  Arr() = default;
  ~Arr() { arrvm_release(a); }
  Arr(const Arr&) = delete;
  Arr& operator=(const Arr&) = delete;
  arrvm_array** out() { return &a; }
  operator arrvm_array*() const { return a; }
};

void from_host_i64(arrvm_vm* vm, const std::vector<int64_t>& v, Arr& out) {
  const int64_t n = static_cast<int64_t>(v.size());
  REQUIRE_MESSAGE(arrvm_from_host(vm, ARRVM_INT64, 1, &n, v.data(), out.out()) == ARRVM_OK, last_error());
}

std::vector<int64_t> read_i64(const arrvm_array* a, int64_t n) {
  std::vector<int64_t> v(static_cast<std::size_t>(n), -777);
  REQUIRE_MESSAGE(arrvm_copy_out(a, v.data(), v.size() * sizeof(int64_t)) == ARRVM_OK, last_error());
  return v;
}

// The VM still computes: [1,2,3] + 10 = [11,12,13].
void check_usable(arrvm_vm* vm) {
  Arr x, y;
  from_host_i64(vm, {1, 2, 3}, x);
  const int64_t n = 3;
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 1, &n, y.out()) == ARRVM_OK);
  const arrvm_operand in[2] = {arrvm_arr(x), arrvm_const_i64(ARRVM_INT64, 10)};
  REQUIRE_MESSAGE(arrvm_issue(vm, ARRVM_OP_ADD, y, 2, in, 0, 0) == ARRVM_OK, last_error());
  CHECK(read_i64(y, 3) == std::vector<int64_t>{11, 12, 13});
}

// Expects `status` to be `want` with a last error containing `needle`.
void check_failure(arrvm_status status, arrvm_status want, const std::string& needle) {
  CHECK(status == want);
  const std::string msg = last_error();
  CHECK_MESSAGE(msg.find(needle) != std::string::npos, "message: ", msg, " (expected '", needle, "')");
}

}  // namespace

TEST_CASE("c_api: vm options") {
  arrvm_vm* vm = nullptr;
  check_failure(arrvm_vm_create(kOptions, nullptr), ARRVM_ERR_INVALID, "out");
  check_failure(arrvm_vm_create("backend=ref nonsense", &vm), ARRVM_ERR_INVALID, "nonsense");
  CHECK(vm == nullptr);
  check_failure(arrvm_vm_create("backend=ref =x", &vm), ARRVM_ERR_INVALID, "=x");
  check_failure(arrvm_vm_create("backend=ref colour=blue", &vm), ARRVM_ERR_INVALID, "colour");
  check_failure(arrvm_vm_create("backend=ref batch=0", &vm), ARRVM_ERR_INVALID, "batch");
  check_failure(arrvm_vm_create("backend=no_such_backend", &vm), ARRVM_ERR_INVALID, "no_such_backend");
  CHECK(vm == nullptr);
  REQUIRE(arrvm_vm_create("  backend=ref\tfuser=singleton  batch=7 ", &vm) == ARRVM_OK);
  CHECK(arrvm::c_api_runtime(vm).config().batch == 7);
  CHECK(arrvm::c_api_runtime(vm).config().fuser == "singleton");
  check_usable(vm);
  arrvm_vm_destroy(vm);
  arrvm_vm_destroy(nullptr);  // no-op
}

TEST_CASE("c_api: NULL handles are INVALID") {
  Vm vm;
  Arr x;
  from_host_i64(vm, {1, 2, 3}, x);
  const int64_t n = 3;
  arrvm_array* out = reinterpret_cast<arrvm_array*>(&out);  // must be reset to NULL on failure

  check_failure(arrvm_flush(nullptr), ARRVM_ERR_INVALID, "vm");
  check_failure(arrvm_empty(nullptr, ARRVM_INT64, 1, &n, &out), ARRVM_ERR_INVALID, "vm");
  CHECK(out == nullptr);
  check_failure(arrvm_empty(vm, ARRVM_INT64, 1, &n, nullptr), ARRVM_ERR_INVALID, "out");
  check_failure(arrvm_empty(vm, ARRVM_INT64, 1, nullptr, &out), ARRVM_ERR_INVALID, "shape");
  check_failure(arrvm_from_host(vm, ARRVM_INT64, 1, &n, nullptr, &out), ARRVM_ERR_INVALID, "data");
  check_failure(arrvm_view(nullptr, 0, 1, &n, nullptr, &out), ARRVM_ERR_INVALID, "array");
  check_failure(arrvm_view(x, 0, 1, &n, nullptr, nullptr), ARRVM_ERR_INVALID, "out");
  check_failure(arrvm_issue(nullptr, ARRVM_OP_ADD, x, 0, nullptr, 0, 0), ARRVM_ERR_INVALID, "vm");
  check_failure(arrvm_issue(vm, ARRVM_OP_RANGE, nullptr, 0, nullptr, 0, 0), ARRVM_ERR_INVALID, "output");
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD, x, 2, nullptr, 0, 0), ARRVM_ERR_INVALID, "input");
  int64_t buf[3];
  check_failure(arrvm_copy_out(nullptr, buf, sizeof buf), ARRVM_ERR_INVALID, "array");
  check_failure(arrvm_copy_out(x, nullptr, sizeof buf), ARRVM_ERR_INVALID, "dst");
  check_failure(arrvm_array_shape(nullptr, buf), ARRVM_ERR_INVALID, "array");
  check_failure(arrvm_array_shape(x, nullptr), ARRVM_ERR_INVALID, "shape_out");
  check_failure(arrvm_array_stride(nullptr, buf), ARRVM_ERR_INVALID, "array");
  CHECK(arrvm_array_rank(nullptr) == -1);
  CHECK(arrvm_array_offset(nullptr) == -1);
  CHECK(static_cast<int>(arrvm_array_dtype(nullptr)) == -1);
  CHECK(last_error().find("arrvm_array_dtype") != std::string::npos);
  CHECK(arrvm_opcode_from_name(nullptr, nullptr) == 0);
  arrvm_release(nullptr);  // no-op
  check_usable(vm);
}

TEST_CASE("c_api: bad dtype and opcode values are INVALID") {
  Vm vm;
  Arr x, y;
  from_host_i64(vm, {1, 2, 3}, x);
  const int64_t n = 3;
  arrvm_array* out = nullptr;
  check_failure(arrvm_empty(vm, static_cast<arrvm_dtype>(13), 1, &n, &out), ARRVM_ERR_INVALID, "dtype");
  check_failure(arrvm_empty(vm, static_cast<arrvm_dtype>(-1), 1, &n, &out), ARRVM_ERR_INVALID, "dtype");
  check_failure(arrvm_from_host(vm, static_cast<arrvm_dtype>(1000), 1, &n, &n, &out), ARRVM_ERR_INVALID,
                "dtype");
  CHECK(out == nullptr);
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 1, &n, y.out()) == ARRVM_OK);

  check_failure(arrvm_issue(vm, static_cast<arrvm_opcode>(81), y, 0, nullptr, 0, 0), ARRVM_ERR_INVALID,
                "opcode");
  check_failure(arrvm_issue(vm, static_cast<arrvm_opcode>(-3), y, 0, nullptr, 0, 0), ARRVM_ERR_INVALID,
                "opcode");
  arrvm_operand in[2] = {arrvm_arr(x), arrvm_const_i64(static_cast<arrvm_dtype>(42), 1)};
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD, y, 2, in, 0, 0), ARRVM_ERR_INVALID, "dtype");
  // free and sync are not issued directly.
  check_failure(arrvm_issue(vm, ARRVM_OP_FREE, y, 0, nullptr, 0, 0), ARRVM_ERR_INVALID, "free");
  check_failure(arrvm_issue(vm, ARRVM_OP_SYNC, y, 0, nullptr, 0, 0), ARRVM_ERR_INVALID, "sync");
  // Too many inputs, wrong arity, a constant of the wrong dtype, a bad axis.
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD, y, 4, in, 0, 0), ARRVM_ERR_INVALID, "inputs");
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD, y, 1, in, 0, 0), ARRVM_ERR_INVALID, "add");
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 1.5);
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD, y, 2, in, 0, 0), ARRVM_ERR_INVALID, "add");
  Arr s;
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 0, nullptr, s.out()) == ARRVM_OK);
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, s, 1, in, 1, 0), ARRVM_ERR_INVALID, "add_reduce");
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, s, 1, in, -1, 0), ARRVM_ERR_INVALID, "axis");
  check_failure(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, s, 1, in, int64_t{1} << 40, 0), ARRVM_ERR_INVALID,
                "axis");

  CHECK(arrvm_opcode_name(static_cast<arrvm_opcode>(81)) == nullptr);
  CHECK(arrvm_dtype_name(static_cast<arrvm_dtype>(-1)) == nullptr);
  CHECK(arrvm_dtype_size(static_cast<arrvm_dtype>(13)) == 0);
  // Nothing above reached the batch: the output still reads as zeros.
  CHECK(read_i64(y, 3) == std::vector<int64_t>{0, 0, 0});
  check_usable(vm);
}

TEST_CASE("c_api: shapes and ranks are checked") {
  Vm vm;
  arrvm_array* out = nullptr;
  const int64_t neg[2] = {2, -1};
  const int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  check_failure(arrvm_empty(vm, ARRVM_INT8, 2, neg, &out), ARRVM_ERR_INVALID, "negative");
  check_failure(arrvm_empty(vm, ARRVM_INT8, 2, huge, &out), ARRVM_ERR_INVALID, "too large");
  check_failure(arrvm_empty(vm, ARRVM_INT8, 9, nine, &out), ARRVM_ERR_INVALID, "rank 9");
  check_failure(arrvm_empty(vm, ARRVM_INT8, -1, nine, &out), ARRVM_ERR_INVALID, "rank -1");
  CHECK(out == nullptr);
  check_usable(vm);
}

TEST_CASE("c_api: copy_out wants exactly the view's bytes") {
  Vm vm;
  Arr x, v;
  from_host_i64(vm, {1, 2, 3, 4}, x);
  int64_t buf[8] = {};
  check_failure(arrvm_copy_out(x, buf, 3 * sizeof(int64_t)), ARRVM_ERR_INVALID, "dst_bytes is 24");
  check_failure(arrvm_copy_out(x, buf, sizeof buf), ARRVM_ERR_INVALID, "32 bytes");
  const int64_t two = 2, stride = 2;
  REQUIRE(arrvm_view(x, 1, 1, &two, &stride, v.out()) == ARRVM_OK);
  check_failure(arrvm_copy_out(v, buf, 4 * sizeof(int64_t)), ARRVM_ERR_INVALID, "2 elements");
  CHECK(buf[0] == 0);
  CHECK(read_i64(v, 2) == std::vector<int64_t>{2, 4});
  // A zero-size view copies nothing, and wants 0 bytes.
  Arr e;
  const int64_t zero = 0;
  REQUIRE(arrvm_view(x, 0, 1, &zero, nullptr, e.out()) == ARRVM_OK);
  CHECK(arrvm_copy_out(e, nullptr, 0) == ARRVM_OK);
  check_usable(vm);
}

TEST_CASE("c_api: views must stay inside their base") {
  Vm vm;
  Arr x;
  from_host_i64(vm, {10, 11, 12, 13, 14, 15}, x);
  arrvm_array* out = nullptr;
  const int64_t three = 3, two = 2, neg1 = -1, s23[2] = {2, 3}, st[2] = {3, 1};
  check_failure(arrvm_view(x, 4, 1, &three, nullptr, &out), ARRVM_ERR_INVALID, "outside");  // 4..6
  check_failure(arrvm_view(x, 1, 1, &three, &neg1, &out), ARRVM_ERR_INVALID, "outside");    // 1..-1
  check_failure(arrvm_view(x, -1, 1, &two, nullptr, &out), ARRVM_ERR_INVALID, "outside");
  check_failure(arrvm_view(x, 1, 2, s23, st, &out), ARRVM_ERR_INVALID, "outside");  // 1..6
  const int64_t big_stride = int64_t{1} << 62;
  check_failure(arrvm_view(x, 0, 1, &three, &big_stride, &out), ARRVM_ERR_INVALID, "arrvm_view");
  CHECK(out == nullptr);

  // The same views, inside: 2-D from offset 0, and reversed from the end.
  Arr m, r;
  REQUIRE(arrvm_view(x, 0, 2, s23, st, m.out()) == ARRVM_OK);
  REQUIRE(arrvm_view(x, 5, 1, &three, &neg1, r.out()) == ARRVM_OK);
  int64_t shape[2] = {}, stride[2] = {};
  CHECK(arrvm_array_shape(m, shape) == ARRVM_OK);
  CHECK(arrvm_array_stride(m, stride) == ARRVM_OK);
  CHECK((shape[0] == 2 && shape[1] == 3 && stride[0] == 3 && stride[1] == 1));
  CHECK(read_i64(r, 3) == std::vector<int64_t>{15, 14, 13});
  check_usable(vm);
}

TEST_CASE("c_api: releasing handles frees bases, views keep them alive") {
  Vm vm;
  const arrvm::Runtime& rt = arrvm::c_api_runtime(vm);
  const std::size_t live0 = rt.bases().live_count();
  arrvm_array* x = nullptr;
  const std::vector<int64_t> data = {5, 6, 7, 8};
  const int64_t n = 4, two = 2;
  REQUIRE(arrvm_from_host(vm, ARRVM_INT64, 1, &n, data.data(), &x) == ARRVM_OK);
  const arrvm::BaseId id = arrvm::c_api_view(x).base;
  CHECK(rt.bases().live_count() == live0 + 1);

  arrvm_array* tail = nullptr;
  REQUIRE(arrvm_view(x, 2, 1, &two, nullptr, &tail) == ARRVM_OK);
  arrvm_release(x);  // the view still holds the base
  CHECK(rt.bases().find(id) != nullptr);
  CHECK(read_i64(tail, 2) == std::vector<int64_t>{7, 8});

  arrvm_release(tail);  // the last handle: the base is freed
  CHECK(rt.bases().was_freed(id));
  CHECK(rt.bases().live_count() == live0);

  // copy_out of a strided view uses a temporary base, and frees it.
  Arr y, ys;
  from_host_i64(vm, {1, 2, 3, 4}, y);
  REQUIRE(arrvm_view(y, 0, 1, &two, &two, ys.out()) == ARRVM_OK);
  const std::size_t live1 = rt.bases().live_count();
  CHECK(read_i64(ys, 2) == std::vector<int64_t>{1, 3});
  CHECK(rt.bases().live_count() == live1);
  check_usable(vm);
}

TEST_CASE("c_api: arrays outlive arrvm_vm_destroy") {
  arrvm_vm* vm = nullptr;
  REQUIRE(arrvm_vm_create(kOptions, &vm) == ARRVM_OK);
  Arr x, y;
  from_host_i64(vm, {1, 2, 3}, x);
  const int64_t n = 3;
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 1, &n, y.out()) == ARRVM_OK);
  const arrvm_operand in[2] = {arrvm_arr(x), arrvm_arr(x)};
  REQUIRE(arrvm_issue(vm, ARRVM_OP_MULTIPLY, y, 2, in, 0, 0) == ARRVM_OK);
  arrvm_vm_destroy(vm);
  // The arrays still hold the runtime: the pending multiply runs on read.
  CHECK(read_i64(y, 3) == std::vector<int64_t>{1, 4, 9});
}

TEST_CASE("c_api: arrays of another VM are rejected") {
  Vm a, b;
  Arr xa, yb;
  from_host_i64(a, {1, 2}, xa);
  const int64_t n = 2;
  REQUIRE(arrvm_empty(b, ARRVM_INT64, 1, &n, yb.out()) == ARRVM_OK);
  const arrvm_operand in[1] = {arrvm_arr(xa)};
  check_failure(arrvm_issue(b, ARRVM_OP_IDENTITY, yb, 1, in, 0, 0), ARRVM_ERR_INVALID, "another VM");
  check_failure(arrvm_issue(a, ARRVM_OP_IDENTITY, yb, 1, in, 0, 0), ARRVM_ERR_INVALID, "another VM");
  check_usable(a);
  check_usable(b);
}

TEST_CASE("c_api: gather with an out-of-range index is a RUNTIME error") {
  Vm vm;
  Arr src, idx, out;
  from_host_i64(vm, {10, 20, 30}, src);
  from_host_i64(vm, {2, 0, 3}, idx);  // 3 is out of range
  const int64_t n = 3;
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 1, &n, out.out()) == ARRVM_OK);
  const arrvm_operand in[2] = {arrvm_arr(src), arrvm_arr(idx)};
  REQUIRE_MESSAGE(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, in, 0, 0) == ARRVM_OK, last_error());
  int64_t buf[3];
  check_failure(arrvm_copy_out(out, buf, sizeof buf), ARRVM_ERR_RUNTIME, "gather");
  CHECK(last_error().find('3') != std::string::npos);
  check_usable(vm);

  // The same through arrvm_flush, with a negative index.
  Arr idx2;
  from_host_i64(vm, {-1, 0, 1}, idx2);
  const arrvm_operand in2[2] = {arrvm_arr(src), arrvm_arr(idx2)};
  REQUIRE(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, in2, 0, 0) == ARRVM_OK);
  CHECK(arrvm_flush(vm) == ARRVM_OK);  // contained: only `out` is poisoned
  check_usable(vm);
  check_failure(arrvm_copy_out(out, buf, sizeof buf), ARRVM_ERR_RUNTIME, "index -1");

  // In range, it works: out = [30, 10, 20].
  Arr idx3;
  from_host_i64(vm, {2, 0, 1}, idx3);
  const arrvm_operand in3[2] = {arrvm_arr(src), arrvm_arr(idx3)};
  REQUIRE(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, in3, 0, 0) == ARRVM_OK);
  CHECK(read_i64(out, 3) == std::vector<int64_t>{30, 10, 20});
}

TEST_CASE("c_api: a run-time error in a batch that runs inside issue surfaces when its output is read") {
  Vm vm("backend=ref fuser=singleton batch=1");
  Arr src, idx, out;
  from_host_i64(vm, {10, 20, 30}, src);
  from_host_i64(vm, {0, 7, 1}, idx);
  const int64_t n = 3;
  REQUIRE(arrvm_empty(vm, ARRVM_INT64, 1, &n, out.out()) == ARRVM_OK);
  const arrvm_operand in[2] = {arrvm_arr(src), arrvm_arr(idx)};
  // Accepted and run at once (batch=1); the failure poisons `out` only.
  CHECK(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, in, 0, 0) == ARRVM_OK);
  // A rejection is still INVALID under batch=1.
  const arrvm_operand bad[2] = {arrvm_arr(src), arrvm_const_i64(ARRVM_INT64, 1)};
  check_failure(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, bad, 0, 0), ARRVM_ERR_INVALID, "gather");
  check_usable(vm);
  int64_t buf[3];
  check_failure(arrvm_copy_out(out, buf, sizeof buf), ARRVM_ERR_RUNTIME, "index 7");
}

TEST_CASE("c_api: last error is per thread and kept by successful calls") {
  Vm vm;
  CHECK(arrvm_flush(nullptr) == ARRVM_ERR_INVALID);
  const std::string mine = last_error();
  CHECK(mine.find("arrvm_flush") != std::string::npos);
  std::string other_before, other_after;
  std::thread t([&] {
    other_before = arrvm_last_error();
    arrvm_array* out = nullptr;
    arrvm_empty(nullptr, ARRVM_INT8, 0, nullptr, &out);
    other_after = arrvm_last_error();
  });
  t.join();
  CHECK(other_before.empty());
  CHECK(other_after.find("arrvm_empty") != std::string::npos);
  CHECK(last_error() == mine);
  check_usable(vm);  // succeeds without touching the message
  CHECK(last_error() == mine);
}

TEST_CASE("c_api: bools from the host are normalized to 0/1") {
  Vm vm;
  const uint8_t raw[3] = {0, 2, 255};
  const int64_t n = 3;
  Arr b;
  REQUIRE(arrvm_from_host(vm, ARRVM_BOOL, 1, &n, raw, b.out()) == ARRVM_OK);
  uint8_t got[3] = {9, 9, 9};
  REQUIRE(arrvm_copy_out(b, got, sizeof got) == ARRVM_OK);
  CHECK((got[0] == 0 && got[1] == 1 && got[2] == 1));
}
