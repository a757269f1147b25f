// Validation of incoming instructions: everything that can be checked before
// an instruction enters the batch is checked here, so that backends only see
// well-formed, normalized instructions.
#pragma once

#include <cstdint>

#include "vm/instruction.hpp"

namespace arrvm {

class BaseRegistry;

// Checks `instr` against the opcode's arity and type rule, the live bases,
// the views' bounds and the overlap rules, and normalizes it in place: every
// view's dtype is set from its base, elementwise inputs are broadcast to the
// output shape (stride 0), and free/sync get a 1-D view of their whole base.
// Throws Error "instruction #<index> (<opcode>): <what is wrong>: <instr>".
// Cost: O(rank * inputs); no allocation.
void validate_instruction(Instruction& instr, const BaseRegistry& bases, uint64_t index);

// Checks that a view is well formed and lies inside a base of `nelem`
// elements; returns an empty string if so, else what is wrong.
std::string check_view_bounds(const View& v, int64_t nelem);

}  // namespace arrvm
