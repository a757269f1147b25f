// Validation of incoming instructions: everything that can be checked before
// an instruction enters the batch is checked here, so that backends only see
// well-formed, normalized instructions.
#pragma once

#include <cstdint>

#include "vm/instruction.hpp"

namespace arrvm {

class BaseRegistry;

// Checks `instr` against the opcode's arity and type rule, the live bases and
// the views' bounds (the output must be injective), and normalizes it in place: every
// view's dtype is set from its base, elementwise inputs are broadcast to the
// output shape (stride 0), and free/sync get a 1-D view of their whole base.
// Throws Error "instruction #<index> (<opcode>): <what is wrong>: <instr>".
// Cost: O(rank * inputs); no allocation.
void validate_instruction(Instruction& instr, const BaseRegistry& bases, uint64_t index);

// Checks that a view is well formed and lies inside a base of `nelem`
// elements; returns an empty string if so, else what is wrong.
std::string check_view_bounds(const View& v, int64_t nelem);

// NumPy's overlap rule: an instruction reads all of its inputs before it
// writes any element. That needs a copy of input `i` first when it shares
// an element with the output, unless it is an elementwise input identical to
// the output (each element is read just before the same element is written).
// Exact (vm/overlap.cpp); `instr` must be validated.
bool input_needs_copy(const Instruction& instr, int i);

// The copy that input `i` needs: the shape of a new base to copy it into
// (axes the view broadcasts over are kept at length 1), and the `identity`
// instruction that fills base `tmp` of that shape; `instr` is rewritten to
// read the copy. The caller creates `tmp` and frees it after `instr`.
Dims copy_shape(const View& v);
Instruction redirect_to_copy(Instruction* instr, int i, BaseId tmp);

}  // namespace arrvm
