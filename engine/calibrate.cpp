#include "engine/calibrate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "cache/disk_entry.hpp"
#include "vm/error.hpp"
#include "vm/log.hpp"
#include "vm/partition.hpp"
#include "vm/profile.hpp"

namespace arrvm {

namespace {

constexpr int kVersion = 1;

// What identifies this machine: host name and CPU model.
std::string host_key() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::ifstream in("/proc/cpuinfo");
  std::string line, model;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') == std::string::npos ? 0 : line.find(':') + 1);
      break;
    }
  }
  return std::string(host) + "|" + model;
}

View whole(BaseId b, DType t, int64_t n) {
  View v = make_view(b, 0, Dims{n}, Dims{1});
  v.dtype = t;
  return v;
}

Instruction instr(Opcode op, const View& out, std::vector<Operand> in = {}) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : in) i.add_input(o);
  return i;
}

Operand of(const View& v) {
  return Operand::of(v);
}
Operand num(double x) {
  return Operand::of(Scalar::of_double(DType::Float64, x));
}

using Clock = std::chrono::steady_clock;

// Seconds of the fastest of `runs` executions of `batch` (one block each
// instruction), after one warm-up (compiling, first-touch allocation).
double best_seconds(Backend& backend, const std::vector<Instruction>& batch, int runs) {
  const Partition p = singleton_partition(batch.size());
  backend.execute(batch, p);
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    backend.execute(batch, p);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

fusion::MachineCosts measure(const Config& config) {
  Config c = config;
  c.backend = "cpu";
  const std::unique_ptr<Backend> be = make_backend(c);
  Profile profile;
  be->attach_profile(&profile);
  const DType f = DType::Float64;
  fusion::MachineCosts m;
  m.source = "measured";

  // Bandwidth: y = x + 1 over 2^23 float64 (64 MiB read, 64 MiB written).
  const int64_t big = int64_t{1} << 23;
  be->declare(0, f, big);
  be->declare(1, f, big);
  be->execute(std::vector<Instruction>{instr(Opcode::Range, whole(0, f, big))}, singleton_partition(1));
  const double stream =
      best_seconds(*be, {instr(Opcode::Add, whole(1, f, big), {of(whole(0, f, big)), num(1.0)})}, 3);
  m.bandwidth = 2.0 * static_cast<double>(big) * 8.0 / stream;

  // Launch: 200 one-instruction kernels on 100 elements, in place.
  const int64_t small = 100;
  be->declare(2, f, small);
  std::vector<Instruction> chain;
  for (int k = 0; k < 200; ++k)
    chain.push_back(instr(Opcode::Multiply, whole(2, f, small), {of(whole(2, f, small)), num(1.0000001)}));
  m.launch_s = best_seconds(*be, chain, 5) / static_cast<double>(chain.size());

  // Compute per element beyond the traffic (2^20 elements: 16 MiB moved).
  const int64_t mid = int64_t{1} << 20;
  be->declare(3, f, mid);
  be->declare(4, f, mid);
  be->execute(std::vector<Instruction>{instr(Opcode::Range, whole(3, f, mid))}, singleton_partition(1));
  const double traffic = 2.0 * static_cast<double>(mid) * 8.0 / m.bandwidth;
  auto per_element = [&](const Instruction& in, double bytes_factor) {
    const double t = best_seconds(*be, {in}, 3) - m.launch_s - traffic * bytes_factor;
    return std::max(0.0, t / static_cast<double>(mid));
  };
  m.element_s[static_cast<int>(fusion::OpClass::Cheap)] =
      per_element(instr(Opcode::Multiply, whole(4, f, mid), {of(whole(3, f, mid)), num(1.5)}), 1.0);
  m.element_s[static_cast<int>(fusion::OpClass::Transcendental)] =
      per_element(instr(Opcode::Exp, whole(4, f, mid), {of(whole(3, f, mid))}), 1.0);
  Instruction rnd = instr(Opcode::Random, whole(4, f, mid));
  rnd.seed = 1;
  m.element_s[static_cast<int>(fusion::OpClass::Random)] = per_element(rnd, 0.5);  // writes only
  for (BaseId b = 0; b <= 4; ++b) be->release(b);
  return m;
}

nlohmann::json to_json(const fusion::MachineCosts& m, const std::string& key) {
  return {{"version", kVersion},
          {"host", key},
          {"bandwidth", m.bandwidth},
          {"launch_s", m.launch_s},
          {"element_s", {m.element_s[0], m.element_s[1], m.element_s[2]}}};
}

// The cached costs of this host, if the file holds them.
bool load(const std::string& path, const std::string& key, fusion::MachineCosts* m) {
  std::string text;
  if (read_cache_file(path, &text) != DiskEntry::Hit) return false;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("version").get<int>() != kVersion || j.at("host").get<std::string>() != key) return false;
    m->bandwidth = j.at("bandwidth").get<double>();
    m->launch_s = j.at("launch_s").get<double>();
    const auto& e = j.at("element_s");
    if (!e.is_array() || e.size() != 3) return false;
    for (int k = 0; k < 3; ++k) m->element_s[k] = e.at(k).get<double>();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  const bool sane = m->bandwidth > 1e6 && m->bandwidth < 1e14 && m->launch_s > 0 && m->launch_s < 1;
  if (!sane) return false;
  m->source = "cache";
  return true;
}

}  // namespace

fusion::MachineCosts load_or_measure_machine_costs(const Config& config) {
  const std::string key = host_key();
  const std::string dir =
      config.cache == CacheMode::On ? open_cache_dir(config.cache_dir, "", "machine cost model") : "";
  const bool on_disk = !dir.empty();
  const std::string path = dir + "/machine-costs.json";
  fusion::MachineCosts costs;
  if (on_disk && load(path, key, &costs)) return costs;
  const auto start = Clock::now();
  costs = measure(config);
  logger().info("machine cost model: measured in {:.2f} s: {:.2f} GB/s, {:.2f} us per launch",
                std::chrono::duration<double>(Clock::now() - start).count(), costs.bandwidth / 1e9,
                costs.launch_s * 1e6);
  if (on_disk) {
    if (!write_file_atomically(path, to_json(costs, key).dump(2) + "\n")) {
      logger().warn("machine cost model: could not write {}", path);
    }
  }
  return costs;
}

fusion::MachineCosts calibrated_machine_costs(const Config& config) {
  static std::mutex mutex;
  static bool have = false;
  static fusion::MachineCosts costs;
  std::lock_guard<std::mutex> lock(mutex);
  if (!have) {
    costs = load_or_measure_machine_costs(config);
    have = true;
  }
  return costs;
}

}  // namespace arrvm
