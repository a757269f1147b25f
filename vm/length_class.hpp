// Length classes: what the VM knows about arrays whose length depends on the
// data (seed 003 §3 "size inference"; fusion/README.md "Length
// classes"). A `compress` writes the elements of its values where its mask
// is true into a whole base of at least as many elements (its capacity);
// how many (L) is known only when it runs. That base is the root of a
// length class; the outputs of elementwise operations and scans over it are
// members of the class (bases of the same capacity). A whole 1-D view of a
// member denotes its first L elements, so a frontend can issue operations
// on it before L is known, and the VM does not flush for a compress:
//  * while L is pending, an instruction over the class keeps the nominal
//    length (the capacity) in its views and carries the class in
//    Instruction::length_class; a fused block iterates over it inside the
//    compress's loop (the transducer rule), any other block learns L from
//    the compress that ran before it (Backend::lengths);
//  * once a flush has run the compress, the VM rewrites such views to L.
// Size inference rejects what seed 003 rejects: a class combined
// elementwise with an array of a fixed length (`bad1`) or with another
// class (`bad2`), naming the instruction. A gather or scatter cannot read or
// write a pending class (sync it first); views of part of a pending member
// are rejected.
#pragma once

#include <cstdint>

#include "vm/instruction.hpp"

namespace arrvm {

class BaseRegistry;

// What accepting an instruction does to the registry's classes.
struct LengthEffect {
  bool writes_whole = false;  // the output covers its whole base, which takes out_class
  BaseId out_class = -1;      // the class the output base joins (-1: an ordinary base)
  int64_t out_length = -1;    // its known length (-1: pending)
};

// Checks a validated instruction against the length classes of its bases,
// rewrites the whole views of classes whose length is known to that length,
// and sets instr.length_class. Throws Error "instruction #<index> (<op>):
// <what>: <instr>" and then changes nothing. O(operands) hash lookups, none
// when no live base belongs to a class and `instr` is not a compress.
LengthEffect apply_length_classes(Instruction& instr, const BaseRegistry& bases, uint64_t index);

// After the instruction is accepted: its output base joins its class.
void record_length_class(const Instruction& instr, const LengthEffect& effect, BaseRegistry& bases);

// For backends: an instruction of a pending class whose compress ran in an
// earlier block iterates over the length that compress produced: its views
// of the nominal length become `length` (the output of a reduction keeps
// its shape).
void resolve_length(Instruction& instr, int64_t length);

}  // namespace arrvm
