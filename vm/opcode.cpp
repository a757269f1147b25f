#include "vm/opcode.hpp"

#include <array>

namespace arrvm {
namespace {

struct OpInfo {
  std::string_view name;
  int arity;
  OpKind kind;
  TypeRule rule;
};

constexpr std::array<OpInfo, kOpcodeCount> kOps = {{
#define ARRVM_OPCODE(E, N, A, K, R) {N, A, OpKind::K, TypeRule::R},
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
}};

const OpInfo& info(Opcode op) {
  return kOps[static_cast<std::size_t>(op)];
}

}  // namespace

std::string_view opcode_name(Opcode op) {
  return info(op).name;
}
int opcode_arity(Opcode op) {
  return info(op).arity;
}
OpKind opcode_kind(Opcode op) {
  return info(op).kind;
}
TypeRule opcode_type_rule(Opcode op) {
  return info(op).rule;
}

std::optional<Opcode> opcode_from_name(std::string_view name) {
  for (int i = 0; i < kOpcodeCount; ++i) {
    if (kOps[i].name == name) return static_cast<Opcode>(i);
  }
  return std::nullopt;
}

}  // namespace arrvm
