#include "vm/trace.hpp"

#include <openssl/evp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/size.hpp"

namespace arrvm {

namespace {

// The writer keeps keys in the order docs/reference.md shows them (ordered_json), so
// traces read naturally and diff well; the reader does not care about order.
using OJson = nlohmann::ordered_json;
using Json = nlohmann::json;

constexpr std::size_t kSyncBytesLimit = std::size_t{1} << 20;  // 1 MiB

// ---------------------------------------------------------------- writing

OJson view_json(const View& v) {
  OJson shape = OJson::array();
  OJson stride = OJson::array();
  for (int64_t d : v.shape) shape.push_back(d);
  for (int64_t s : v.stride) stride.push_back(s);
  OJson j;
  j["base"] = v.base;
  j["offset"] = v.offset;
  j["shape"] = std::move(shape);
  j["stride"] = std::move(stride);
  return j;
}

// Format extension: JSON has no NaN or infinity, so non-finite float
// constants are written as the strings "nan", "inf" and "-inf" (and read back
// from them). Finite doubles are written with nlohmann's shortest round-trip
// formatting, so every value (float32 ones are exact doubles) comes back bit
// for bit; the sign of -0.0 survives as "-0.0".
// A complex constant is the pair [real, imaginary], each part as a float's.
OJson float_json(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  return f;
}

OJson const_json(const Scalar& s) {
  OJson value;
  if (is_complex(s.dtype)) {
    value = OJson::array({float_json(s.f), float_json(s.im)});
  } else if (is_float(s.dtype)) {
    value = float_json(s.f);
  } else if (is_unsigned_int(s.dtype)) {
    value = s.u;
  } else {
    value = s.i;  // signed ints, and bool as 0/1
  }
  OJson j;
  j["const"] = std::move(value);
  j["dtype"] = std::string(dtype_name(s.dtype));
  return j;
}

bool has_axis(Opcode op) {
  const OpKind k = opcode_kind(op);
  return k == OpKind::Reduce || k == OpKind::Accumulate;
}

// ---------------------------------------------------------------- reading

// Every field accessor throws Error("<what is wrong>"); TraceReader::next
// prefixes "TRACE:LINE: ".

const Json& field(const Json& obj, const char* name) {
  const auto it = obj.find(name);
  if (it == obj.end()) throw Error(std::string("missing field \"") + name + "\"");
  return *it;
}

int64_t get_int(const Json& j, const char* what) {
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw Error(std::string(what) + " is out of range");
    }
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  throw Error(std::string(what) + " must be an integer, got " + j.dump());
}

int64_t get_nonneg(const Json& j, const char* what) {
  const int64_t v = get_int(j, what);
  if (v < 0) throw Error(std::string(what) + " must not be negative, got " + std::to_string(v));
  return v;
}

DType get_dtype(const Json& j) {
  if (!j.is_string()) throw Error("\"dtype\" must be a string, got " + j.dump());
  const auto t = dtype_from_name(j.get<std::string>());
  if (!t) throw Error("unknown dtype \"" + j.get<std::string>() + "\"");
  return *t;
}

// Rejects any key not in `allowed`.
void check_fields(const Json& obj, std::initializer_list<const char*> allowed, const char* what) {
  for (const auto& [key, value] : obj.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) throw Error(std::string("unknown field \"") + key + "\" in " + what);
  }
}

Dims get_dims(const Json& j, const char* what) {
  if (!j.is_array()) throw Error(std::string(what) + " must be an array, got " + j.dump());
  if (j.size() > static_cast<std::size_t>(kMaxRank)) {
    throw Error(std::string(what) + " has " + std::to_string(j.size()) + " dimensions (at most " +
                std::to_string(kMaxRank) + ")");
  }
  Dims d;
  for (const Json& x : j) d.push_back(get_int(x, what));
  return d;
}

View get_view(const Json& j) {
  if (!j.is_object()) throw Error("a view must be an object, got " + j.dump());
  check_fields(j, {"base", "offset", "shape", "stride"}, "a view");
  View v;
  v.base = get_nonneg(field(j, "base"), "\"base\"");
  v.offset = get_int(field(j, "offset"), "\"offset\"");
  v.shape = get_dims(field(j, "shape"), "\"shape\"");
  v.stride = get_dims(field(j, "stride"), "\"stride\"");
  if (v.shape.size() != v.stride.size()) {
    throw Error("\"shape\" and \"stride\" of a view differ in length");
  }
  return v;
}

// A float part of a constant: a number, or "nan", "inf", "-inf".
std::optional<double> float_part(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

Scalar get_const(const Json& j) {
  check_fields(j, {"const", "dtype"}, "a constant");
  const DType t = get_dtype(field(j, "dtype"));
  const Json& v = field(j, "const");
  if (is_complex(t)) {
    if (v.is_array() && v.size() == 2) {
      const std::optional<double> re = float_part(v[0]), im = float_part(v[1]);
      if (re && im) return Scalar::of_complex(t, *re, *im);
    }
    throw Error(
        "\"const\" of a complex dtype must be [real, imaginary] (numbers, or \"nan\", \"inf\", \"-inf\"), "
        "got " +
        v.dump());
  }
  if (v.is_number_unsigned()) return Scalar::of_uint(t, v.get<uint64_t>());
  if (v.is_number_integer()) return Scalar::of_int(t, v.get<int64_t>());
  if (v.is_number_float()) return Scalar::of_double(t, v.get<double>());
  if (v.is_boolean()) return Scalar::of_int(t, v.get<bool>() ? 1 : 0);
  if (v.is_string() && is_float(t)) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return Scalar::of_double(t, std::numeric_limits<double>::quiet_NaN());
    if (s == "inf") return Scalar::of_double(t, std::numeric_limits<double>::infinity());
    if (s == "-inf") return Scalar::of_double(t, -std::numeric_limits<double>::infinity());
  }
  throw Error("\"const\" must be a number (or \"nan\", \"inf\", \"-inf\" for a float dtype), got " +
              v.dump());
}

Operand get_operand(const Json& j) {
  if (!j.is_object()) throw Error("an input must be an object, got " + j.dump());
  if (j.contains("const")) return Operand::of(get_const(j));
  return Operand::of(get_view(j));
}

Opcode get_opcode(const Json& j) {
  if (!j.is_string()) throw Error("\"op\" must be a string, got " + j.dump());
  const auto op = opcode_from_name(j.get<std::string>());
  if (!op) throw Error("unknown opcode \"" + j.get<std::string>() + "\"");
  return *op;
}

std::vector<uint8_t> get_bytes(const Json& j) {
  if (!j.is_string()) throw Error("\"bytes\" must be a base64 string");
  return base64_decode(j.get<std::string>());
}

std::string get_sha256(const Json& j) {
  if (!j.is_string()) throw Error("\"sha256\" must be a string");
  std::string s = j.get<std::string>();
  if (s.size() != 64) throw Error("\"sha256\" must be 64 hex digits");
  for (char& c : s) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      throw Error("\"sha256\" must be 64 hex digits");
    }
  }
  return s;
}

void parse_control(const Json& obj, Opcode op, TraceEvent* ev) {
  ev->base = get_nonneg(field(obj, "base"), "\"base\"");
  ev->instr.op = op;
  ev->instr.out.base = ev->base;
  if (op == Opcode::Free) {
    check_fields(obj, {"op", "base"}, "a free line");
    ev->kind = TraceEvent::Kind::Instr;
    return;
  }
  check_fields(obj, {"op", "base", "bytes", "sha256"}, "a sync line");
  ev->kind = TraceEvent::Kind::Sync;
  if (obj.contains("bytes")) {
    ev->bytes = get_bytes(obj["bytes"]);
    ev->has_bytes = true;
  }
  if (obj.contains("sha256")) ev->sha256 = get_sha256(obj["sha256"]);
}

void parse_instruction(const Json& obj, TraceEvent* ev) {
  const Opcode op = get_opcode(field(obj, "op"));
  if (is_control(op)) {
    parse_control(obj, op, ev);
    return;
  }
  ev->kind = TraceEvent::Kind::Instr;
  if (has_axis(op)) {
    check_fields(obj, {"op", "out", "in", "axis"}, "a reduction or scan");
  } else if (op == Opcode::Random) {
    check_fields(obj, {"op", "out", "in", "seed"}, "a random instruction");
  } else {
    check_fields(obj, {"op", "out", "in"}, "an instruction");
  }
  Instruction& in = ev->instr;
  in.op = op;
  in.out = get_view(field(obj, "out"));
  const Json& inputs = field(obj, "in");
  if (!inputs.is_array()) throw Error("\"in\" must be an array");
  const int arity = opcode_arity(op);
  if (inputs.size() != static_cast<std::size_t>(arity)) {
    throw Error(std::string(opcode_name(op)) + " takes " + std::to_string(arity) + " inputs, \"in\" has " +
                std::to_string(inputs.size()));
  }
  for (const Json& o : inputs) in.add_input(get_operand(o));
  if (has_axis(op)) {
    const int64_t axis = get_nonneg(field(obj, "axis"), "\"axis\"");
    if (axis >= kMaxRank) throw Error("\"axis\" " + std::to_string(axis) + " is out of range");
    in.axis = static_cast<int>(axis);
  }
  if (op == Opcode::Random) {
    const Json& seed = field(obj, "seed");
    if (seed.is_number_unsigned()) {
      in.seed = seed.get<uint64_t>();
    } else if (seed.is_number_integer() && seed.get<int64_t>() >= 0) {
      in.seed = static_cast<uint64_t>(seed.get<int64_t>());
    } else {
      throw Error("\"seed\" must be an integer in [0, 2^64), got " + seed.dump());
    }
  }
}

void parse_event(const Json& obj, TraceEvent* ev) {
  if (!obj.is_object()) throw Error("a trace line must be a JSON object");
  if (obj.contains("op")) {
    parse_instruction(obj, ev);
  } else if (obj.contains("data")) {
    check_fields(obj, {"data", "bytes"}, "a data line");
    ev->kind = TraceEvent::Kind::Data;
    ev->base = get_nonneg(obj["data"], "\"data\"");
    ev->bytes = get_bytes(field(obj, "bytes"));
  } else if (obj.contains("base")) {
    check_fields(obj, {"base", "dtype", "nelem"}, "a base line");
    ev->kind = TraceEvent::Kind::Base;
    ev->base = get_nonneg(obj["base"], "\"base\"");
    ev->dtype = get_dtype(field(obj, "dtype"));
    ev->nelem = get_nonneg(field(obj, "nelem"), "\"nelem\"");
    check_base_size(ev->dtype, ev->nelem, "\"nelem\"");
  } else {
    throw Error("not a trace line (no \"op\", \"data\" or \"base\" field)");
  }
}

}  // namespace

// ---------------------------------------------------------------- TraceWriter

struct TraceWriter::Impl {
  std::string path;
  std::ofstream out;

  void line(const OJson& j) {
    out << j.dump() << '\n';
    if (!out) throw Error("trace " + path + ": write failed");
  }
};

TraceWriter::TraceWriter(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->out.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!impl_->out) throw Error("trace " + path + ": cannot open for writing");
  OJson header;
  header["arrvm_trace"] = 1;
  impl_->line(header);
  impl_->out.flush();
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::base(BaseId id, DType dtype, int64_t nelem) {
  OJson j;
  j["base"] = id;
  j["dtype"] = std::string(dtype_name(dtype));
  j["nelem"] = nelem;
  impl_->line(j);
}

void TraceWriter::data(BaseId id, const void* bytes, std::size_t n) {
  OJson j;
  j["data"] = id;
  j["bytes"] = base64_encode(bytes, n);
  impl_->line(j);
}

void TraceWriter::instruction(const Instruction& instr) {
  OJson j;
  j["op"] = std::string(opcode_name(instr.op));
  if (is_control(instr.op)) {
    j["base"] = instr.out.base;
    impl_->line(j);
    return;
  }
  j["out"] = view_json(instr.out);
  OJson inputs = OJson::array();
  for (int i = 0; i < instr.nin; ++i) {
    const Operand& o = instr.in[i];
    inputs.push_back(o.is_const ? const_json(o.constant) : view_json(o.view));
  }
  j["in"] = std::move(inputs);
  if (has_axis(instr.op)) j["axis"] = instr.axis;
  if (instr.op == Opcode::Random) j["seed"] = instr.seed;
  impl_->line(j);
}

void TraceWriter::sync(BaseId id, const void* bytes, std::size_t n) {
  OJson j;
  j["op"] = "sync";
  j["base"] = id;
  if (n <= kSyncBytesLimit) j["bytes"] = base64_encode(bytes, n);
  j["sha256"] = sha256_hex(bytes, n);
  impl_->line(j);
  // A program that crashes later still leaves a trace that replays up to here.
  impl_->out.flush();
}

// ---------------------------------------------------------------- TraceReader

struct TraceReader::Impl {
  std::string path;
  std::ifstream in;
  int64_t line = 0;

  Error error(const std::string& what) const {
    return Error(path + ":" + std::to_string(line) + ": " + what);
  }

  // Reads the next physical line; false at end of file.
  bool read_line(std::string* s) {
    if (!std::getline(in, *s)) return false;
    ++line;
    if (!s->empty() && s->back() == '\r') s->pop_back();
    return true;
  }

  Json parse(const std::string& s) const {
    Json j = Json::parse(s, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw error("malformed JSON");
    if (!j.is_object()) throw error("a trace line must be a JSON object");
    return j;
  }
};

TraceReader::TraceReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->in.open(path, std::ios::in | std::ios::binary);
  if (!impl_->in) throw Error("trace " + path + ": cannot open");
  std::string s;
  if (!impl_->read_line(&s)) {
    impl_->line = 1;
    throw impl_->error("empty file: expected the header {\"arrvm_trace\": 1}");
  }
  const Json j = impl_->parse(s);
  const auto it = j.find("arrvm_trace");
  if (it == j.end() || j.size() != 1) {
    throw impl_->error("expected the header {\"arrvm_trace\": 1}");
  }
  if (!it->is_number_integer() || it->get<int64_t>() != 1) {
    throw impl_->error("unsupported trace version " + it->dump() + " (this reader knows 1)");
  }
}

TraceReader::~TraceReader() = default;

bool TraceReader::next(TraceEvent* ev) {
  std::string s;
  if (!impl_->read_line(&s)) return false;
  const Json j = impl_->parse(s);
  *ev = TraceEvent{};
  ev->line = impl_->line;
  try {
    parse_event(j, ev);
  } catch (const Error& e) {
    throw impl_->error(e.what());
  } catch (const Json::exception& e) {
    throw impl_->error(e.what());  // a type mismatch that slipped past the checks above
  }
  return true;
}

// ---------------------------------------------------------------- helpers

// EVP_EncodeBlock/EVP_DecodeBlock take an int length; large bases are
// processed in chunks that are whole base64 groups (3 bytes <-> 4 chars).
namespace {
constexpr std::size_t kChunkGroups = std::size_t{1} << 20;
}

std::string base64_encode(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.resize(4 * ((n + 2) / 3));
  std::size_t done = 0, pos = 0;
  while (done < n) {
    const std::size_t chunk = std::min(n - done, 3 * kChunkGroups);
    const int w =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[pos]), p + done, static_cast<int>(chunk));
    pos += static_cast<std::size_t>(w);
    done += chunk;
  }
  // EVP_EncodeBlock also writes a terminating NUL, which lands on the NUL
  // std::string keeps past size() (writing '\0' there is allowed).
  ARRVM_ASSERT(pos == out.size());
  return out;
}

std::vector<uint8_t> base64_decode(const std::string& s) {
  // EVP_DecodeBlock skips leading/trailing whitespace and does not report
  // padding, so validate strictly here and subtract the padding ourselves.
  const std::size_t n = s.size();
  if (n % 4 != 0) throw Error("malformed base64: length " + std::to_string(n) + " is not a multiple of 4");
  std::size_t pad = 0;
  if (n >= 4 && s[n - 1] == '=') pad = (s[n - 2] == '=') ? 2 : 1;
  for (std::size_t i = 0; i < n - pad; ++i) {
    const char c = s[i];
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) throw Error("malformed base64: bad character at offset " + std::to_string(i));
  }
  std::vector<uint8_t> out(n / 4 * 3);
  std::size_t pos = 0, done = 0;
  while (done < n) {
    const std::size_t chunk = std::min(n - done, 4 * kChunkGroups);
    const int w = EVP_DecodeBlock(out.data() + pos, reinterpret_cast<const unsigned char*>(s.data() + done),
                                  static_cast<int>(chunk));
    if (w < 0) throw Error("malformed base64");
    pos += static_cast<std::size_t>(w);
    done += chunk;
  }
  // erase rather than resize: GCC 12 warns (falsely) that resize may grow.
  out.erase(out.end() - static_cast<std::ptrdiff_t>(pad), out.end());
  return out;
}

}  // namespace arrvm
