// Common subexpressions: the cse pass. Rule: a costly elementwise
// instruction that repeats an earlier one on unchanged inputs is computed
// once. NumPy code computes the same expression twice when two functions
// need it:
//
//   def density(s, t):       ... rc * s**1.5 ...
//   def heat_capacity(s, t): ... b * s**1.5
//
// Each `s**1.5` is an instruction of its own, writing its own temporary.
// When a fuser puts both in one kernel, the C compiler computes the power
// once; when it puts them in two, the kernel pays for a second `pow` per
// element (a partition 4 % cheaper in bytes ran 18-28 % slower for that,
// on a program of this shape). The pass keeps the first and lets the readers of the second
// read the first's result, so no partition computes it twice.
//
// Only costly instructions (the transcendental class of the machine cost
// model: pow, sqrt, exp, log, trigonometry) are shared: in one kernel the C
// compiler shares any repeat itself, and across two kernels a shared
// result costs a store and a load, which a subtraction does not repay.
//
// When: instructions I < J are such elementwise ones (not generators:
// their values depend on where they write), with the same opcode, output dtype and
// output view (but the base), and the same inputs (the same views of the
// same bases, constants of the same dtype and bytes); nothing between I
// and J writes a base I reads; I and J each create their output base (the
// first instruction to touch it, the only one to write it, writing all of it
// as a contiguous view and reading none of it); and the batch frees J's
// base. Then every element of J's output equals I's, and I's output holds
// those values until the batch frees it: J goes, the readers of J's base
// read I's base, and if the batch freed I's base before J's last reader,
// that free moves to just after J's base's free (which stays, releasing an
// id that nothing writes any more). Chains follow: with J's readers
// renamed, an instruction that repeated J's reader now repeats I's reader.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Rewrites `batch` (validated; `origin` per instruction) as the header
// says; returns how many instructions were removed. `live_nelem(b)` is the
// element count of a base the batch leaves alive (-1 if unknown).
std::size_t share_common_subexpressions(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                                        const std::function<int64_t(BaseId)>& live_nelem);

}  // namespace arrvm
