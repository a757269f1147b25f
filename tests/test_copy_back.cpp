// Copy-backs made renames (rewrite/copy_back.hpp). Jacobi sweeps written the
// NumPy way (`work = stencil(grid); delta = sum(|work - center|);
// center[:] = work`) in 2-D and 3-D, with the old `work` freed before the
// next sweep (C++ scoping) or after it (Python rebinding), delta read back
// every sweep (a batch a sweep) or never (one batch), must read the
// same bytes with the rename on as off, on ref and cpu, and rename every
// copy from the second on. Then the cases that must not rename or must
// restore the padded array: a write to the grid between the copy and the
// free, `work` read through another view, synced, moved to host memory
// (numpy.asarray), its copy skipped, the grid on the program's memory;
// and random mixes of all of these.
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

// What a sweep does besides the plain loop.
enum class Twist {
  None,
  WriteGrid,  // grid[0, :] = 40 again after the copy-back (a write to G before W's free)
  ReadPart,   // sum(work[1:, :]) (W through another view)
  SyncWork,   // work's values read back (a sync of W)
  AsNumpy,    // work's memory moved to the host (Python's numpy.asarray(work))
  SkipCopy,   // no copy-back this sweep (W freed unrenamed)
  // After the sweep's sync: grid[0, :] = 40, then sum(work) (work, a box of
  // the renamed grid when the copy came before the sync, is copied out first)
  WriteGridAfter,
  GridToHost,  // after the sweep's sync: the grid's memory moved to the host
};

struct Result {
  std::vector<uint8_t> bytes;
  uint64_t renamed = 0;
};

void append(std::vector<uint8_t>* out, const std::vector<double>& v) {
  if (v.empty()) return;  // (memcpy from an empty vector's null data() is undefined)
  const std::size_t at = out->size();
  out->resize(at + v.size() * sizeof(double));
  std::memcpy(out->data() + at, v.data(), v.size() * sizeof(double));
}

struct Sweeps {
  std::string backend = "ref";
  bool rename = true;
  bool early_frees = true;       // the early-frees pass (rewrite/free_hoist.hpp)
  bool python_order = false;     // the old work freed after the next stencil
  bool adopted_grid = false;     // the grid on the program's memory
  bool sync_each = true;         // delta read back every sweep (else all sweeps in one batch)
  bool sync_after_copy = false;  // delta read after the copy-back (`while delta > eps` on a lazy delta)
  int rank = 2;
  std::vector<Twist> twists;  // one per sweep
};

Result run(const Sweeps& s, const std::string& dir) {
  const Vm vm({{"backend", s.backend},
               {"fuser", "greedy"},
               {"passes",
                std::string(s.rename ? "default" : "-copy-rename") + (s.early_frees ? "" : ",-early-frees")},
               {"cache_dir", dir}});
  const Slice inner(1, -1), head({}, -2), tail(2, {}), all;
  Shape shape = s.rank == 2 ? Shape{9 + 2, 12 + 2} : Shape{10 + 2, 9 + 2, 11 + 2};
  int64_t total = 1;
  for (int64_t e : shape) total *= e;
  std::vector<double> host(static_cast<std::size_t>(total));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>((i * 37) % 101) - 50.0;
  Array grid = s.adopted_grid ? Array::view_of(host.data(), shape, vm) : Array::from_host(host, shape, vm);
  Array center, neighbours;
  auto stencil = [&]() {
    if (s.rank == 2) {
      center = grid(inner, inner);
      return 0.2 * (center + grid(head, inner) + grid(inner, tail) + grid(inner, head) + grid(tail, inner));
    }
    center = grid(inner, inner, inner);
    return (center + grid(head, inner, inner) + grid(tail, inner, inner) + grid(inner, head, inner) +
            grid(inner, tail, inner) + grid(inner, inner, head) + grid(inner, inner, tail)) /
           7.0;
  };
  Result r;
  std::vector<double> deltas;
  std::optional<Array> work;  // (Python order: the old one lives until the new one is bound)
  for (std::size_t it = 0; it < s.twists.size(); ++it) {
    const Twist twist = s.twists[it];
    if (s.python_order) {
      Array next = stencil();
      work = next;  // the old work is freed here, after the stencil read the grid
    } else {
      work.reset();
      work = stencil();
    }
    const Array delta = absolute(*work - center).sum();
    if (s.sync_each && !s.sync_after_copy) deltas.push_back(delta.item<double>());
    if (twist == Twist::ReadPart) deltas.push_back((*work)(Slice(1, {})).sum().item<double>());
    if (twist == Twist::SyncWork) append(&r.bytes, work->to_vector<double>());
    if (twist == Twist::AsNumpy) {
      auto* mem = new std::vector<double>(static_cast<std::size_t>(work->size()));
      const bool shared = work->move_base_to_host(mem->data(), [mem](void*) { delete mem; });
      if (shared) append(&r.bytes, *mem);
    }
    if (twist != Twist::SkipCopy) center.assign(*work);
    if (twist == Twist::WriteGrid) grid(0) = 40.0;
    if (s.sync_each && s.sync_after_copy) deltas.push_back(delta.item<double>());
    if (twist == Twist::WriteGridAfter) {
      grid(0) = 40.0;
      deltas.push_back(work->sum().item<double>());
    }
    if (twist == Twist::GridToHost) {
      auto* mem = new std::vector<double>(static_cast<std::size_t>(grid.size()));
      grid.move_base_to_host(mem->data(), [mem](void*) { delete mem; });
    }
  }
  work.reset();
  append(&r.bytes, deltas);
  append(&r.bytes, grid.to_vector<double>());
  if (s.adopted_grid) append(&r.bytes, host);  // the program's memory holds the grid
  r.renamed = vm.runtime().profile().pass("copy-rename");
  return r;
}

std::vector<Twist> plain(int n) {
  return std::vector<Twist>(static_cast<std::size_t>(n), Twist::None);
}

}  // namespace

TEST_CASE("copy-back: Jacobi sweeps rename every copy from the second, the same bytes as without") {
  const cputest::TempDir dir;
  for (int rank : {2, 3}) {
    for (int order = 0; order < 6; ++order) {
      const bool python_order = order % 2 == 1, sync_each = order < 4,
                 sync_after_copy = order >= 2 && order < 4;
      Sweeps s;
      s.rank = rank;
      s.python_order = python_order;
      s.sync_each = sync_each;
      s.sync_after_copy = sync_after_copy;
      s.twists = plain(6);
      s.rename = false;
      const Result want = run(s, dir.path());
      CHECK(want.renamed == 0);
      s.rename = true;
      for (const char* backend : {"ref", "cpu"}) {
        CAPTURE(rank);
        CAPTURE(python_order);
        CAPTURE(sync_each);
        CAPTURE(sync_after_copy);
        CAPTURE(std::string(backend));
        s.backend = backend;
        const Result got = run(s, dir.path());
        CHECK(got.bytes == want.bytes);
        // The first copy teaches the site, the second sweep's work is padded:
        // the copies of sweeps 2..6 become renames.
        CHECK(got.renamed == 5);
      }
    }
  }
}

TEST_CASE("copy-back: what must not rename, or must restore the padded array, reads the same bytes") {
  const cputest::TempDir dir;
  struct Case {
    const char* name;
    Twist twist;
    // Copies renamed of 6 sweeps, the twist at sweep 4 (index 3): [delta
    // read before the copy-back, after it][C++'s free order, Python's].
    uint64_t renamed[2][2];
  };
  // Sweep 4's copy is not renamed when the grid is written before work's
  // free (sweeps 5 and 6 are); work is restored, and its site no longer
  // padded, when it is read another way, synced or moved to the host; a
  // work freed without its copy-back stops the padding too (in Python's
  // order sweep 5's work, freed unread once, is then deferred by
  // rewrite/defer.hpp and recomputed in the next batch, where its site is
  // refused). Delta read after the copy: the copy is renamed at the end of
  // its batch and work is a box of the grid; a write to the grid after the
  // sync copies it out (the padding goes on: the guess was right); the grid moved to the host
  // copies it out and is never renamed again (the program's memory).
  // (early-frees off: the batches keep each twist before work's free, the
  // order these cases are about; the last test case runs them with it on.)
  const Case cases[] = {
      {"write to the grid", Twist::WriteGrid, {{4, 4}, {4, 4}}},
      {"another view of work", Twist::ReadPart, {{2, 2}, {2, 2}}},
      {"sync of work", Twist::SyncWork, {{2, 2}, {2, 2}}},
      {"work to the host", Twist::AsNumpy, {{2, 2}, {2, 2}}},
      {"no copy-back", Twist::SkipCopy, {{2, 2}, {2, 2}}},
      {"write to the grid after the sync", Twist::WriteGridAfter, {{4, 4}, {5, 5}}},
      {"the grid to the host", Twist::GridToHost, {{3, 3}, {3, 3}}},
  };
  for (const Case& c : cases) {
    for (int order = 0; order < 4; ++order) {
      const bool python_order = order % 2 == 1, after = order >= 2;
      Sweeps s;
      s.early_frees = false;
      s.python_order = python_order;
      s.sync_after_copy = after;
      s.twists = plain(6);
      s.twists[3] = c.twist;
      s.rename = false;
      const Result want = run(s, dir.path());
      s.rename = true;
      for (const char* backend : {"ref", "cpu"}) {
        CAPTURE(std::string(c.name));
        CAPTURE(python_order);
        CAPTURE(after);
        CAPTURE(std::string(backend));
        s.backend = backend;
        const Result got = run(s, dir.path());
        CHECK(got.bytes == want.bytes);
        CHECK(got.renamed == c.renamed[after][python_order]);
      }
    }
  }
}

TEST_CASE(
    "copy-back: with early frees, work's free moves up past a write to the grid: that copy renames too") {
  // Delta read before the copy-back: the batch of sweep 4 ends with the
  // copy, work's free and the grid write (the free moved up past the write);
  // the write comes after the free, as in the case "write to the grid after
  // the sync" above, so sweep 4's copy is renamed as well: 5 of 6.
  const cputest::TempDir dir;
  for (const bool python_order : {false, true}) {
    Sweeps s;
    s.python_order = python_order;
    s.twists = plain(6);
    s.twists[3] = Twist::WriteGrid;
    s.rename = false;
    const Result want = run(s, dir.path());
    s.rename = true;
    for (const char* backend : {"ref", "cpu"}) {
      CAPTURE(python_order);
      CAPTURE(std::string(backend));
      s.backend = backend;
      const Result got = run(s, dir.path());
      CHECK(got.bytes == want.bytes);
      CHECK(got.renamed == 5);
    }
  }
}

TEST_CASE("copy-back: a grid on the program's memory is never renamed, and that memory holds the result") {
  const cputest::TempDir dir;
  Sweeps s;
  s.adopted_grid = true;
  s.twists = plain(5);
  s.rename = false;
  const Result want = run(s, dir.path());
  s.rename = true;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(std::string(backend));
    s.backend = backend;
    const Result got = run(s, dir.path());
    CHECK(got.bytes == want.bytes);
    CHECK(got.renamed == 0);
  }
}

TEST_CASE("copy-back: random mixes of sweeps and twists read the same bytes with the rename on and off") {
  const cputest::TempDir dir;
  const int streams = std::getenv("ARRVM_TEST_FULL") != nullptr ? 200 : 40;
  // A twist in about one sweep of three.
  const Twist kinds[] = {Twist::None,     Twist::None,    Twist::None,      Twist::None,
                         Twist::None,     Twist::None,    Twist::None,      Twist::None,
                         Twist::None,     Twist::None,    Twist::WriteGrid, Twist::ReadPart,
                         Twist::SyncWork, Twist::AsNumpy, Twist::SkipCopy,  Twist::WriteGridAfter,
                         Twist::None,     Twist::None,    Twist::WriteGrid, Twist::GridToHost};
  uint64_t renamed = 0;
  int renaming = 0;  // streams with a rename
  for (int seed = 0; seed < streams; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    Sweeps s;
    s.rank = rng() % 3 == 0 ? 3 : 2;
    s.python_order = rng() % 2 == 0;
    s.adopted_grid = rng() % 8 == 0;
    s.sync_each = rng() % 3 != 0;
    s.sync_after_copy = rng() % 2 == 0;
    for (int i = 0, n = 3 + static_cast<int>(rng() % 8); i < n; ++i) s.twists.push_back(kinds[rng() % 20]);
    s.rename = false;
    const Result want = run(s, dir.path());
    s.rename = true;
    s.backend = seed % 4 == 0 ? "cpu" : "ref";
    CAPTURE(seed);
    const Result got = run(s, dir.path());
    CHECK(got.bytes == want.bytes);
    renamed += got.renamed;
    renaming += got.renamed > 0;
  }
  MESSAGE("copies renamed over the random streams: " << renamed << ", in " << renaming << " streams");
  CHECK(renaming * 2 >= streams);  // the mixes do exercise the rename
}

TEST_CASE("copy-back: the host replacing a grid that a live work is a box of copies work out first") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(std::string(backend));
    const Vm vm({{"backend", backend}, {"fuser", "greedy"}, {"cache_dir", dir.path()}});
    const Slice inner(1, -1), head({}, -2), tail(2, {});
    std::vector<double> host(7 * 8);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>(i % 11);
    Array grid = Array::from_host(host, {7, 8}, vm);
    Array center = grid(inner, inner);
    std::optional<Array> work;
    std::vector<double> grid_now;
    // The grid read after each copy-back (as `while delta > eps` syncs):
    // from the second sweep on, work is a box of the renamed grid.
    for (int sweep = 0; sweep < 4; ++sweep) {
      Array next = 0.25 * (grid(head, inner) + grid(tail, inner) + grid(inner, head) + grid(inner, tail));
      work = next;
      center.assign(*work);
      grid_now = grid.to_vector<double>();
    }
    CHECK(vm.runtime().profile().pass("copy-rename") == 3);
    std::vector<double> expect(static_cast<std::size_t>(5 * 6));
    for (std::size_t r = 0; r < 5; ++r) {
      for (std::size_t c = 0; c < 6; ++c) expect[r * 6 + c] = grid_now[(r + 1) * 8 + c + 1];
    }
    const std::vector<double> zeros(host.size(), 0.0);
    vm.runtime().write(grid.base_id(), zeros.data(), zeros.size() * sizeof(double));
    CHECK(work->to_vector<double>() == expect);
    CHECK(grid.to_vector<double>() == zeros);
  }
}

TEST_CASE("copy-back: a copy into a small box of an array (a reflected edge) stays a copy") {
  const cputest::TempDir dir;
  auto edges = [&](const char* backend, bool rename, uint64_t* renamed) {
    const Vm vm(
        {{"backend", backend}, {"passes", rename ? "default" : "-copy-rename"}, {"cache_dir", dir.path()}});
    std::vector<double> host(8 * 9);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>(i % 13) - 6.0;
    Array v = Array::from_host(host, {8, 9}, vm);
    const Slice all;
    for (int step = 0; step < 5; ++step) {
      v(0, all) = -v(1, all);  // shallow_water's reflecting boundary: -v[1] is a new 9-element array
      v(-1, all) = -v(-2, all);
      v *= 0.5;  // (in place: the same base every step, as shallow_water's)
      v.sum().item<double>();
    }
    *renamed = vm.runtime().profile().pass("copy-rename");
    return v.to_vector<double>();
  };
  uint64_t renamed = 0;
  const std::vector<double> want = edges("ref", false, &renamed);
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(std::string(backend));
    CHECK(edges(backend, true, &renamed) == want);
    CHECK(renamed == 0);
  }
}

TEST_CASE("copy-back: a program run twice renames in both runs (the grid freed while work is a box of it)") {
  const cputest::TempDir dir;
  auto twice = [&](const char* backend, bool rename, uint64_t* renamed) {
    const Vm vm(
        {{"backend", backend}, {"passes", rename ? "default" : "-copy-rename"}, {"cache_dir", dir.path()}});
    const Slice inner(1, -1), head({}, -2), tail(2, {});
    std::vector<double> out;
    for (int run = 0; run < 2; ++run) {
      std::optional<Array> work;  // (declared before the grid: freed after it, as Python may)
      std::vector<double> host(8 * 9);
      for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<double>((i * 7) % 17);
      Array grid = Array::from_host(host, {8, 9}, vm);
      Array center = grid(inner, inner);
      for (int sweep = 0; sweep < 6; ++sweep) {
        Array next = 0.25 * (grid(head, inner) + grid(tail, inner) + grid(inner, head) + grid(inner, tail));
        work = next;
        out.push_back(absolute(*work - center).sum().item<double>());
        center.assign(*work);
      }
      out.push_back(
          grid.sum().item<double>());  // the last copy-back renamed at this sync: work is a box of the grid
    }
    *renamed = vm.runtime().profile().pass("copy-rename");
    return out;
  };
  uint64_t renamed = 0;
  const std::vector<double> want = twice("ref", false, &renamed);
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(std::string(backend));
    CHECK(twice(backend, true, &renamed) == want);
    CHECK(renamed == 5 + 6);  // the first run learns at its first copy-back; the second knows the site
  }
}
