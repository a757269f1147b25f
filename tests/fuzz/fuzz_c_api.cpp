// libFuzzer harness for the C ABI's argument checking (include/arrvm/arrvm.h):
// the input is a little program of C ABI calls on a pool of handles, with
// arguments taken from the input bytes (NULL pointers, out-of-range enums and
// ranks, negative and overflowing shapes, strides and offsets, arrays of
// another VM, wrong buffer sizes). Only arrvm.h is used, as a binding would.
//
// Contract checked (a violation aborts, which libFuzzer reports):
//  - no crash, sanitizer report or escaping exception for any arguments;
//  - never ARRVM_ERR_INTERNAL; a failed call leaves a non-empty
//    arrvm_last_error();
//  - a created or viewed array reports back the rank, shape, stride and
//    offset it was made with, and a view lies inside its base;
//  - copy_out accepts exactly nelem * dtype size bytes.
//
// Resource bounds: every VM runs with mem_limit=64M (the library refuses,
// with ARRVM_ERR_NOMEM, to allocate more), so bases of any size, up to the
// library's own limit and past it, are made, written, read and computed on
// through small views; only views of more than kMaxElems elements (time, not
// memory) are never written, read or used by an instruction.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arrvm/arrvm.h"

namespace {

constexpr int64_t kMaxElems = int64_t{1} << 16;
constexpr int kSlots = 8;

class Input {
 public:
  Input(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool empty() const { return n_ == 0; }
  uint8_t u8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{u8()} << (8 * i);
    return v;
  }
  // Mostly small values, sometimes the edges and arbitrary 64-bit ones.
  int64_t i64() {
    const uint8_t m = u8();
    switch (m % 16) {
      case 0:
        return static_cast<int64_t>(u64());
      case 1:
        return INT64_MIN;
      case 2:
        return INT64_MAX;
      case 3:
        return -static_cast<int64_t>(u8() % 8) - 1;
      case 4:
        return int64_t{1} << (u8() % 63);
      default:
        return (m >> 4) + (m % 16 == 5 ? 16 : 0);
    }
  }
  int small_int() {  // ranks, counts, enum values
    const uint8_t m = u8();
    if (m < 200) return m % 12;
    if (m < 240) return -1 - (m % 3);
    return static_cast<int>(static_cast<uint32_t>(u64()));
  }
  double f64() {
    switch (u8() % 6) {
      case 0:
        return 0.0;
      case 1:
        return -1.5;
      case 2:
        return 1e300;
      case 3: {
        uint64_t bits = u64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
      default:
        return static_cast<double>(static_cast<int8_t>(u8()));
    }
  }
  std::string str() {
    const size_t len = u8() % 24;
    std::string s;
    for (size_t i = 0; i < len && n_ > 0; ++i) s += static_cast<char>(u8());
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

struct Slot {
  arrvm_array* a = nullptr;
  int vm = -1;             // which VM it belongs to
  int64_t base_elems = 0;  // elements of its base
  int64_t view_elems = 0;  // elements of its view
  bool big() const { return view_elems > kMaxElems; }
};

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "contract violated: %s (last error: %s)\n", what, arrvm_last_error());
  std::abort();
}

void check_status(arrvm_status s) {
  if (s == ARRVM_ERR_INTERNAL) violated("ARRVM_ERR_INTERNAL");
  if (s < ARRVM_OK || s > ARRVM_ERR_INTERNAL) violated("status out of range");
  if (s != ARRVM_OK && arrvm_last_error()[0] == '\0') violated("a failure without a message");
}

// prod(shape) or -1 if negative or overflowing.
int64_t product(int rank, const int64_t* shape) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0 || __builtin_mul_overflow(n, shape[i], &n)) return -1;
  }
  return n;
}

// The options every VM gets first: the reference backend, nothing on disk,
// no trace or profile whatever the environment says.
const char* const kOptions[] = {
    "",          "fuser=singleton", "fuser=linear batch=2", "fuser=unintrusive batch=1",
    "batch=3",   "backend=nope",    "fuser=nope",           "batch=-1",
    "batch=abc", "cache=sometimes", "fuse_time_limit=-1",   "novalue",
    "=x",        "backend=",        "unknown_key=1",
};

class Program {
 public:
  explicit Program(Input in) : in_(in) {}

  ~Program() {
    for (Slot& s : slots_) arrvm_release(s.a);
    for (arrvm_vm*& vm : vms_) arrvm_vm_destroy(vm);
  }

  void run() {
    int steps = 0;
    while (!in_.empty() && ++steps < 200) step();
  }

 private:
  arrvm_vm* vm_arg(int* which) {
    const uint8_t m = in_.u8();
    *which = m % 3 == 2 ? -1 : m % 2;
    return *which < 0 ? nullptr : vms_[*which];
  }
  Slot* slot() { return &slots_[in_.u8() % kSlots]; }
  const arrvm_array* array_arg() {
    const uint8_t m = in_.u8();
    return m >= 240 ? nullptr : slots_[m % kSlots].a;
  }
  void put(Slot* s, arrvm_array* a, int vm, int64_t base_elems, int64_t view_elems) {
    arrvm_release(s->a);
    *s = Slot{a, vm, base_elems, view_elems};
  }
  // Rank/shape/stride/offset as made.
  void check_geometry(const arrvm_array* a, int rank, const int64_t* shape, const int64_t* stride,
                      int64_t offset) {
    if (arrvm_array_rank(a) != rank) violated("rank differs");
    if (arrvm_array_offset(a) != offset) violated("offset differs");
    int64_t got[16] = {};
    check_status(arrvm_array_shape(a, got));
    for (int i = 0; i < rank; ++i)
      if (got[i] != shape[i]) violated("shape differs");
    if (stride != nullptr) {
      check_status(arrvm_array_stride(a, got));
      for (int i = 0; i < rank; ++i)
        if (got[i] != stride[i]) violated("stride differs");
    }
  }
  void dims(int rank, int64_t* out) {
    for (int i = 0; i < rank && i < 16; ++i) out[i] = in_.i64();
  }
  int rank_arg() {
    const int r = in_.small_int();
    return r;
  }

  void step() {
    const uint8_t op = in_.u8();
    switch (op % 12) {
      case 0: {  // create a VM
        const int i = in_.u8() % 2;
        if (vms_[i] != nullptr) return;
        const std::string option = kOptions[in_.u8() % (sizeof kOptions / sizeof *kOptions)];
        const std::string garbage = in_.u8() % 8 == 0 ? in_.str() : "";
        // Garbage may name an option; keep the sandbox whatever it says.
        for (const char* key :
             {"backend", "trace", "profile", "cache", "cc", "cflags", "log", "opencl", "mem_limit"}) {
          if (garbage.find(key) != std::string::npos) return;
        }
        const std::string opts =
            "backend=ref cache=off trace= profile= log=off mem_limit=64M " + option + " " + garbage;
        arrvm_vm* vm = nullptr;
        const arrvm_status s = arrvm_vm_create(opts.c_str(), in_.u8() % 16 == 0 ? nullptr : &vm);
        check_status(s);
        if (s != ARRVM_OK && vm != nullptr) violated("vm_create failed but set *out");
        vms_[i] = vm;
        return;
      }
      case 1: {  // destroy a VM (its arrays may outlive it)
        const int i = in_.u8() % 2;
        arrvm_vm_destroy(vms_[i]);
        vms_[i] = nullptr;
        return;
      }
      case 2: {
        int w;
        arrvm_vm* vm = vm_arg(&w);
        check_status(arrvm_flush(vm));
        return;
      }
      case 3:
      case 4: {  // empty / from_host
        int w;
        arrvm_vm* vm = vm_arg(&w);
        const auto dtype = static_cast<arrvm_dtype>(in_.small_int());
        const int rank = rank_arg();
        int64_t shape[16] = {};
        dims(rank, shape);
        const bool null_shape = in_.u8() % 16 == 0;
        const bool null_out = in_.u8() % 32 == 0;
        arrvm_array* a = nullptr;
        arrvm_status s;
        const int64_t n = rank >= 0 && rank <= 16 ? product(rank, shape) : -1;
        if (op % 12 == 3) {
          s = arrvm_empty(vm, dtype, rank, null_shape ? nullptr : shape, null_out ? nullptr : &a);
        } else {
          // The caller must pass prod(shape) elements: only when that is small.
          const size_t size = arrvm_dtype_size(dtype);
          if (n < 0 || n > kMaxElems) return;
          std::vector<uint8_t> data(static_cast<size_t>(n) * (size ? size : 1));
          for (auto& b : data) b = in_.u8();
          const bool null_data = in_.u8() % 16 == 0;
          s = arrvm_from_host(vm, dtype, rank, null_shape ? nullptr : shape,
                              null_data ? nullptr : data.data(), null_out ? nullptr : &a);
        }
        check_status(s);
        if (s != ARRVM_OK) {
          if (a != nullptr) violated("failed but set *out");
          return;
        }
        if (vm == nullptr || null_out || rank < 0 || rank > 8 || n < 0) violated("accepted bad arguments");
        if (arrvm_array_dtype(a) != dtype) violated("dtype differs");
        check_geometry(a, rank, shape, nullptr, 0);
        put(slot(), a, w, n, n);
        return;
      }
      case 5: {  // view
        Slot* src = slot();
        const bool null_src = in_.u8() % 16 == 0;
        const int64_t offset = in_.i64();
        const int rank = rank_arg();
        int64_t shape[16] = {}, stride[16] = {};
        dims(rank, shape);
        dims(rank, stride);
        const bool null_stride = in_.u8() % 2 == 0;
        arrvm_array* a = nullptr;
        const arrvm_status s =
            arrvm_view(null_src ? nullptr : src->a, offset, rank, shape, null_stride ? nullptr : stride, &a);
        check_status(s);
        if (s != ARRVM_OK) {
          if (a != nullptr) violated("failed but set *out");
          return;
        }
        if (src->a == nullptr || null_src) violated("viewed NULL");
        const int64_t n = product(rank, shape);
        if (n < 0) violated("accepted a bad shape");
        int64_t st[16];
        check_status(arrvm_array_stride(a, st));
        if (!null_stride) check_geometry(a, rank, shape, stride, offset);
        // Inside the base (when not empty): offset + sum over axes of the extreme steps.
        if (n > 0) {
          __int128 lo = offset, hi = offset;
          for (int i = 0; i < rank; ++i) {
            const __int128 step = static_cast<__int128>(st[i]) * (shape[i] - 1);
            (step < 0 ? lo : hi) += step;
          }
          if (lo < 0 || hi >= src->base_elems) violated("a view outside its base");
        }
        put(slot(), a, src->vm, src->base_elems, n);
        return;
      }
      case 6: {  // issue
        int w;
        arrvm_vm* vm = vm_arg(&w);
        const int opcode = in_.small_int() % 2 == 0 ? in_.u8() % 72 : in_.small_int();
        Slot* out = slot();
        const bool null_out = in_.u8() % 16 == 0;
        int nin = in_.u8() % 5;
        if (in_.u8() % 16 == 0) nin = in_.small_int();
        arrvm_operand ops[4] = {};
        bool big = out->a != nullptr && out->big();
        for (int i = 0; i < 4; ++i) {
          const uint8_t m = in_.u8();
          if (m % 2 == 0) {
            Slot* s = slot();
            ops[i] = arrvm_arr(s->a);
            if (s->a != nullptr && s->big()) big = true;
          } else {
            const auto dt = static_cast<arrvm_dtype>(in_.small_int());
            switch (m % 6) {
              case 1:
                ops[i] = arrvm_const_i64(dt, in_.i64());
                break;
              case 3:
                ops[i] = arrvm_const_u64(dt, in_.u64());
                break;
              default:
                ops[i] = arrvm_const_f64(dt, in_.f64());
                break;
            }
          }
        }
        if (big) return;
        const bool null_in = in_.u8() % 16 == 0;
        const int64_t axis = in_.u8() % 8 == 0 ? in_.i64() : in_.u8() % 4;
        const uint64_t seed = in_.u64();
        check_status(arrvm_issue(vm, static_cast<arrvm_opcode>(opcode), null_out ? nullptr : out->a, nin,
                                 null_in ? nullptr : ops, axis, seed));
        return;
      }
      case 7: {  // copy_out
        Slot* s = slot();
        const bool null_a = in_.u8() % 16 == 0;
        const arrvm_array* a = null_a ? nullptr : s->a;
        if (a != nullptr && s->big()) {
          // Too big to copy here, but the byte count that wraps around must
          // be refused like any other wrong size.
          // (A small view of a big base is not copied here at all.)
          size_t wrapped = 0;
          if (s->view_elems <= 0 || !__builtin_mul_overflow(static_cast<size_t>(s->view_elems),
                                                            arrvm_dtype_size(arrvm_array_dtype(a)), &wrapped))
            return;
          uint8_t small[64] = {};
          if (wrapped > sizeof small) return;
          const arrvm_status st = arrvm_copy_out(a, small, wrapped);
          check_status(st);
          if (st == ARRVM_OK) violated("copy_out accepted a byte count that wrapped around");
          return;
        }
        const size_t size = a ? arrvm_dtype_size(arrvm_array_dtype(a)) : 8;
        const size_t exact = static_cast<size_t>(a ? s->view_elems : 1) * size;
        size_t bytes = exact;
        switch (in_.u8() % 8) {
          case 0:
            bytes = exact + 1;
            break;
          case 1:
            bytes = exact - 1;  // wraps for an empty view: still wrong
            break;
          case 2:
            bytes = static_cast<size_t>(in_.u64());
            break;
          default:
            break;
        }
        // A buffer of `exact` bytes (the call must refuse any other size).
        std::vector<uint8_t> dst(exact);
        const bool null_dst = in_.u8() % 16 == 0;
        const arrvm_status st = arrvm_copy_out(a, null_dst ? nullptr : dst.data(), bytes);
        check_status(st);
        if (st == ARRVM_OK && (a == nullptr || bytes != exact || (null_dst && exact > 0)))
          violated("copy_out accepted bad arguments");
        return;
      }
      case 8: {  // release
        Slot* s = slot();
        arrvm_release(s->a);
        *s = Slot{};
        return;
      }
      case 9: {  // queries with NULL arguments
        const arrvm_array* a = array_arg();
        (void)arrvm_array_dtype(a);
        (void)arrvm_array_rank(a);
        (void)arrvm_array_offset(a);
        int64_t buf[16];
        const bool null_buf = in_.u8() % 2 == 0;
        const arrvm_status s1 = arrvm_array_shape(a, null_buf ? nullptr : buf);
        const arrvm_status s2 = arrvm_array_stride(a, null_buf ? nullptr : buf);
        check_status(s1);
        check_status(s2);
        if (a == nullptr && (s1 == ARRVM_OK || s2 == ARRVM_OK)) violated("shape/stride of NULL");
        return;
      }
      case 10: {  // names
        const int v = in_.small_int();
        const char* on = arrvm_opcode_name(static_cast<arrvm_opcode>(v));
        const char* dn = arrvm_dtype_name(static_cast<arrvm_dtype>(v));
        const size_t ds = arrvm_dtype_size(static_cast<arrvm_dtype>(v));
        if ((dn == nullptr) != (ds == 0)) violated("dtype name and size disagree");
        arrvm_opcode op2;
        arrvm_dtype dt2;
        if (on != nullptr && (!arrvm_opcode_from_name(on, &op2) || op2 != v))
          violated("opcode name round trip");
        if (dn != nullptr && (!arrvm_dtype_from_name(dn, &dt2) || dt2 != v))
          violated("dtype name round trip");
        const std::string s = in_.str();
        const bool null_out = in_.u8() % 4 == 0;
        (void)arrvm_opcode_from_name(in_.u8() % 8 == 0 ? nullptr : s.c_str(), null_out ? nullptr : &op2);
        (void)arrvm_dtype_from_name(in_.u8() % 8 == 0 ? nullptr : s.c_str(), null_out ? nullptr : &dt2);
        return;
      }
      default: {
        (void)std::strlen(arrvm_last_error());
        return;
      }
    }
  }

  Input in_;
  arrvm_vm* vms_[2] = {nullptr, nullptr};
  Slot slots_[kSlots];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Program(Input(data, size)).run();
  return 0;
}
