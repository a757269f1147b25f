// The opencl backend's programs and memory: reuse at another size (sizes,
// offsets and strides are launch arguments), the program-binary cache on
// disk (a new Runtime and a second process build nothing; corrupt entries
// are rebuilt; modes memory/off write nothing), build failures carry the
// build log, device selection and its errors (also with no OpenCL platform
// at all), and memory that stays on the device: a 20-iteration heat
// equation moves its grid to the device once and back once.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/opencl/opencl_backend.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "engine/runtime.hpp"
#include "tests/opencl_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

View vec(BaseId b, DType t, int64_t off, int64_t n, int64_t step) {
  View v;
  v.base = b;
  v.dtype = t;
  v.offset = off;
  v.shape = Dims{n};
  v.stride = Dims{step};
  return v;
}

View mat(BaseId b, DType t, int64_t off, int64_t rows, int64_t cols, int64_t row_stride) {
  View v;
  v.base = b;
  v.dtype = t;
  v.offset = off;
  v.shape = Dims{rows, cols};
  v.stride = Dims{row_stride, 1};
  return v;
}

Instruction make(Opcode op, const View& out, std::vector<Operand> ins) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : ins) i.add_input(o);
  return i;
}

// x = range(2n) as float64; t = x[off::2] * 3 (a temporary, freed);
// y = t + 0.5; returns y. Expected: y[i] = (off + 2i) * 3 + 0.5.
std::vector<double> program(Runtime& rt, int64_t n, int64_t off) {
  const DType f = DType::Float64;
  const BaseId x = rt.new_base(f, 2 * n + off);
  const BaseId t = rt.new_base(f, n);
  const BaseId y = rt.new_base(f, n);
  rt.issue(make(Opcode::Range, vec(x, f, 0, 2 * n + off, 1), {}));
  rt.issue(make(Opcode::Multiply, vec(t, f, 0, n, 1),
                {Operand::of(vec(x, f, off, n, 2)), Operand::of(Scalar::of_double(f, 3.0))}));
  rt.issue(make(Opcode::Add, vec(y, f, 0, n, 1),
                {Operand::of(vec(t, f, 0, n, 1)), Operand::of(Scalar::of_double(f, 0.5))}));
  rt.free_base(t);
  rt.free_base(x);
  std::vector<double> out(static_cast<std::size_t>(n));
  rt.read(y, out.data(), out.size() * sizeof(double));
  rt.free_base(y);
  return out;
}

void check_values(const std::vector<double>& y, int64_t off) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    INFO("i = " << i);
    REQUIRE(y[i] == static_cast<double>(off + 2 * static_cast<int64_t>(i)) * 3 + 0.5);
  }
}

std::vector<std::filesystem::path> cache_files(const std::string& dir) {
  std::vector<std::filesystem::path> v;
  const std::filesystem::path sub = std::filesystem::path(dir) / "opencl";
  if (!std::filesystem::exists(sub)) return v;
  for (const auto& e : std::filesystem::directory_iterator(sub)) v.push_back(e.path());
  return v;
}

struct CliResult {
  int code = -1;
  std::string out;
};

CliResult run_cli(const std::string& env, const std::string& args) {
  const std::string cmd =
      "ARRVM_TRACE= ARRVM_PROFILE= ARRVM_LOG=error " + env + " '" + ARRVM_CLI_PATH + "' " + args + " 2>&1";
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Jacobi iterations of the heat equation on an (n+2) x (n+2) float64 grid
// whose top row is 100, `iterations` times without reading anything back
// (with_delta: each iteration also reads max|next - centre|, a 0-d base).
// Returns the grid; *profile gets the VM's counters.
std::vector<double> heat(const std::string& backend, int64_t n, int iterations, bool with_delta,
                         Profile* profile) {
  const DType f = DType::Float64;
  const int64_t w = n + 2;
  Runtime rt(opencltest::config(backend));
  const BaseId grid = rt.new_base(f, w * w);
  std::vector<double> init(static_cast<std::size_t>(w * w), 0.0);
  for (int64_t c = 0; c < w; ++c) init[c] = 100.0;
  rt.write(grid, init.data(), init.size() * 8);
  const View centre = mat(grid, f, w + 1, n, n, w), up = mat(grid, f, 1, n, n, w),
             down = mat(grid, f, 2 * w + 1, n, n, w), left = mat(grid, f, w, n, n, w),
             right = mat(grid, f, w + 2, n, n, w);
  for (int it = 0; it < iterations; ++it) {
    BaseId t[6];
    for (BaseId& b : t) b = rt.new_base(f, n * n);
    auto tv = [&](int k) { return mat(t[k], f, 0, n, n, n); };
    rt.issue(make(Opcode::Add, tv(0), {Operand::of(centre), Operand::of(up)}));
    rt.issue(make(Opcode::Add, tv(1), {Operand::of(tv(0)), Operand::of(down)}));
    rt.issue(make(Opcode::Add, tv(2), {Operand::of(tv(1)), Operand::of(left)}));
    rt.issue(make(Opcode::Add, tv(3), {Operand::of(tv(2)), Operand::of(right)}));
    rt.issue(make(Opcode::Multiply, tv(4), {Operand::of(tv(3)), Operand::of(Scalar::of_double(f, 0.2))}));
    if (with_delta) {
      rt.issue(make(Opcode::Subtract, tv(5), {Operand::of(tv(4)), Operand::of(centre)}));
      rt.issue(make(Opcode::Absolute, tv(5), {Operand::of(tv(5))}));
      const BaseId rows = rt.new_base(f, n), delta = rt.new_base(f, 1);
      Instruction r1 = make(Opcode::MaximumReduce, vec(rows, f, 0, n, 1), {Operand::of(tv(5))});
      r1.axis = 1;
      rt.issue(r1);
      Instruction r2 = make(Opcode::MaximumReduce, View{delta, f, 0, Dims{}, Dims{}},
                            {Operand::of(vec(rows, f, 0, n, 1))});
      r2.axis = 0;
      rt.issue(r2);
      double d = 0;
      rt.read(delta, &d, 8);
      CHECK(d > 0);
      rt.free_base(rows);
      rt.free_base(delta);
    }
    rt.issue(make(Opcode::Identity, centre, {Operand::of(tv(4))}));
    for (BaseId b : t) rt.free_base(b);
  }
  std::vector<double> out(static_cast<std::size_t>(w * w));
  rt.read(grid, out.data(), out.size() * 8);
  *profile = rt.profile();
  return out;
}

}  // namespace

TEST_CASE("opencl: the same block at another size and offset builds no program") {
  cputest::TempDir dir;
  Runtime rt(opencltest::config("opencl", dir.path()));
  check_values(program(rt, 10, 1), 1);
  const Profile first = rt.profile();
  CHECK(first.kernels_compiled >= 1);
  CHECK(first.arrays_contracted >= 1);  // t lives only in its block: a scalar temporary
  check_values(program(rt, 100000, 3), 3);
  const Profile second = rt.profile();
  CHECK(second.kernels_compiled == first.kernels_compiled);
  CHECK(second.kernel_cache_hits > first.kernel_cache_hits);
  CHECK(second.kernels_launched > first.kernels_launched);
}

TEST_CASE("opencl: the binary cache serves a new Runtime, and a corrupt entry is rebuilt") {
  cputest::TempDir dir;
  {
    Runtime rt(opencltest::config("opencl", dir.path()));
    check_values(program(rt, 50, 0), 0);
    CHECK(rt.profile().kernels_compiled >= 1);
  }
  const std::vector<std::filesystem::path> files = cache_files(dir.path());
  REQUIRE(!files.empty());
  {
    Runtime rt(opencltest::config("opencl", dir.path()));
    check_values(program(rt, 70, 2), 2);
    CHECK(rt.profile().kernels_compiled == 0);
    CHECK(rt.profile().kernel_cache_disk_hits >= 1);
  }
  SUBCASE("truncated") {
    for (const auto& f : files) std::filesystem::resize_file(f, std::filesystem::file_size(f) / 2);
  }
  SUBCASE("overwritten") {
    for (const auto& f : files) {
      const auto size = std::filesystem::file_size(f);
      std::ofstream out(f, std::ios::binary | std::ios::in | std::ios::out);
      out.seekp(static_cast<std::streamoff>(size / 2));
      const std::string junk(64, 'x');
      out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
  }
  SUBCASE("emptied") {
    for (const auto& f : files) std::filesystem::resize_file(f, 0);
  }
  Runtime rt(opencltest::config("opencl", dir.path()));
  check_values(program(rt, 30, 1), 1);
  CHECK(opencl_backend_stats(rt.backend()).corrupt >= 1);
  CHECK(rt.profile().kernels_compiled >= 1);
  CHECK(rt.profile().kernel_cache_disk_hits == 0);
  // The rebuilt entries were written back and are good again.
  Runtime rt2(opencltest::config("opencl", dir.path()));
  check_values(program(rt2, 30, 1), 1);
  CHECK(rt2.profile().kernels_compiled == 0);
}

TEST_CASE("opencl: cache modes memory and off write nothing to the cache directory") {
  for (const char* mode : {"memory", "off"}) {
    cputest::TempDir dir;
    Config c = opencltest::config("opencl", dir.path());
    c.set("cache", mode);
    Runtime rt(c);
    check_values(program(rt, 20, 0), 0);
    check_values(program(rt, 40, 1), 1);
    CHECK(cache_files(dir.path()).empty());
    if (std::string(mode) == "memory") {
      CHECK(rt.profile().kernel_cache_hits >= 1);
    } else {
      CHECK(rt.profile().kernel_cache_hits == 0);
      CHECK(rt.profile().kernels_compiled == rt.profile().kernels_launched);
    }
  }
}

TEST_CASE("opencl: a second process builds no program (binary cache hits)") {
  cputest::TempDir dir;
  const std::string trace = dir.path() + "/p.trace";
  {
    // Record a small program on ref: elementwise, a row reduction, a full
    // reduction, a scan and a gather, each synced with its contents.
    Config c = opencltest::config("ref", dir.path());
    c.trace = trace;
    Runtime rt(c);
    const DType f = DType::Float32;
    const BaseId x = rt.new_base(f, 64), y = rt.new_base(f, 64), s = rt.new_base(f, 8),
                 tot = rt.new_base(f, 1), cs = rt.new_base(f, 64), idx = rt.new_base(DType::Int64, 8),
                 g = rt.new_base(f, 8);
    rt.issue(make(Opcode::Range, vec(x, f, 0, 64, 1), {}));
    rt.issue(make(Opcode::Multiply, vec(y, f, 0, 64, 1),
                  {Operand::of(vec(x, f, 0, 64, 1)), Operand::of(Scalar::of_double(f, 0.5))}));
    Instruction r = make(Opcode::AddReduce, vec(s, f, 0, 8, 1), {Operand::of(mat(y, f, 0, 8, 8, 8))});
    r.axis = 1;
    rt.issue(r);
    Instruction t =
        make(Opcode::AddReduce, View{tot, f, 0, Dims{}, Dims{}}, {Operand::of(vec(y, f, 0, 64, 1))});
    rt.issue(t);
    Instruction a = make(Opcode::AddAccumulate, vec(cs, f, 0, 64, 1), {Operand::of(vec(y, f, 0, 64, 1))});
    rt.issue(a);
    rt.issue(make(Opcode::Range, vec(idx, DType::Int64, 0, 8, 1), {}));
    rt.issue(make(Opcode::Gather, vec(g, f, 0, 8, 1),
                  {Operand::of(vec(y, f, 63, 64, -1)), Operand::of(vec(idx, DType::Int64, 0, 8, 1))}));
    std::vector<float> buf(64);
    for (BaseId b : {y, s, tot, cs, g})
      rt.read(b, buf.data(), static_cast<std::size_t>(rt.bases().find(b)->nelem) * 4);
  }
  const std::string env = "ARRVM_BACKEND=opencl ARRVM_CACHE=on ARRVM_CACHE_DIR='" + dir.path() + "/cache'";
  nlohmann::json profile[2];
  for (int run = 0; run < 2; ++run) {
    const std::string json = dir.path() + "/profile" + std::to_string(run) + ".json";
    const CliResult r = run_cli(env + " ARRVM_PROFILE='" + json + "'", "replay '" + trace + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("verified") != std::string::npos);
    std::ifstream in(json);
    REQUIRE(in);
    profile[run] = nlohmann::json::parse(in);
  }
  INFO(profile[0].dump() << "\n" << profile[1].dump());
  // The first run builds the batches' new kernels (a batch's together, as
  // one program); the second loads every one of them from disk.
  CHECK(profile[0]["kernels"]["compiled"].get<int>() >= 1);
  // Each block is one kernel, all of different structure here.
  CHECK(profile[0]["kernels"]["cache_misses"].get<int>() >= 3);
  CHECK(profile[0]["kernels"]["cache_misses"] == profile[0]["work_blocks"]);
  CHECK(profile[1]["kernels"]["compiled"].get<int>() == 0);
  CHECK(profile[1]["kernels"]["cache_misses"].get<int>() == 0);
  CHECK(profile[1]["kernels"]["cache_disk_hits"].get<int>() ==
        profile[0]["kernels"]["cache_misses"].get<int>());
  CHECK(profile[1]["kernels"]["launched"] == profile[0]["kernels"]["launched"]);
}

TEST_CASE("opencl: a program that does not build is a BackendError with the build log") {
  const opencl::DeviceInfo device = opencl::select_device("");
  cl_int err = CL_SUCCESS;
  opencl::Context context(clCreateContext(nullptr, 1, &device.device, nullptr, nullptr, &err));
  REQUIRE(err == CL_SUCCESS);
  cputest::TempDir dir;
  opencl::ProgramCache cache(opencltest::config("opencl", dir.path()), context.get(), device,
                             "-cl-std=CL1.2");
  Profile profile;
  try {
    cache.get("__kernel void k(__global int* p) { p[0] = undeclared_name; }\n", "k", profile);
    FAIL("no error");
  } catch (const BackendError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("program build failed") != std::string::npos);
    CHECK(e.log().find("undeclared_name") != std::string::npos);  // the compiler's own message
    CHECK(std::string(e.what()).find(e.log()) != std::string::npos);
  }
  CHECK(cache_files(dir.path()).empty());
  // The same cache still builds good programs.
  CHECK(cache.get("__kernel void k(__global int* p) { p[0] = 1; }\n", "k", profile) != nullptr);
  CHECK(profile.kernels_compiled == 2);
}

TEST_CASE("opencl: device selection by index or name, and its errors") {
  const std::vector<opencl::DeviceInfo> devices = opencl::list_devices();
  REQUIRE(!devices.empty());
  const opencl::DeviceInfo& first = devices.front();
  CHECK(opencl::select_device("0:0").name == first.name);
  CHECK(opencl::select_device(first.name.substr(0, 4)).name == first.name);
  for (const char* bad : {"no-such-device", "7:7"}) {
    Config c = opencltest::config("opencl");
    c.opencl_device = bad;
    try {
      Runtime rt(c);
      FAIL("no error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK(msg.find(std::string("ARRVM_OPENCL_DEVICE='") + bad + "'") != std::string::npos);
      CHECK(msg.find(first.name) != std::string::npos);  // the devices are listed
    }
  }
}

TEST_CASE("opencl: without an OpenCL platform, one clear error at start-up") {
  cputest::TempDir dir;
  const std::string trace = dir.path() + "/t.trace";
  {
    Config c = opencltest::config("ref", dir.path());
    c.trace = trace;
    Runtime rt(c);
    const BaseId x = rt.new_base(DType::Int32, 4);
    rt.issue(make(Opcode::Range, vec(x, DType::Int32, 0, 4, 1), {}));
    int32_t buf[4];
    rt.read(x, buf, sizeof buf);
  }
  // ocl-icd finds no driver in an empty vendor directory.
  const std::string env = "OCL_ICD_VENDORS='" + dir.path() + "' ARRVM_CACHE=memory";
  CliResult r = run_cli(env, "info");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("OpenCL: no platform found") != std::string::npos);
  r = run_cli(env, "replay --backend opencl '" + trace + "'");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.find("opencl backend: no OpenCL device found") != std::string::npos);
}

TEST_CASE("opencl: memory stays on the device: a 20-iteration heat equation moves its grid once each way") {
  const int64_t n = 64, grid_bytes = (n + 2) * (n + 2) * 8;
  Profile p, ref_profile;
  const std::vector<double> got = heat("opencl", n, 20, false, &p);
  const std::vector<double> want = heat("ref", n, 20, false, &ref_profile);
  CHECK(got == want);                   // elementwise only: bit for bit
  CHECK(got[(n + 2) + 1 + n / 2] > 0);  // the heat spread from the top row
  CHECK(p.bytes_from_host == static_cast<uint64_t>(grid_bytes));
  CHECK(p.bytes_to_device == static_cast<uint64_t>(grid_bytes));
  CHECK(p.bytes_from_device == static_cast<uint64_t>(grid_bytes));
  CHECK(p.kernels_launched >= 20);
  CHECK(ref_profile.bytes_to_device == 0);  // a host backend moves nothing
  // With a convergence check each iteration, only the 8-byte delta comes back.
  const std::vector<double> got_d = heat("opencl", n, 20, true, &p);
  CHECK(got_d == want);
  CHECK(p.bytes_to_device == static_cast<uint64_t>(grid_bytes));
  CHECK(p.bytes_from_device == static_cast<uint64_t>(grid_bytes + 20 * 8));
}
