// Traces: the bytecode stream of a run as JSON Lines (format: docs/reference.md
// "Traces"). The Runtime writes one under ARRVM_TRACE; `arrvm replay` reads it.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

class TraceWriter {
 public:
  // Opens (truncates) `path` and writes the header line. Throws Error.
  explicit TraceWriter(const std::string& path);
  ~TraceWriter();

  void base(BaseId id, DType dtype, int64_t nelem);
  void data(BaseId id, const void* bytes, std::size_t n);
  // Any instruction but `sync` (`free` is written as {"op":"free","base":N}).
  void instruction(const Instruction& instr);
  // A sync line with the base's contents: "bytes" (base64) when n <= 1 MiB,
  // and "sha256" always.
  void sync(BaseId id, const void* bytes, std::size_t n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One line of a trace.
struct TraceEvent {
  enum class Kind { Base, Data, Instr, Sync };
  Kind kind = Kind::Instr;
  int64_t line = 0;              // 1-based line number in the file
  BaseId base = -1;              // Base, Data, Sync
  DType dtype = DType::Float64;  // Base
  int64_t nelem = 0;             // Base
  std::vector<uint8_t> bytes;    // Data; Sync when has_bytes
  bool has_bytes = false;        // Sync
  std::string sha256;            // Sync: lowercase hex, empty if absent
  Instruction instr;             // Instr (views' dtypes are filled in by validation)
};

class TraceReader {
 public:
  // Opens `path` and checks the header line. Throws Error.
  explicit TraceReader(const std::string& path);
  ~TraceReader();
  // Reads the next event; false at end of file. Throws Error naming the file
  // and line for malformed JSON, unknown kinds or fields, bad dtypes/opcodes.
  bool next(TraceEvent* ev);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Helpers shared by the writer, the replayer and the tests (sha256_hex: vm/hash.hpp).
std::string base64_encode(const void* data, std::size_t n);
std::vector<uint8_t> base64_decode(const std::string& s);  // throws Error if malformed

}  // namespace arrvm
