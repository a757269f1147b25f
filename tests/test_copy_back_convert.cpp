// A converting copy-back renamed in its batch (engine/copy_back.hpp, "In
// the batch"): Conway's Life written the NumPy way, the next generation a
// bool array copied into the interior of a float (or int) board that the
// bool's expression reads through eight shifted views:
//
//   new = (live >= 2) & (live <= 3) | (dead == 3)   # bool, reads board
//   cells[:] = new                                   # board[1:-1, 1:-1]
//
// With the rename on, every generation's copy writes a fresh board whose
// frame is copied from the old one, so the copy joins the bool's block and
// the bool is never stored; the bytes must be those of the rename off, on
// ref, cpu and opencl. Then the cases that must not rename (the bool kept
// alive, a box of half the board or less, the board on the program's
// memory, a sync between the copy and the bool's free, a bool that reads the
// board only where the copy writes it) and the board
// written or read between the copy and the bool's free, or synced after it.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

enum class Twist {
  None,
  KeepNew,     // the bool kept alive to the end (not freed in its batch)
  SmallBox,    // only board[1:3, 1:-1] copied back (a box of less than half)
  WriteBoard,  // board[0, :] = 7 right after the copy, before the bool's free
  ReadBoard,   // sum(board[:3]) added to a total right after the copy (read back at the end)
  SyncBoard,   // the whole board read back right after the copy (before the bool's free)
  SyncAfter,   // the board itself read back after the bool's free (a sync of G, renamed, in the batch)
  OwnCells,    // cells[:] = ~(cells >= 1): the bool reads the board only through the copy's own box
};

struct Life {
  std::string backend = "ref";
  bool rename = true;
  bool adopted = false;    // the board on the program's memory
  bool sync_each = false;  // the live cells counted (read back) every generation
  DType dtype = DType::Float64;
  Twist twist = Twist::None;
  int gens = 5;
};

struct Result {
  std::vector<double> values;  // board, sums, kept bools, in order
  uint64_t renamed = 0;
  uint64_t kernels = 0;
  uint64_t contracted = 0;
};

void append(std::vector<double>* out, const std::vector<double>& v) {
  out->insert(out->end(), v.begin(), v.end());
}

Result run(const Life& s, const std::string& dir) {
  const Vm vm({{"backend", s.backend},
               {"fuser", "greedy"},
               {"copy_rename", s.rename ? "on" : "off"},
               {"cache_dir", dir}});
  const int64_t n = 13;
  const Shape shape{n + 2, n + 2};
  std::vector<double> host(static_cast<std::size_t>((n + 2) * (n + 2)), 0.0);
  for (int64_t i = 1; i <= n; ++i) {
    for (int64_t j = 1; j <= n; ++j)
      host[static_cast<std::size_t>(i * (n + 2) + j)] = (i * 7 + j * 3) % 5 < 2;
  }
  std::vector<int32_t> host_i(host.begin(), host.end());
  Array board;
  if (s.dtype == DType::Int32) {
    board = s.adopted ? Array::view_of(host_i.data(), shape, vm) : Array::from_host(host_i, shape, vm);
  } else {
    board = s.adopted ? Array::view_of(host.data(), shape, vm) : Array::from_host(host, shape, vm);
  }
  const Slice inner(1, -1), head({}, -2), tail(2, {}), all;
  Array cells = board(inner, inner);
  const Array ul = board(head, head), um = board(head, inner), ur = board(head, tail);
  const Array ml = board(inner, head), mr = board(inner, tail);
  const Array ll = board(tail, head), lm = board(tail, inner), lr = board(tail, tail);
  Result r;
  std::vector<Array> kept;
  Array total = Array::zeros({}, DType::Float64, vm);
  for (int g = 0; g < s.gens; ++g) {
    {
      const Array neighbours = ul + um + ur + ml + mr + ll + lm + lr;
      const Array live = neighbours * cells;
      const Array next = s.twist == Twist::OwnCells
                             ? ~(cells >= 1)
                             : ((live >= 2) & (live <= 3)) | (neighbours * (cells == 0) == 3);
      if (s.twist == Twist::SmallBox) {
        board(Slice(1, 3), inner).assign(next(Slice(0, 2), all));
      } else {
        cells.assign(next);
      }
      if (s.twist == Twist::KeepNew) kept.push_back(next);
      if (s.twist == Twist::WriteBoard) board(0, all) = 7.0;
      if (s.twist == Twist::ReadBoard) total += board(Slice(0, 3)).astype(DType::Float64).sum();
      if (s.twist == Twist::SyncBoard) append(&r.values, board.astype(DType::Float64).to_vector<double>());
    }  // `next` freed here (C++ scope), after the copy
    if (s.twist == Twist::SyncAfter) {
      if (s.dtype == DType::Int32) {
        const std::vector<int32_t> v = board.to_vector<int32_t>();
        append(&r.values, std::vector<double>(v.begin(), v.end()));
      } else {
        append(&r.values, board.to_vector<double>());
      }
    }
    if (s.sync_each) r.values.push_back(cells.astype(DType::Float64).sum().item<double>());
  }
  r.values.push_back(total.item<double>());
  for (const Array& k : kept) append(&r.values, k.astype(DType::Float64).to_vector<double>());
  kept.clear();
  append(&r.values, board.astype(DType::Float64).to_vector<double>());
  if (s.adopted) {  // the program's memory holds the board
    if (s.dtype == DType::Int32) {
      append(&r.values, std::vector<double>(host_i.begin(), host_i.end()));
    } else {
      append(&r.values, host);
    }
  }
  const Profile& p = vm.runtime().profile();
  r.renamed = p.copies_renamed;
  r.kernels = p.kernels_launched;
  r.contracted = p.arrays_contracted;
  return r;
}

}  // namespace

TEST_CASE(
    "copy-back: Life's bool generation copied into a float or int board renames every copy, same values") {
  const cputest::TempDir dir;
  for (DType dtype : {DType::Float64, DType::Int32}) {
    for (bool sync_each : {false, true}) {
      Life s;
      s.dtype = dtype;
      s.sync_each = sync_each;
      s.rename = false;
      const Result want = run(s, dir.path());
      CHECK(want.renamed == 0);
      // Hand-checked anchor: the values are those of a Life board, not all
      // dead and not all alive (the pattern evolves).
      double alive = 0;
      for (int64_t k = 0; k < 15 * 15; ++k) alive += want.values[want.values.size() - 225 + k];
      CHECK(alive > 0);
      CHECK(alive < 13 * 13);
      s.rename = true;
      for (const char* backend : {"ref", "cpu", "opencl"}) {
        CAPTURE(std::string(dtype_name(dtype)));
        CAPTURE(sync_each);
        CAPTURE(std::string(backend));
        s.backend = backend;
        const Result got = run(s, dir.path());
        CHECK(got.values == want.values);
        CHECK(got.renamed == 5);
        if (std::string(backend) == "cpu") {
          s.rename = false;
          const Result off = run(s, dir.path());
          s.rename = true;
          CHECK(off.values == want.values);
          // The bool joins the copy's block: contracted once a generation,
          // which it is not while the copy writes the board it reads.
          CHECK(got.contracted >= off.contracted + 5);
        }
      }
    }
  }
}

TEST_CASE(
    "copy-back: a converting copy that must not rename, or around which the board is used, reads the same") {
  const cputest::TempDir dir;
  struct Case {
    const char* name;
    Twist twist;
    bool adopted;
    uint64_t renamed;
  };
  const Case cases[] = {
      {"the bool kept alive", Twist::KeepNew, false, 0},
      {"a box of less than half the board", Twist::SmallBox, false, 0},
      {"the board on the program's memory", Twist::None, true, 0},
      // The copy joins the bool's block as it is: a rename would only add
      // the frame's copies.
      {"the bool reads the board only through the copy's box", Twist::OwnCells, false, 0},
      {"the board written after the copy", Twist::WriteBoard, false, 5},
      {"part of the board read after the copy", Twist::ReadBoard, false, 5},
      // The sync flushes the batch before the bool's free: the bool is
      // stored whatever the copy does, and the copy stays a copy.
      {"the board synced after the copy", Twist::SyncBoard, false, 0},
      {"the board synced after the bool's free", Twist::SyncAfter, false, 5},
  };
  for (const Case& c : cases) {
    for (DType dtype : {DType::Float64, DType::Int32}) {
      Life s;
      s.twist = c.twist;
      s.adopted = c.adopted;
      s.dtype = dtype;
      s.rename = false;
      const Result want = run(s, dir.path());
      s.rename = true;
      for (const char* backend : {"ref", "cpu"}) {
        CAPTURE(std::string(c.name));
        CAPTURE(std::string(dtype_name(dtype)));
        CAPTURE(std::string(backend));
        s.backend = backend;
        const Result got = run(s, dir.path());
        CHECK(got.values == want.values);
        CHECK(got.renamed == c.renamed);
      }
    }
  }
}
