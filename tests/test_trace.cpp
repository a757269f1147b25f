// Trace format: writer -> reader round trips, strict rejection of malformed
// traces (with the line number), and the sha256/base64 helpers.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/trace.hpp"

namespace {

using arrvm::Dims;
using arrvm::DType;
using arrvm::Instruction;
using arrvm::Opcode;
using arrvm::Operand;
using arrvm::Scalar;
using arrvm::TraceEvent;
using arrvm::TraceReader;
using arrvm::TraceWriter;
using arrvm::View;

std::string temp_path(const std::string& tag) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() / ("arrvm_test_trace_" + std::to_string(::getpid()) + "_" +
                                                    tag + "_" + std::to_string(counter++) + ".jsonl"))
      .string();
}

View view(arrvm::BaseId base, int64_t offset, Dims shape, Dims stride) {
  return arrvm::make_view(base, offset, shape, stride);
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string s; std::getline(in, s);) lines.push_back(s);
  return lines;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<TraceEvent> read_all(const std::string& path) {
  TraceReader r(path);
  std::vector<TraceEvent> evs;
  TraceEvent ev;
  while (r.next(&ev)) evs.push_back(ev);
  return evs;
}

bool same_view(const View& a, const View& b) {
  return a.base == b.base && a.offset == b.offset && a.shape == b.shape && a.stride == b.stride;
}

// The error message of reading `body` (after a valid header) as a trace.
std::string trace_error(const std::string& body, bool with_header = true) {
  const std::string path = temp_path("bad");
  write_file(path, (with_header ? std::string("{\"arrvm_trace\": 1}\n") : std::string()) + body);
  std::string msg;
  try {
    read_all(path);
  } catch (const arrvm::Error& e) {
    msg = e.what();
  }
  std::filesystem::remove(path);
  return msg;
}

}  // namespace

TEST_CASE("trace: writer output has the documented line format") {
  const std::string path = temp_path("fmt");
  {
    TraceWriter w(path);
    w.base(3, DType::Float64, 5);
    const uint8_t bytes[3] = {'f', 'o', 'o'};
    w.data(3, bytes, 3);
    Instruction f;
    f.op = Opcode::Free;
    f.out.base = 3;
    w.instruction(f);
    w.sync(9, bytes, 3);
  }
  const auto lines = read_lines(path);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == R"({"arrvm_trace":1})");
  CHECK(lines[1] == R"({"base":3,"dtype":"float64","nelem":5})");
  CHECK(lines[2] == R"({"data":3,"bytes":"Zm9v"})");
  CHECK(lines[3] == R"({"op":"free","base":3})");
  // sha256("foo")
  CHECK(
      lines[4] ==
      R"({"op":"sync","base":9,"bytes":"Zm9v","sha256":"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"})");
  std::filesystem::remove(path);
}

TEST_CASE("trace: round trip of every line kind") {
  const std::string path = temp_path("rt");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const uint64_t big_seed = (uint64_t{1} << 63) + 12345;  // above INT64_MAX
  std::vector<uint8_t> big(std::size_t{1} << 20 | 1);     // 1 MiB + 1: no "bytes"
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  const uint8_t small[5] = {1, 2, 3, 250, 0};

  Instruction add;  // negative stride input, constant NaN
  add.op = Opcode::Add;
  add.out = view(7, 1, {4}, {1});
  add.add_input(Operand::of(view(2, 3, {4}, {-1})));
  add.add_input(Operand::of(Scalar::of_double(DType::Float64, nan)));

  Instruction where;  // +inf and -inf constants, 2-D views with stride 0
  where.op = Opcode::Where;
  where.out = view(7, 0, {2, 3}, {3, 1});
  where.add_input(Operand::of(view(4, 0, {2, 3}, {0, 1})));
  where.add_input(Operand::of(Scalar::of_double(DType::Float64, inf)));
  where.add_input(Operand::of(Scalar::of_double(DType::Float64, -inf)));

  Instruction mul;  // float32 constant (not exactly representable in decimal), -0.0
  mul.op = Opcode::Multiply;
  mul.out = view(5, 0, {2}, {1});
  mul.add_input(Operand::of(Scalar::of_double(DType::Float32, 0.1)));
  mul.add_input(Operand::of(Scalar::of_double(DType::Float64, -0.0)));

  Instruction ints;  // extreme integer constants
  ints.op = Opcode::BitwiseAnd;
  ints.out = view(6, 0, {1}, {1});
  ints.add_input(Operand::of(Scalar::of_uint(DType::UInt64, std::numeric_limits<uint64_t>::max())));
  ints.add_input(Operand::of(Scalar::of_int(DType::Int64, std::numeric_limits<int64_t>::min())));
  ints.add_input(Operand::of(Scalar::of_int(DType::Bool, 1)));
  ints.nin = 2;  // the third operand only exercises construction; bitwise_and has arity 2

  Instruction red;  // reduction of a 1-D view into a 0-d view
  red.op = Opcode::AddReduce;
  red.out = view(8, 2, {}, {});
  red.add_input(Operand::of(view(2, 0, {5}, {1})));
  red.axis = 0;

  Instruction scan;
  scan.op = Opcode::AddAccumulate;
  scan.out = view(9, 0, {2, 3}, {3, 1});
  scan.add_input(Operand::of(view(10, 5, {2, 3}, {-3, -1})));
  scan.axis = 1;

  Instruction rnd;
  rnd.op = Opcode::Random;
  rnd.out = view(11, 0, {3}, {1});
  rnd.seed = big_seed;

  Instruction rng;
  rng.op = Opcode::Range;
  rng.out = view(12, 0, {}, {});

  Instruction fr;
  fr.op = Opcode::Free;
  fr.out.base = 7;

  {
    TraceWriter w(path);
    w.base(100, DType::UInt16, 9);  // ids need not be dense
    w.data(100, small, 5);
    w.data(100, small, 0);
    w.instruction(add);
    w.instruction(where);
    w.instruction(mul);
    w.instruction(ints);
    w.instruction(red);
    w.instruction(scan);
    w.instruction(rnd);
    w.instruction(rng);
    w.instruction(fr);
    w.sync(42, small, 5);
    w.sync(43, big.data(), big.size());
  }

  const auto evs = read_all(path);
  REQUIRE(evs.size() == 14);
  for (std::size_t i = 0; i < evs.size(); ++i) CHECK(evs[i].line == static_cast<int64_t>(i) + 2);

  CHECK(evs[0].kind == TraceEvent::Kind::Base);
  CHECK(evs[0].base == 100);
  CHECK(evs[0].dtype == DType::UInt16);
  CHECK(evs[0].nelem == 9);

  CHECK(evs[1].kind == TraceEvent::Kind::Data);
  CHECK(evs[1].base == 100);
  CHECK(evs[1].bytes == std::vector<uint8_t>{1, 2, 3, 250, 0});
  CHECK(evs[2].kind == TraceEvent::Kind::Data);
  CHECK(evs[2].bytes.empty());

  const Instruction& a = evs[3].instr;
  CHECK(evs[3].kind == TraceEvent::Kind::Instr);
  CHECK(a.op == Opcode::Add);
  CHECK(same_view(a.out, view(7, 1, {4}, {1})));
  REQUIRE(a.nin == 2);
  CHECK_FALSE(a.in[0].is_const);
  CHECK(same_view(a.in[0].view, view(2, 3, {4}, {-1})));
  CHECK(a.in[1].is_const);
  CHECK(a.in[1].constant.dtype == DType::Float64);
  CHECK(std::isnan(a.in[1].constant.f));

  const Instruction& wh = evs[4].instr;
  CHECK(wh.op == Opcode::Where);
  REQUIRE(wh.nin == 3);
  CHECK(same_view(wh.in[0].view, view(4, 0, {2, 3}, {0, 1})));
  CHECK(wh.in[1].constant.f == inf);
  CHECK(wh.in[2].constant.f == -inf);

  const Instruction& m = evs[5].instr;
  CHECK(m.in[0].constant.dtype == DType::Float32);
  CHECK(m.in[0].constant.f == static_cast<double>(0.1f));  // bit-exact float32 value
  CHECK(m.in[1].constant.f == 0.0);
  CHECK(std::signbit(m.in[1].constant.f));

  const Instruction& b = evs[6].instr;
  REQUIRE(b.nin == 2);
  CHECK(b.in[0].constant.dtype == DType::UInt64);
  CHECK(b.in[0].constant.u == 18446744073709551615ull);
  CHECK(b.in[1].constant.dtype == DType::Int64);
  CHECK(b.in[1].constant.i == std::numeric_limits<int64_t>::min());

  const Instruction& r = evs[7].instr;
  CHECK(r.op == Opcode::AddReduce);
  CHECK(r.out.rank() == 0);
  CHECK(r.out.offset == 2);
  CHECK(r.axis == 0);
  CHECK(same_view(r.in[0].view, view(2, 0, {5}, {1})));

  const Instruction& s = evs[8].instr;
  CHECK(s.op == Opcode::AddAccumulate);
  CHECK(s.axis == 1);
  CHECK(same_view(s.in[0].view, view(10, 5, {2, 3}, {-3, -1})));

  CHECK(evs[9].instr.op == Opcode::Random);
  CHECK(evs[9].instr.nin == 0);
  CHECK(evs[9].instr.seed == 9223372036854788153ull);
  CHECK(evs[10].instr.op == Opcode::Range);
  CHECK(evs[10].instr.out.rank() == 0);

  CHECK(evs[11].kind == TraceEvent::Kind::Instr);
  CHECK(evs[11].instr.op == Opcode::Free);
  CHECK(evs[11].instr.out.base == 7);

  CHECK(evs[12].kind == TraceEvent::Kind::Sync);
  CHECK(evs[12].base == 42);
  CHECK(evs[12].instr.op == Opcode::Sync);
  CHECK(evs[12].instr.out.base == 42);
  CHECK(evs[12].has_bytes);
  CHECK(evs[12].bytes == std::vector<uint8_t>{1, 2, 3, 250, 0});
  CHECK(evs[12].sha256 == arrvm::sha256_hex(small, 5));

  CHECK(evs[13].kind == TraceEvent::Kind::Sync);
  CHECK(evs[13].base == 43);
  CHECK_FALSE(evs[13].has_bytes);  // over 1 MiB: hash only
  CHECK(evs[13].sha256 == arrvm::sha256_hex(big.data(), big.size()));
  CHECK(evs[13].sha256.size() == 64);
  std::filesystem::remove(path);
}

TEST_CASE("trace: hand-written lines in key order other than the writer's") {
  const std::string path = temp_path("hand");
  write_file(
      path,
      "{\"arrvm_trace\": 1}\r\n"
      "{\"nelem\": 4, \"dtype\": \"int32\", \"base\": 0}\n"
      "{\"in\": [{\"stride\": [1], \"shape\": [4], \"offset\": 0, \"base\": 0}, {\"dtype\": \"int32\", "
      "\"const\": -3}], \"out\": {\"base\": 1, \"offset\": 0, \"shape\": [4], \"stride\": [1]}, \"op\": "
      "\"add\"}\n"
      "{\"op\": \"sync\", \"base\": 1}\n");
  const auto evs = read_all(path);
  REQUIRE(evs.size() == 3);
  CHECK(evs[0].dtype == DType::Int32);
  CHECK(evs[1].instr.in[1].constant.dtype == DType::Int32);
  CHECK(evs[1].instr.in[1].constant.i == -3);
  CHECK(evs[2].kind == TraceEvent::Kind::Sync);
  CHECK_FALSE(evs[2].has_bytes);
  CHECK(evs[2].sha256.empty());
  std::filesystem::remove(path);
}

TEST_CASE("trace: malformed traces are rejected with file and line") {
  const std::string v = R"({"base": 0, "offset": 0, "shape": [2], "stride": [1]})";
  const std::string base = "{\"base\": 0, \"dtype\": \"float64\", \"nelem\": 2}\n";

  std::string e = trace_error(base + "{\"base\": 1, \"dtype\": \"float64\" \"nelem\": 2}\n");
  CHECK(e.find(":3: malformed JSON") != std::string::npos);

  e = trace_error(base + "{\"base\": 1, \"dtype\": \"float64\", \"nelem\": 2, \"color\": 1}\n");
  CHECK(e.find(":3: unknown field \"color\"") != std::string::npos);

  e = trace_error(base + base + "{\"op\": \"frobnicate\", \"out\": " + v + ", \"in\": []}\n");
  CHECK(e.find(":4: unknown opcode \"frobnicate\"") != std::string::npos);

  e = trace_error(base + "{\"op\": \"negative\", \"out\": " + v + "}\n");
  CHECK(e.find(":3: missing field \"in\"") != std::string::npos);

  e = trace_error(base + "{\"op\": \"range\", \"out\": " + v + "}\n");
  CHECK(e.find(":3: missing field \"in\"") != std::string::npos);

  e = trace_error(base + "{\"data\": 0, \"bytes\": \"AAAA!AAA\"}\n");
  CHECK(e.find(":3: malformed base64") != std::string::npos);

  e = trace_error(base + "{\"data\": 0, \"bytes\": \"AAAAA\"}\n");
  CHECK(e.find(":3: malformed base64") != std::string::npos);

  e = trace_error(base + "{\"op\": \"sync\", \"base\": 0, \"sha256\": \"abc\"}\n");
  CHECK(e.find(":3: \"sha256\" must be 64 hex digits") != std::string::npos);

  e = trace_error(base + "{\"base\": 1, \"dtype\": \"float16\", \"nelem\": 2}\n");
  CHECK(e.find(":3: unknown dtype \"float16\"") != std::string::npos);

  e = trace_error(base + "{\"op\": \"add_reduce\", \"out\": " + v + ", \"in\": [" + v + "]}\n");
  CHECK(e.find(":3: missing field \"axis\"") != std::string::npos);

  e = trace_error(base + "{\"op\": \"negative\", \"out\": " + v + ", \"in\": [" + v + "], \"axis\": 0}\n");
  CHECK(e.find(":3: unknown field \"axis\"") != std::string::npos);

  e = trace_error(base + "{\"op\": \"add\", \"out\": " + v + ", \"in\": [" + v + "]}\n");
  CHECK(e.find(":3: add takes 2 inputs") != std::string::npos);

  e = trace_error(base + "{\"op\": \"random\", \"out\": " + v + ", \"in\": [], \"seed\": -1}\n");
  CHECK(e.find(":3: \"seed\"") != std::string::npos);

  e = trace_error(base +
                  "{\"op\": \"negative\", \"out\": {\"base\": 0, \"offset\": 0, \"shape\": [2]}, \"in\": [" +
                  v + "]}\n");
  CHECK(e.find(":3: missing field \"stride\"") != std::string::npos);

  e = trace_error(
      base +
      "{\"op\": \"negative\", \"out\": {\"base\": 0, \"offset\": 0.5, \"shape\": [2], \"stride\": "
      "[1]}, \"in\": [" +
      v + "]}\n");
  CHECK(e.find(":3: \"offset\" must be an integer") != std::string::npos);

  e = trace_error(base + "{\"op\": \"free\", \"base\": 0, \"bytes\": \"\"}\n");
  CHECK(e.find(":3: unknown field \"bytes\"") != std::string::npos);

  e = trace_error(base + "[1, 2]\n");
  CHECK(e.find(":3: a trace line must be a JSON object") != std::string::npos);

  e = trace_error(base + "\n");
  CHECK(e.find(":3: malformed JSON") != std::string::npos);

  e = trace_error(base + "{\"what\": 1}\n");
  CHECK(e.find(":3: not a trace line") != std::string::npos);

  e = trace_error(base, /*with_header=*/false);
  CHECK(e.find(":1: expected the header") != std::string::npos);

  e = trace_error("{\"arrvm_trace\": 2}\n", /*with_header=*/false);
  CHECK(e.find(":1: unsupported trace version 2") != std::string::npos);

  e = trace_error("", /*with_header=*/false);
  CHECK(e.find(":1: empty file") != std::string::npos);

  // Non-finite strings are only numbers for float dtypes.
  e = trace_error(base + "{\"op\": \"add\", \"out\": " + v + ", \"in\": [" + v +
                  ", {\"const\": \"nan\", \"dtype\": \"int32\"}]}\n");
  CHECK(e.find(":3: \"const\" must be a number") != std::string::npos);

  // The message starts with the file name.
  e = trace_error(base + "{\"op\": 3}\n");
  CHECK(e.find("arrvm_test_trace_") != std::string::npos);
  CHECK(e.find(".jsonl:3: \"op\" must be a string") != std::string::npos);
}

TEST_CASE("trace: a missing file is an Error") {
  CHECK_THROWS_AS(TraceReader("/nonexistent/dir/trace.jsonl"), arrvm::Error);
  CHECK_THROWS_AS(TraceWriter("/nonexistent/dir/trace.jsonl"), arrvm::Error);
}

TEST_CASE("sha256_hex") {
  CHECK(arrvm::sha256_hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(arrvm::sha256_hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("base64 round trips at lengths 0..5") {
  // RFC 4648 test vectors.
  const char* const kEncoded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE="};
  const std::string foobar = "foobar";
  for (std::size_t n = 0; n <= 5; ++n) {
    CAPTURE(n);
    CHECK(arrvm::base64_encode(foobar.data(), n) == kEncoded[n]);
    const std::vector<uint8_t> back = arrvm::base64_decode(kEncoded[n]);
    CHECK(std::string(back.begin(), back.end()) == foobar.substr(0, n));
  }
  // Binary bytes, including 0x00 and 0xff.
  const uint8_t bin[4] = {0x00, 0xff, 0xfe, 0x00};
  CHECK(arrvm::base64_encode(bin, 4) == "AP/+AA==");
  CHECK(arrvm::base64_decode("AP/+AA==") == std::vector<uint8_t>{0x00, 0xff, 0xfe, 0x00});
}

TEST_CASE("base64_decode rejects garbage") {
  for (const char* bad : {"Zg=", "Z===", "====", "ab=c", "Zm9v!A==", "Zm 9", " Zm9v", "Zm9v\n"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(arrvm::base64_decode(bad), arrvm::Error);
  }
}
