// BatchUsers (rewrite/batch_users.hpp), the per-base positions the batch
// rewrites share, against the naive per-base scan on random batches (an
// instruction reading its own output, reading one base twice, frees and
// syncs among them); and site_key (rewrite/defer.hpp): the same for one
// operation at another base or constant, different for another shape.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "rewrite/batch_users.hpp"
#include "rewrite/defer.hpp"
#include "vm/view.hpp"

using namespace arrvm;  // tests only

namespace {

View vec(BaseId b, int64_t n) {
  return make_view(b, 0, Dims{n}, Dims{1});
}

std::vector<uint32_t> naive(const std::vector<Instruction>& batch, BaseId b) {
  std::vector<uint32_t> u;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    if (touches_base(batch[i], b)) u.push_back(i);
  }
  return u;
}

}  // namespace

TEST_CASE("batch users: the positions touching each base, as a scan finds them") {
  std::mt19937 rng(7);
  for (int draw = 0; draw < 200; ++draw) {
    const int nbases = 1 + static_cast<int>(rng() % 40);
    const int n = static_cast<int>(rng() % 300);
    std::vector<Instruction> batch;
    for (int i = 0; i < n; ++i) {
      Instruction in;
      const unsigned kind = rng() % 6;
      in.op = kind == 0 ? Opcode::Free : kind == 1 ? Opcode::Sync : Opcode::Add;
      in.out = vec(static_cast<BaseId>(rng() % nbases), 4);
      if (in.op == Opcode::Add) {
        for (int k = 0; k < 2; ++k) {
          if (rng() % 4 == 0) {
            in.add_input(Operand::of(Scalar::of_double(DType::Float64, 1.0)));
          } else {
            in.add_input(Operand::of(vec(static_cast<BaseId>(rng() % nbases), 4)));
          }
        }
      }
      batch.push_back(in);
    }
    const BatchUsers users(batch);
    std::vector<BaseId> first_touch;
    for (const Instruction& in : batch) {
      auto note = [&](BaseId b) {
        if (std::find(first_touch.begin(), first_touch.end(), b) == first_touch.end())
          first_touch.push_back(b);
      };
      note(in.out.base);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) note(in.in[k].view.base);
      }
    }
    REQUIRE(users.bases() == first_touch);
    for (BaseId b = 0; b < nbases; ++b) {
      const std::vector<uint32_t> want = naive(batch, b);
      REQUIRE(users.contains(b) == !want.empty());
      if (want.empty()) continue;
      const auto got = users.at(b);
      REQUIRE(std::vector<uint32_t>(got.begin(), got.end()) == want);
    }
  }
}

TEST_CASE("site key: one operation's site, whatever its bases and constants") {
  auto add = [](BaseId out, BaseId in, double c, int64_t n) {
    Instruction i;
    i.op = Opcode::Add;
    i.out = vec(out, n);
    i.add_input(Operand::of(vec(in, n)));
    i.add_input(Operand::of(Scalar::of_double(DType::Float64, c)));
    return i;
  };
  const uint64_t k = site_key(add(3, 4, 1.0, 10));
  CHECK(k == site_key(add(30, 40, 2.5, 10)));
  CHECK(k != site_key(add(3, 4, 1.0, 11)));
  Instruction mul = add(3, 4, 1.0, 10);
  mul.op = Opcode::Multiply;
  CHECK(k != site_key(mul));
  Instruction shifted = add(3, 4, 1.0, 10);
  shifted.in[0].view.offset = 1;
  CHECK(k != site_key(shifted));
}
