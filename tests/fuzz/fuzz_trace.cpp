// libFuzzer harness: a trace as it comes (any bytes) through the reader,
// validation, fusion and execution on the reference backend, exactly as
// `arrvm replay` runs it (frontend/cli/replay.cpp is linked in).
//
// Contract checked: any input either replays or fails with arrvm::Error (a
// user error naming the line). A crash, a sanitizer report, an InternalError
// or any other exception escaping is a bug, and so is a hang (libFuzzer's
// -timeout).
//
// Resource bounds: memory is the library's (the replay runs with
// mem_limit=64M, so a base of any size is declared, written and read through
// small views, and one that cannot be had fails with OutOfMemoryError before
// anything is allocated); time is the harness's: inputs whose instructions
// iterate over more than kMaxElems elements, or that have more than
// kMaxInstructions instructions, are skipped after reading.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/cli/replay.hpp"
#include "vm/error.hpp"
#include "vm/trace.hpp"

namespace {

constexpr int64_t kMaxElems = int64_t{1} << 22;
constexpr int64_t kMaxInstructions = 20000;

// The input lives in a file because replay (like the CLI) reads a path; in
// /dev/shm when there is one, so that this costs no disk I/O.
const std::string& input_path() {
  static const std::string path = [] {
    const char* dir =
        access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    return std::string(dir) + "/arrvm-fuzz-trace-" + std::to_string(getpid()) + ".jsonl";
  }();
  return path;
}

bool write_input(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(input_path().c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

int64_t elems(const arrvm::Dims& shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0) return 0;  // invalid: validation rejects it
    if (__builtin_mul_overflow(n, e, &n)) return INT64_MAX;
  }
  return n;
}

// Reads the whole trace once; false if it is too big to run here. Reading
// errors propagate (they are the reader's part of the contract).
bool within_bounds() {
  arrvm::TraceReader reader(input_path());
  arrvm::TraceEvent ev;
  int64_t instructions = 0;
  while (reader.next(&ev)) {
    if (ev.kind == arrvm::TraceEvent::Kind::Data || ev.kind == arrvm::TraceEvent::Kind::Sync) {
      // A data or sync line of a base is as big as the base: memory the
      // harness itself would hold (the replay's copies), bounded here.
      if (static_cast<int64_t>(ev.bytes.size()) > kMaxElems * 8) return false;
    } else if (ev.kind == arrvm::TraceEvent::Kind::Instr) {
      if (++instructions > kMaxInstructions) return false;
      const arrvm::Instruction& in = ev.instr;
      if (elems(in.out.shape) > kMaxElems) return false;
      for (int i = 0; i < in.nin; ++i) {
        if (!in.in[i].is_const && elems(in.in[i].view.shape) > kMaxElems) return false;
      }
    }
  }
  return true;
}

const char* const kFusers[] = {"greedy", "singleton", "linear", "unintrusive"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!write_input(data, size)) std::abort();
  try {
    if (!within_bounds()) return 0;
  } catch (const arrvm::Error&) {
    return 0;  // a malformed trace, rejected with a message: fine
  }
  // The fuser and batch size follow from the input, so a crash reproduces.
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  arrvm::cli::ReplayOptions o;
  o.trace = input_path();
  o.config = {{"backend", "ref"},
              {"fuser", kFusers[h % 4]},
              {"batch", (h >> 2) % 3 == 0 ? "3" : "4096"},
              {"cache", "off"},
              {"trace", ""},
              {"profile", ""},
              {"log", "off"},
              {"mem_limit", "64M"}};
  try {
    arrvm::cli::replay(o);
  } catch (const arrvm::Error&) {
    // A user error (bad trace, rejected instruction, run-time error such as
    // an index out of range): the defined outcome.
  }
  return 0;
}
