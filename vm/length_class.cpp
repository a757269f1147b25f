// Length classes: size inference for `compress` (vm/length_class.hpp).
#include "vm/length_class.hpp"

#include <string>

#include "vm/base_registry.hpp"
#include "vm/error.hpp"

namespace arrvm {
namespace {

std::string base_name(BaseId id) {
  return "b" + std::to_string(id);
}

// A whole 1-D view of its base: what denotes a class member's L elements.
bool whole(const View& v, const BaseInfo& b) {
  return v.offset == 0 && v.rank() == 1 && v.shape[0] == b.nelem && (b.nelem <= 1 || v.stride[0] == 1);
}

// Every index reads one element (a broadcast scalar): fits any length.
bool one_element(const View& v) {
  for (int d = 0; d < v.rank(); ++d) {
    if (v.shape[d] > 1 && v.stride[d] != 0) return false;
  }
  return true;
}

std::string class_of(BaseId view_base, BaseId klass) {
  return base_name(view_base) + " (its length is the number of elements the compress into " +
         base_name(klass) + " keeps, known only when it runs)";
}

}  // namespace

LengthEffect apply_length_classes(Instruction& instr, const BaseRegistry& bases, uint64_t index) {
  LengthEffect effect;
  instr.length_class = -1;
  const OpKind kind = opcode_kind(instr.op);
  if (kind == OpKind::Free || kind == OpKind::Sync) return effect;
  if (bases.filtered_count() == 0 && kind != OpKind::Compress) return effect;
  auto reject = [&](const std::string& what) {
    throw Error("instruction #" + std::to_string(index) + " (" + std::string(opcode_name(instr.op)) +
                "): " + what + ": " + to_string(instr));
  };
  auto input_name = [](int i) { return "input " + std::to_string(i); };

  // The class the inputs iterate over, from the whole views of members.
  BaseId domain = -1;
  int64_t length = -1;  // the domain's length once known
  int domain_at = -1, fixed_at = -1;
  BaseId domain_base = -1, fixed_base = -1;
  for (int i = 0; i < instr.nin; ++i) {
    const Operand& o = instr.in[i];
    if (o.is_const) continue;
    const BaseInfo& b = *bases.find(o.view.base);
    const bool member = b.klass >= 0 && whole(o.view, b);
    if (b.klass >= 0 && !member && b.length < 0) {
      reject(input_name(i) + " is part of " + class_of(o.view.base, b.klass) +
             ": only the whole array can be used before its length is known");
    }
    if (member) {
      if (domain >= 0 && domain != b.klass) {
        reject(input_name(domain_at) + " is " + class_of(domain_base, domain) + " and " + input_name(i) +
               " is " + class_of(o.view.base, b.klass) +
               ": combined element by element, their lengths may differ");
      }
      domain = b.klass, length = b.length, domain_at = i, domain_base = o.view.base;
    } else if (!one_element(o.view)) {
      fixed_at = i, fixed_base = o.view.base;
    }
  }
  if (domain >= 0 && (kind == OpKind::Gather || kind == OpKind::Scatter || kind == OpKind::Generator)) {
    reject(input_name(domain_at) + " is " + class_of(domain_base, domain) +
           ": gathers and scatters need its length; read it (sync) first");
  }
  if (domain >= 0 && fixed_at >= 0) {
    reject(input_name(domain_at) + " is " + class_of(domain_base, domain) + " and " + input_name(fixed_at) +
           " (" + base_name(fixed_base) + ") has a fixed length: combined element by element, their " +
           "lengths may differ");
  }

  // The output: ordinary, or a whole base that joins a class.
  const BaseInfo& out = *bases.find(instr.out.base);
  const bool out_whole = whole(instr.out, out);
  const bool out_joins = domain >= 0 && (kind == OpKind::Elementwise || kind == OpKind::Accumulate);
  if (out_joins && !(out_whole && out.nelem == bases.find(domain_base)->nelem)) {
    reject("the output of an operation over " + class_of(domain_base, domain) +
           " must be a whole 1-D base of " + std::to_string(bases.find(domain_base)->nelem) + " elements");
  }
  if (!out_whole && out.klass >= 0 && out.length < 0) {
    reject("the output is part of " + class_of(instr.out.base, out.klass) +
           ": only the whole array can be written before its length is known");
  }
  if (kind == OpKind::Compress) {
    effect = {true, instr.out.base, -1};
  } else if (out_joins) {
    effect = {true, domain, length};
  } else if (out_whole) {
    effect = {true, -1, -1};
  }

  if (domain < 0) return effect;
  if (length < 0) {
    instr.length_class = domain;
  } else {
    resolve_length(instr, length);  // known: an ordinary instruction over L elements
  }
  return effect;
}

void record_length_class(const Instruction& instr, const LengthEffect& effect, BaseRegistry& bases) {
  if (!effect.writes_whole) return;
  const BaseInfo* b = bases.find(instr.out.base);
  if (b == nullptr || (b->klass < 0 && effect.out_class < 0)) return;
  bases.set_class(instr.out.base, effect.out_class, effect.out_length);
}

void resolve_length(Instruction& instr, int64_t length) {
  for (int i = 0; i < instr.nin; ++i) {
    if (!instr.in[i].is_const) instr.in[i].view.shape[0] = length;
  }
  const OpKind kind = opcode_kind(instr.op);
  if (kind == OpKind::Elementwise || kind == OpKind::Accumulate) instr.out.shape[0] = length;
  instr.length_class = -1;
}

}  // namespace arrvm
