// Fills of a diagonal or a column fold into their array's full shape
// (rewrite/fill_fold.hpp).
#include "rewrite/fill_fold.hpp"

#include <algorithm>
#include <utility>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {
namespace {

// The fill's line inside W, as in the header: row a, column b, one row
// further and d columns over per element, L elements.
struct Line {
  int64_t a = 0, b = 0, d = 0, L = 0;
};

bool is_fill(const Instruction& in) {
  return in.op == Opcode::Identity && in.nin == 1 && in.in[0].is_const && in.out.rank() == 1 &&
         in.out.nelem() > 0 && in.length_class < 0;
}

// W: written whole by an elementwise instruction, rank 2, row-major.
bool is_matrix_producer(const Instruction& p, BaseId base) {
  if (opcode_kind(p.op) != OpKind::Elementwise || !writes_base(p, base) || p.length_class >= 0) return false;
  const View& w = p.out;
  return w.rank() == 2 && w.shape[0] >= 1 && w.shape[1] >= 2 && w.stride[1] == 1 && w.stride[0] == w.shape[1];
}

// Where the fill's view v lies in w, or false when it is not one element
// per row as the header says.
bool line_in(const View& v, const View& w, Line* line) {
  const int64_t n0 = w.shape[0], n1 = w.shape[1], L = v.shape[0];
  int64_t o = v.offset, s = L == 1 ? n1 : v.stride[0];
  if (s == 0) return false;
  if (s < 0) o += (L - 1) * s, s = -s;  // the same elements, ascending
  const int64_t rel = o - w.offset;
  if (rel < 0) return false;
  const int64_t a = rel / n1, b = rel % n1, d = s - n1;
  if (d <= -n1 || d >= n1 || a + L > n0) return false;
  const int64_t last = b + (L - 1) * d;  // the column of the last element
  if (last < 0 || last >= n1) return false;
  *line = {a, b, d, L};
  return true;
}

// The instructions that replace `fill` (the producer's output w): the
// header's where, its temporaries and their frees.
std::vector<Instruction> fold(const Instruction& fill, const View& w, const Line& ln,
                              const std::function<BaseId(DType, int64_t)>& new_temp) {
  const int64_t n0 = w.shape[0], n1 = w.shape[1];
  const Dims shape{n0, n1};
  std::vector<Instruction> out;
  std::vector<View> temps;
  auto temp = [&](DType t) {
    temps.push_back(contiguous_view(new_temp(t, n0 * n1), t, shape));
    return temps.back();
  };
  auto emit = [&](Opcode op, const View& to, std::initializer_list<Operand> ins) {
    Instruction in;
    in.op = op;
    in.out = to;
    for (const Operand& o : ins) in.add_input(o);
    out.push_back(in);
    return to;
  };
  auto i64 = [](int64_t v) { return Operand::of(Scalar::of_int(DType::Int64, v)); };

  const int64_t m = std::max(n0, n1);
  const BaseId r = new_temp(DType::Int64, m);
  const View range = contiguous_view(r, DType::Int64, Dims{m});
  emit(Opcode::Range, range, {});
  View icol = make_view(r, 0, shape, Dims{1, 0}), jrow = make_view(r, 0, shape, Dims{0, 1});
  icol.dtype = jrow.dtype = DType::Int64;

  // j == b + (i - a) d, as j == i d + c0.
  const int64_t c0 = ln.b - ln.a * ln.d;
  Operand col;  // the hit's column in row i
  if (ln.d == 0) {
    col = i64(ln.b);
  } else {
    View id = icol;
    if (ln.d != 1) id = emit(Opcode::Multiply, temp(DType::Int64), {Operand::of(icol), i64(ln.d)});
    col = Operand::of(c0 == 0 ? id : emit(Opcode::Add, temp(DType::Int64), {Operand::of(id), i64(c0)}));
  }
  View hit = emit(Opcode::Equal, temp(DType::Bool), {Operand::of(jrow), col});
  // a <= i < a + L, unless no row outside has its column inside W.
  auto in_w = [&](int64_t j) { return j >= 0 && j < n1; };
  if (ln.a > 0 && (ln.d == 0 || in_w(ln.b - ln.d))) {
    const View ge = emit(Opcode::GreaterEqual, temp(DType::Bool), {Operand::of(icol), i64(ln.a)});
    hit = emit(Opcode::LogicalAnd, temp(DType::Bool), {Operand::of(hit), Operand::of(ge)});
  }
  if (ln.a + ln.L < n0 && (ln.d == 0 || in_w(ln.b + ln.L * ln.d))) {
    const View lt = emit(Opcode::Less, temp(DType::Bool), {Operand::of(icol), i64(ln.a + ln.L)});
    hit = emit(Opcode::LogicalAnd, temp(DType::Bool), {Operand::of(hit), Operand::of(lt)});
  }

  // The constant as `identity` converts it to w's dtype.
  const Scalar& c = fill.in[0].constant;
  Scalar cw;
  if (is_float(c.dtype)) {
    cw = Scalar::of_double(w.dtype, c.f);
  } else if (is_unsigned_int(c.dtype)) {
    cw = Scalar::of_uint(w.dtype, c.u);
  } else {
    cw = Scalar::of_int(w.dtype, c.i);
  }
  emit(Opcode::Where, w, {Operand::of(hit), Operand::of(cw), Operand::of(w)});

  temps.push_back(range);
  for (const View& t : temps) {
    Instruction fr;
    fr.op = Opcode::Free;
    fr.out = contiguous_view(t.base, t.dtype, Dims{t.nelem()});  // (as validation writes a free)
    out.push_back(fr);
  }
  return out;
}

}  // namespace

std::size_t fold_fills(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                       const std::function<BaseId(DType, int64_t)>& new_temp) {
  // Decided on the batch as it is (a flush's hot path: no copy unless a fill
  // folds). A fill's producer is the last earlier instruction touching its
  // base; a fill folded before it counts as the `where` it becomes.
  struct Fold {
    std::size_t at;
    View w;
    Line line;
  };
  std::vector<Fold> folds;
  for (std::size_t j = 0; j < batch.size(); ++j) {
    if (!is_fill(batch[j])) continue;
    const BaseId base = batch[j].out.base;
    std::size_t q = j;
    while (q > 0 && !touches_base(batch[q - 1], base)) --q;
    if (q == 0) continue;  // nothing before it in the batch
    const View* w = nullptr;
    if (!folds.empty() && folds.back().at == q - 1) {
      w = &folds.back().w;
    } else if (is_matrix_producer(batch[q - 1], base)) {
      w = &batch[q - 1].out;
    }
    Line ln;
    if (w != nullptr && line_in(batch[j].out, *w, &ln)) folds.push_back({j, *w, ln});
  }
  if (folds.empty()) return 0;
  std::vector<Instruction> next = take_spare_batch(batch.size() + 8 * folds.size());
  std::vector<uint64_t> next_origin;
  next_origin.reserve(next.capacity());
  std::size_t f = 0;
  for (std::size_t j = 0; j < batch.size(); ++j) {
    if (f < folds.size() && folds[f].at == j) {
      for (Instruction& r : fold(batch[j], folds[f].w, folds[f].line, new_temp)) {
        next.push_back(std::move(r));
        next_origin.push_back(origin[j]);
      }
      ++f;
      continue;
    }
    next.push_back(std::move(batch[j]));
    next_origin.push_back(origin[j]);
  }
  replace_batch(batch, std::move(next));
  origin = std::move(next_origin);
  return folds.size();
}

uint64_t run_fold_fills(RewriteBatch& batch, RewriteContext& ctx) {
  return fold_fills(batch.instrs, batch.origin, ctx.new_temp);
}

}  // namespace arrvm
