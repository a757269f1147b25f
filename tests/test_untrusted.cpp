// Untrusted input: sizes, the caches, the compiler, threads, failures. Each
// case is a reproducer of an attack or a careless use that once crashed,
// hung or ran planted code; its defined outcome is a clear error or the
// right result, no signal, no hang (docs/semantics.md, "Limits" and "The
// caches").
#include <arrvm/arrvm.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arrvm/arrvm.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cache/disk_entry.hpp"
#include "cache/merge_cache.hpp"
#include "engine/fusion_stage.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/merge_cache_test_util.hpp"
#include "vm/error.hpp"
#include "vm/size.hpp"
#include "vm/trace.hpp"

namespace fs = std::filesystem;
using arrvm::Array;
using arrvm::DType;

namespace {

std::string last_error() {
  return arrvm_last_error();
}

struct CVm {
  arrvm_vm* vm = nullptr;
  explicit CVm(const std::string& options) {
    REQUIRE_MESSAGE(arrvm_vm_create(options.c_str(), &vm) == ARRVM_OK, last_error());
  }
  ~CVm() { arrvm_vm_destroy(vm); }
  CVm(const CVm&) = delete;
  CVm& operator=(const CVm&) = delete;
};

struct Handle {
  arrvm_array* a = nullptr;
  Handle() = default;
  ~Handle() { arrvm_release(a); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The VM still computes: [1,2,3] * 2.
void check_usable(arrvm_vm* vm) {
  Handle x, y;
  const int64_t n = 3;
  const double in[3] = {1, 2, 3};
  REQUIRE(arrvm_from_host(vm, ARRVM_FLOAT64, 1, &n, in, &x.a) == ARRVM_OK);
  REQUIRE(arrvm_empty(vm, ARRVM_FLOAT64, 1, &n, &y.a) == ARRVM_OK);
  const arrvm_operand ops[2] = {arrvm_arr(x.a), arrvm_const_f64(ARRVM_FLOAT64, 2.0)};
  REQUIRE_MESSAGE(arrvm_issue(vm, ARRVM_OP_MULTIPLY, y.a, 2, ops, 0, 0) == ARRVM_OK, last_error());
  double out[3] = {0, 0, 0};
  REQUIRE_MESSAGE(arrvm_copy_out(y.a, out, sizeof out) == ARRVM_OK, last_error());
  CHECK(out[0] == 2.0);
  CHECK(out[2] == 6.0);
}

const char* const kBackends[] = {"ref", "cpu", "opencl"};

std::string write_script(const cputest::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// y = x * 10 over 100 elements of 10.0 on a cpu VM with a disk cache in
// `dir`; returns y[0] (100.0 when nothing planted runs).
double cpu_hundred(const std::string& dir) {
  arrvm::Vm vm({{"backend", "cpu"}, {"cache", "on"}, {"cache_dir", dir}, {"log", "warn"}});
  const Array x = Array::full({100}, 10.0, DType::Float64, vm);
  const Array y = x * 10.0;
  return y.to_vector<double>()[0];
}

std::vector<fs::path> kernel_entries(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".kernel") out.push_back(e.path());
  }
  return out;
}

}  // namespace

// ---- 1. sizes ----

TEST_CASE("untrusted: a base whose byte size overflows is rejected at creation, on every backend") {
  for (const char* backend : kBackends) {
    INFO("backend " << backend);
    CVm vm(std::string("backend=") + backend);
    Handle a;
    const int64_t huge = int64_t{1} << 61;  // 2^64 bytes of float64: wraps to 0
    CHECK(arrvm_empty(vm.vm, ARRVM_FLOAT64, 1, &huge, &a.a) == ARRVM_ERR_INVALID);
    CHECK_MESSAGE(contains(last_error(), "exceeds the limit"), last_error());
    CHECK(a.a == nullptr);
    const int64_t square[2] = {int64_t{1} << 32, int64_t{1} << 32};
    CHECK(arrvm_empty(vm.vm, ARRVM_FLOAT64, 2, square, &a.a) == ARRVM_ERR_INVALID);
    check_usable(vm.vm);
  }
}

TEST_CASE("untrusted: a base at the limit that memory cannot hold is out of memory, not a crash") {
  for (const char* backend : kBackends) {
    INFO("backend " << backend);
    CVm vm(std::string("backend=") + backend);
    Handle a, v;
    const int64_t n = arrvm::kMaxBaseBytes / 8;  // exactly the limit: allowed, cannot be had
    REQUIRE_MESSAGE(arrvm_empty(vm.vm, ARRVM_FLOAT64, 1, &n, &a.a) == ARRVM_OK, last_error());
    const int64_t shape = 1000, stride = 1;
    REQUIRE(arrvm_view(a.a, 5, 1, &shape, &stride, &v.a) == ARRVM_OK);
    REQUIRE_MESSAGE(arrvm_assign(v.a, arrvm_const_f64(ARRVM_FLOAT64, 42.0)) == ARRVM_OK, last_error());
    std::vector<double> out(1000);
    CHECK(arrvm_copy_out(v.a, out.data(), out.size() * sizeof(double)) == ARRVM_ERR_NOMEM);
    CHECK_MESSAGE(contains(last_error(), "memory allocating 1407374883553"), last_error());
    check_usable(vm.vm);
  }
}

TEST_CASE("untrusted: ARRVM_MEM_LIMIT bounds what a host backend allocates (ARRVM_ERR_NOMEM)") {
  for (const char* backend : {"ref", "cpu"}) {
    INFO("backend " << backend);
    CVm vm(std::string("backend=") + backend + " mem_limit=1M");
    Handle a;
    const int64_t n = 1 << 18;  // 2 MiB of float64
    REQUIRE(arrvm_empty(vm.vm, ARRVM_FLOAT64, 1, &n, &a.a) == ARRVM_OK);
    REQUIRE(arrvm_assign(a.a, arrvm_const_f64(ARRVM_FLOAT64, 1.0)) == ARRVM_OK);
    std::vector<double> out(static_cast<std::size_t>(n));
    CHECK(arrvm_copy_out(a.a, out.data(), out.size() * sizeof(double)) == ARRVM_ERR_NOMEM);
    CHECK_MESSAGE(contains(last_error(), "ARRVM_MEM_LIMIT"), last_error());
    check_usable(vm.vm);  // small arrays still fit
  }
}

TEST_CASE("untrusted: a view of more elements than the limit is rejected when issued") {
  CVm vm("backend=ref");
  Handle a, v;
  const int64_t one = 1;
  REQUIRE(arrvm_empty(vm.vm, ARRVM_FLOAT64, 1, &one, &a.a) == ARRVM_OK);
  const int64_t shape = arrvm::kMaxElements + 1, stride = 0;  // a broadcast of one element
  CHECK(arrvm_view(a.a, 0, 1, &shape, &stride, &v.a) == ARRVM_ERR_INVALID);
  CHECK_MESSAGE(contains(last_error(), "more than the limit"), last_error());
  check_usable(vm.vm);
}

TEST_CASE("untrusted: a trace declaring a base past the limit is refused with its line") {
  cputest::TempDir dir;
  const std::string trace = dir.file("huge.trace");
  std::ofstream(trace) << "{\"arrvm_trace\": 1}\n"
                       << "{\"base\":0,\"dtype\":\"float64\",\"nelem\":2305843009213693952}\n";
  arrvm::TraceReader reader(trace);
  arrvm::TraceEvent ev;
  try {
    while (reader.next(&ev)) {
    }
    FAIL("the trace was accepted");
  } catch (const arrvm::Error& e) {
    const std::string msg = e.what();
    CHECK_MESSAGE(contains(msg, "exceeds the limit"), msg);
    CHECK_MESSAGE(contains(msg, ":2:"), msg);
  }
}

// ---- 2-4. the caches ----

TEST_CASE("untrusted: a planted kernel runs only from a directory this user alone can write") {
  cputest::TempDir root;
  const std::string dir = root.file("cache");
  REQUIRE(cpu_hundred(dir) == 100.0);
  const std::vector<fs::path> files = kernel_entries(dir);
  REQUIRE(files.size() >= 1);
  // Forge every entry: the same key, a shared object whose kernel does
  // nothing (y stays 0), and a checksum recomputed as anyone can.
  const std::string src = root.file("planted.c");
  for (const fs::path& f : files) {
    std::string data;
    REQUIRE(arrvm::read_whole_file(f.string(), &data));
    std::size_t pos = 9;  // "ARRVMKC1\n"
    uint64_t klen = 0;
    REQUIRE(arrvm::get_u64(data, &pos, &klen));
    const std::string key = data.substr(pos, klen);
    const std::string symbol = key.substr(key.rfind("symbol=") + 7);
    std::ofstream(src) << "void " << symbol << "(void** p, const long* a, const unsigned long* c) {}\n";
    const std::string so = root.file("planted.so");
    REQUIRE(std::system(("cc -shared -fPIC -o " + so + " " + src).c_str()) == 0);
    std::string object;
    REQUIRE(arrvm::read_whole_file(so, &object));
    REQUIRE(arrvm::write_disk_entry(f.string(), "ARRVMKC1\n", key, object));
  }
  // The checksum cannot tell: in a directory only this user can write, the
  // planted code is this user's own (the trust model says so) and runs.
  CHECK(cpu_hundred(dir) != 100.0);
  // Writable by others, or owned by someone else (root can make it so): the
  // directory (a copy of the forged one each time) is refused and the
  // kernels are compiled afresh in memory.
  struct Case {
    const char* name;
    fs::perms perms;
    bool other_owner;
    const char* why;
  };
  const Case cases[] = {{"world", fs::perms::owner_all | fs::perms::others_write, false, "writable by"},
                        {"group", fs::perms::owner_all | fs::perms::group_write, false, "writable by"},
                        {"other", fs::perms::owner_all, true, "owned by uid 65534"}};
  for (const Case& c : cases) {
    if (c.other_owner && geteuid() != 0) continue;  // (only root can give a directory away)
    INFO("case " << c.name);
    const std::string copy = root.file(c.name);
    fs::copy(dir, copy, fs::copy_options::recursive);
    fs::permissions(copy, c.perms);
    if (c.other_owner) REQUIRE(chown(copy.c_str(), 65534, 65534) == 0);
    mc_test::LogCapture log;
    CHECK(cpu_hundred(copy) == 100.0);
    CHECK_MESSAGE(contains(log.text(), "not using the cache directory " + copy), log.text());
    CHECK(contains(log.text(), c.why));
    CHECK(contains(log.text(), "stays in memory"));
  }
}

TEST_CASE("untrusted: a cache directory is created 0700, and HOME unset gives a per-user directory") {
  cputest::TempDir root;
  const std::string dir = root.file("a/b/cache");
  std::string why;
  REQUIRE(arrvm::trusted_cache_dir(dir, &why) == dir);
  for (const std::string& d : {root.file("a"), root.file("a/b"), dir}) {
    struct stat st {};
    REQUIRE(stat(d.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
  const std::string file = root.file("plain");
  std::ofstream(file) << "x";
  CHECK(arrvm::trusted_cache_dir(file, &why).empty());
  CHECK(why == "it is not a directory");
  // No home: a directory of this user's own in TMPDIR, never one shared by all.
  const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  const std::string xdg = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  const std::string tmp = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
  const std::string set = std::getenv("ARRVM_CACHE_DIR") ? std::getenv("ARRVM_CACHE_DIR") : "";
  unsetenv("ARRVM_CACHE_DIR");
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  setenv("TMPDIR", root.path().c_str(), 1);
  const std::string fallback = arrvm::Config::from_env().cache_dir;
  if (!home.empty()) setenv("HOME", home.c_str(), 1);
  if (!xdg.empty()) setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  if (!set.empty()) setenv("ARRVM_CACHE_DIR", set.c_str(), 1);
  if (tmp.empty()) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", tmp.c_str(), 1);
  }
  CHECK(fallback == root.file("arrvm-cache-" + std::to_string(geteuid())));
}

TEST_CASE("untrusted: symlinks planted at a cache file's names are never followed") {
  cputest::TempDir dir;
  const std::string victim = dir.file("victim");
  std::ofstream(victim) << "precious";
  fs::permissions(victim, fs::perms::owner_read | fs::perms::owner_write);
  const std::string entry = dir.file("entry");
  // Every temporary name this process can use next (the counter starts at 0).
  for (int k = 0; k < 4096; ++k) {
    fs::create_symlink(victim, entry + ".tmp." + std::to_string(getpid()) + "." + std::to_string(k));
  }
  CHECK_FALSE(arrvm::write_file_atomically(entry, "cache entry"));
  CHECK(mc_test::read_all(victim) == "precious");
  CHECK_FALSE(fs::exists(entry));
  // A symlink at the entry's own name is replaced, not written through.
  const std::string entry2 = dir.file("entry2");
  fs::create_symlink(victim, entry2);
  std::string blob;
  CHECK(arrvm::read_disk_entry(entry2, "M\n", "key", &blob) == arrvm::DiskEntry::Corrupt);
  CHECK_FALSE(fs::exists(fs::symlink_status(entry2)));  // the link (not the victim) removed
  CHECK(mc_test::read_all(victim) == "precious");
}

TEST_CASE("untrusted: a FIFO, /dev/zero or an oversized file at an entry's name is refused at once") {
  cputest::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::string blob;
  const auto start = std::chrono::steady_clock::now();
  CHECK(arrvm::read_disk_entry(fifo, "M\n", "key", &blob) == arrvm::DiskEntry::Corrupt);
  const std::string zero = dir.file("zero");
  fs::create_symlink("/dev/zero", zero);
  CHECK(arrvm::read_disk_entry(zero, "M\n", "key", &blob) == arrvm::DiskEntry::Corrupt);
  CHECK(seconds_since(start) < 5.0);
  CHECK_FALSE(fs::exists(fs::symlink_status(fifo)));
  const std::string big = dir.file("big");
  { std::ofstream out(big); }
  fs::resize_file(big, arrvm::kMaxCacheFileBytes + 1);  // sparse: no disk used
  CHECK(arrvm::read_cache_file(big, &blob) == arrvm::DiskEntry::Corrupt);
  const std::string shared = dir.file("shared");
  std::ofstream(shared) << "x";
  fs::permissions(shared, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_write);
  CHECK(arrvm::read_cache_file(shared, &blob) == arrvm::DiskEntry::Corrupt);
  fs::permissions(shared, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(arrvm::read_cache_file(shared, &blob) == arrvm::DiskEntry::Hit);
  CHECK(blob == "x");
}

// ---- 5. the compiler ----

TEST_CASE("untrusted: a compiler that never exits is killed at ARRVM_COMPILE_TIMEOUT") {
  cputest::TempDir dir;
  const std::string cc = write_script(dir, "hang-cc", "sleep 600");
  arrvm::Vm vm({{"backend", "cpu"}, {"cache", "off"}, {"cc", cc}, {"compile_timeout", "1"}, {"log", "off"}});
  const auto start = std::chrono::steady_clock::now();
  const Array y = Array::full({8}, 1.0, DType::Float64, vm) + 1.0;
  try {
    y.to_vector<double>();
    FAIL("the hung compile returned");
  } catch (const arrvm::BackendError& e) {
    CHECK_MESSAGE(contains(e.what(), "ARRVM_COMPILE_TIMEOUT=1"), e.what());
  }
  CHECK(seconds_since(start) < 20.0);
}

TEST_CASE("untrusted: a compiler's child holding the output pipe does not keep the VM waiting") {
  cputest::TempDir dir;
  const std::string cc = write_script(dir, "cc-with-child", "(sleep 600) &\nexec cc \"$@\"");
  arrvm::Vm vm({{"backend", "cpu"}, {"cache", "off"}, {"cc", cc}, {"log", "off"}});
  const auto start = std::chrono::steady_clock::now();
  const Array y = Array::full({8}, 1.0, DType::Float64, vm) + 1.0;
  CHECK(y.to_vector<double>()[7] == 2.0);
  CHECK(seconds_since(start) < 60.0);
}

TEST_CASE("untrusted: a compiler's output is capped in the error, and ARRVM_CFLAGS is not shell-expanded") {
  cputest::TempDir dir;
  // 50 MB of output, then failure.
  const std::string loud = write_script(dir, "loud-cc", "head -c 50000000 /dev/zero | tr '\\0' x\nexit 1");
  {
    arrvm::Vm vm({{"backend", "cpu"}, {"cache", "off"}, {"cc", loud}, {"log", "off"}});
    const Array y = Array::full({8}, 1.0, DType::Float64, vm) + 1.0;
    try {
      y.to_vector<double>();
      FAIL("the failing compile returned");
    } catch (const arrvm::BackendError& e) {
      CHECK(std::string(e.what()).size() < 300000);
      CHECK_MESSAGE(contains(e.what(), "bytes of output omitted"), std::string(e.what()).substr(0, 300));
    }
  }
  const std::string marker = dir.file("expanded");
  arrvm::Vm vm({{"backend", "cpu"},
                {"cache", "off"},
                {"cflags", "-O1 -DUNUSED=$(touch${IFS}" + marker + ")"},
                {"log", "off"}});
  const Array y = Array::full({8}, 1.0, DType::Float64, vm) + 1.0;
  CHECK(y.to_vector<double>()[0] == 2.0);  // the word reached the compiler as it is
  CHECK_FALSE(fs::exists(marker));
}

// ---- 6. the merge cache ----

TEST_CASE("untrusted: a forged partition under the current rules stamp is checked, dropped and recomputed") {
  arrvm::configure_logging("warn");  // (earlier cases turned it off)
  cputest::TempDir dir;
  const arrvm::Config config = mc_test::cache_config(dir.path());
  const auto batch = mc_test::shifted_read(2);  // two instructions that must not share a kernel
  const arrvm::MergeKey k = mc_test::key_of(batch, config.fuser, config.cost);
  const uint64_t stamp = arrvm::FusionStage(config).cache().rules_id();  // this build's
  // Two forgeries: the pair in one kernel (not fusible), and the two blocks
  // in the wrong order (the read runs before the write it depends on).
  for (const std::vector<arrvm::Block>& blocks : {std::vector<arrvm::Block>{{0, 1}}, {{1}, {0}}}) {
    CAPTURE(blocks.size());
    {
      arrvm::MergeCache cache(arrvm::CacheMode::On, dir.path(), stamp);
      arrvm::Partition forged;
      forged.blocks = blocks;
      cache.put(k, forged, false);
    }
    mc_test::LogCapture log;
    arrvm::FusionStage s(config);
    arrvm::Profile p;
    const arrvm::Partition got = s.partition(batch, p);
    CHECK(got.blocks.size() == 2);
    CHECK(mc_test::legality(batch, got).empty());
    CHECK(p.merge_cache_rejected == 1);
    CHECK(contains(log.text(), "illegal partition"));
    CHECK(contains(log.text(), blocks.size() == 1 ? "fuse-preventing" : "goes from block 1 back to block 0"));
  }
}

// ---- 7. OpenCL VMs made in threads at once ----

TEST_CASE("untrusted: OpenCL VMs created in several threads at once all work") {
  constexpr int kThreads = 8;
  std::vector<double> got(kThreads, -1.0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &got, &errors] {
      try {
        arrvm::Vm vm({{"backend", "opencl"}, {"cache", "memory"}, {"log", "off"}});
        const Array y = Array::full({64}, static_cast<double>(t), DType::Float64, vm) * 2.0;
        got[t] = y.to_vector<double>()[63];
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t << ": " << errors[t]);
    CHECK(got[t] == 2.0 * t);
  }
}

// ---- 9. poisoning per result, whatever the fuser ----

TEST_CASE("untrusted: a failing gather poisons what depends on it, never an unrelated result") {
  for (const char* backend : kBackends) {
    for (const char* fuser : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
      INFO("backend " << backend << ", fuser " << fuser);
      arrvm::Vm vm({{"backend", backend}, {"fuser", fuser}, {"cache", "memory"}, {"log", "off"}});
      const Array a = Array::from_host(std::vector<double>{1, 2, 3, 4, 5}, vm);
      const Array idx = Array::from_host(std::vector<int64_t>{0, 1, 2, 3, 9}, vm);
      const Array g = a.take(idx);
      const Array dep = g + 1.0;
      const Array indep = a * 10.0;
      vm.flush();
      CHECK(indep.to_vector<double>() == std::vector<double>{10, 20, 30, 40, 50});
      CHECK_THROWS_WITH_AS(dep.to_vector<double>(), doctest::Contains("out of range"), arrvm::Error);
      CHECK_THROWS_AS(g.to_vector<double>(), arrvm::Error);
      // The VM goes on.
      CHECK((a + 1.0).to_vector<double>() == std::vector<double>{2, 3, 4, 5, 6});
    }
  }
}
