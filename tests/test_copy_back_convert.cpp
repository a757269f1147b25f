// A converting copy-back renamed in its batch (rewrite/copy_back.hpp, "In
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

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
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
               {"passes", s.rename ? "default" : "-copy-rename"},
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
  r.renamed = p.pass("copy-rename");
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

namespace {

// One random converting copy-back: a board G of rank 1-3, a box V of more
// than half of it, W (another dtype) computed from a view of G shifted
// from V by one along an axis with room (or from V itself when none has
// room), copied into V, then reads and writes of G before W's free.
struct Draw {
  Shape shape;
  std::vector<int64_t> lo, size;
  int axis = -1;  // the shift's axis, -1: W reads V itself
  int64_t step = 0;
  DType g_dtype = DType::Float64, w_dtype = DType::Bool;
  int after = 0;  // 0: nothing, 1: G written at its first element, 2: G read into a total
  bool keep_w = false;
  int sweeps = 3;
};

Draw draw(std::mt19937_64& rng) {
  Draw d;
  const int rank = 1 + static_cast<int>(rng() % 3);
  int64_t total = 1, box = 1;
  do {
    d.shape.assign(static_cast<std::size_t>(rank), 0);
    d.lo.assign(static_cast<std::size_t>(rank), 0);
    d.size.assign(static_cast<std::size_t>(rank), 0);
    total = 1;
    box = 1;
    for (int a = 0; a < rank; ++a) {
      const int64_t e = 1 + static_cast<int64_t>(rng() % (rank == 1 ? 9 : 5));
      const int64_t s = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(e));
      d.shape[a] = e;
      d.size[a] = s;
      d.lo[a] = static_cast<int64_t>(rng() % static_cast<uint64_t>(e - s + 1));
      total *= e;
      box *= s;
    }
  } while (2 * box <= total);
  std::vector<std::pair<int, int64_t>> room;
  for (int a = 0; a < rank; ++a) {
    if (d.lo[a] > 0) room.emplace_back(a, -1);
    if (d.lo[a] + d.size[a] < d.shape[a]) room.emplace_back(a, 1);
  }
  if (!room.empty()) std::tie(d.axis, d.step) = room[rng() % room.size()];
  const DType g[] = {DType::Float64, DType::Float32, DType::Int32};
  const DType w[] = {DType::Bool, DType::Float64, DType::Float32, DType::Int32, DType::Int64};
  d.g_dtype = g[rng() % 3];
  do d.w_dtype = w[rng() % 5];
  while (d.w_dtype == d.g_dtype);
  d.after = static_cast<int>(rng() % 3);
  d.keep_w = rng() % 5 == 0;
  d.sweeps = 1 + static_cast<int>(rng() % 3);
  return d;
}

struct RandomResult {
  std::vector<uint8_t> bytes;
  uint64_t renamed = 0;
};

RandomResult run_draw(const Draw& d, const std::string& backend, bool rename, const std::string& dir) {
  const Vm vm({{"backend", backend},
               {"fuser", "greedy"},
               {"passes", rename ? "default" : "-copy-rename"},
               {"cache_dir", dir}});
  int64_t total = 1;
  for (int64_t e : d.shape) total *= e;
  std::vector<double> host(static_cast<std::size_t>(total));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>((i * 7) % 11) - 3.5;
  const Array g = Array::from_host(host, d.shape, vm).astype(d.g_dtype);
  std::vector<Index> box, shifted;
  for (std::size_t a = 0; a < d.shape.size(); ++a) {
    box.emplace_back(Slice(d.lo[a], d.lo[a] + d.size[a]));
    const int64_t s = static_cast<int>(a) == d.axis ? d.step : 0;
    shifted.emplace_back(Slice(d.lo[a] + s, d.lo[a] + s + d.size[a]));
  }
  Array total_read = Array::zeros({}, DType::Float64, vm);
  std::vector<Array> kept;
  for (int k = 0; k < d.sweeps; ++k) {
    {
      const Array src = g.index(shifted).astype(DType::Float64);
      // (No astype to float64 of a float64: that copy is itself a copy-back
      // the padding renames, and this test counts the converting ones.)
      const Array f = src * 1.5 - 0.25;
      Array w = d.w_dtype == DType::Bool ? src > 0.5 : d.w_dtype == DType::Float64 ? f : f.astype(d.w_dtype);
      Array v = g.index(box);
      v.assign(w);
      if (d.after == 1) g.index(std::vector<Index>(d.shape.size(), Index(0))) = 2.0;
      if (d.after == 2) total_read += g.astype(DType::Float64).sum();
      if (d.keep_w) kept.push_back(w);
    }
  }
  RandomResult r;
  std::vector<double> out = g.astype(DType::Float64).to_vector<double>();
  out.push_back(total_read.item<double>());
  for (const Array& k : kept) {
    const std::vector<double> v = k.astype(DType::Float64).to_vector<double>();
    out.insert(out.end(), v.begin(), v.end());
  }
  r.bytes.resize(out.size() * sizeof(double));
  std::memcpy(r.bytes.data(), out.data(), r.bytes.size());
  r.renamed = vm.runtime().profile().pass("copy-rename");
  return r;
}

}  // namespace

TEST_CASE(
    "copy-back: random converting copies into boxes of 1-3-D boards read the same with the rename as "
    "without") {
  const cputest::TempDir dir;
  const int draws = std::getenv("ARRVM_TEST_FULL") != nullptr ? 400 : 60;
  int renamed_draws = 0;
  for (int seed = 0; seed < draws; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919 + 1);
    const Draw d = draw(rng);
    CAPTURE(seed);
    CAPTURE(d.axis);
    CAPTURE(d.keep_w);
    CAPTURE(d.after);
    CAPTURE(d.sweeps);
    CAPTURE(d.shape.size());
    const RandomResult want = run_draw(d, "ref", false, dir.path());
    const std::string backend = seed % 3 == 0 ? "cpu" : "ref";
    CAPTURE(backend);
    const RandomResult got = run_draw(d, backend, true, dir.path());
    CHECK(got.bytes == want.bytes);
    // Renamed exactly when W reads G around the box and is freed in its
    // batch (the board is the VM's, the box more than half of it).
    const bool expect = d.axis >= 0 && !d.keep_w;
    CHECK(got.renamed == (expect ? static_cast<uint64_t>(d.sweeps) : 0u));
    renamed_draws += expect ? 1 : 0;
  }
  CHECK(renamed_draws >= draws / 3);  // the draws do exercise the rename
}
