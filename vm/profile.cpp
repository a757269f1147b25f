#include "vm/profile.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace arrvm {

namespace {
unsigned long long u(uint64_t v) {
  return static_cast<unsigned long long>(v);
}
}  // namespace

uint64_t Profile::pass(std::string_view name) const {
  for (int i = 0; i < kMaxPasses && pass_names[i] != nullptr; ++i) {
    if (name == pass_names[i]) return pass_counts[i];
  }
  return 0;
}

void Profile::count_pass(std::string_view name, uint64_t n) {
  for (int i = 0; i < kMaxPasses && pass_names[i] != nullptr; ++i) {
    if (name == pass_names[i]) pass_counts[i] += n;
  }
}

std::string Profile::to_text() const {
  char buf[2048];
  std::snprintf(
      buf, sizeof buf,
      "arrvm profile\n"
      "  batches %llu (%llu cut at a repeat), instructions %llu (%llu eager, %llu of them direct), blocks "
      "%llu "
      "(%llu split at the "
      "size limit); %llu overlap copies, %llu failed batches, %llu deferrals recomputed\n"
      "  time: total %.6f s = fusion %.6f + merge cache %.6f + codegen %.6f + compile (compiler runs, kernel "
      "loads and lookups, waits) %.6f"
      " + execution %.6f + unaccounted %.6f\n"
      "  kernels: %llu compiled (by the compiler, several a run when they wait together; %.6f s of compiling "
      "in the background), %llu launched (%llu on a team), "
      "%llu blocks interpreted while compiling (%llu a chunk at a time); kernel cache %llu hits (%llu from "
      "disk), %llu misses\n"
      "  merge cache: %llu hits, %llu misses, %llu upgrades (%llu flushes held to the old partition); "
      "background fusion %.6f s\n"
      "  memory: %llu arrays contracted, %llu bytes allocated at peak, %llu now\n"
      "  transfers: %llu bytes from host, %llu bytes to host (%llu reads, %llu writes with no flush), %llu "
      "bytes to"
      " device, %llu bytes from device\n",
      u(batches), u(batches_cut), u(instructions), u(eager), u(eager_direct), u(blocks), u(blocks_bounded),
      u(overlap_copies), u(failed_batches), u(deferrals_recomputed), total_s, fusion_s, merge_cache_s,
      codegen_s, compile_s, execution_s(), unaccounted_s(), u(kernels_compiled), compile_background_s,
      u(kernels_launched), u(kernels_on_team), u(blocks_interpreted), u(blocks_chunked), u(kernel_cache_hits),
      u(kernel_cache_disk_hits), u(kernel_cache_misses), u(merge_cache_hits), u(merge_cache_misses),
      u(merge_cache_upgrades), u(upgrades_held), fusion_background_s, u(arrays_contracted),
      u(bytes_allocated_peak), u(bytes_allocated), u(bytes_from_host), u(bytes_to_host), u(reads_direct),
      u(writes_direct), u(bytes_to_device), u(bytes_from_device));
  std::string text = buf;
  std::string passes;
  for (int i = 0; i < kMaxPasses && pass_names[i] != nullptr; ++i) {
    passes += std::string(passes.empty() ? "" : ", ") + pass_names[i] + " " + std::to_string(pass_counts[i]);
  }
  if (!passes.empty()) text += "  passes fired: " + passes + "\n";
  if (comm_messages > 0 || comm_bytes_sent > 0) {
    std::snprintf(buf, sizeof buf,
                  "  communication: %llu bytes sent, %llu bytes received, %llu messages, %.6f s waiting\n",
                  u(comm_bytes_sent), u(comm_bytes_received), u(comm_messages), comm_wait_s);
    text += buf;
  }
  return text;
}

std::string Profile::to_json() const {
  nlohmann::json j = {
      {"batches", batches},
      {"instructions", instructions},
      {"eager", eager},
      {"eager_direct", eager_direct},
      {"batches_cut", batches_cut},
      {"blocks_bounded", blocks_bounded},
      {"blocks", blocks},
      {"work_blocks", work_blocks},
      {"overlap_copies", overlap_copies},
      {"failed_batches", failed_batches},
      {"deferrals_recomputed", deferrals_recomputed},
      {"time",
       {{"total", total_s},
        {"fusion", fusion_s},
        {"fusion_background", fusion_background_s},
        {"merge_cache", merge_cache_s},
        {"codegen", codegen_s},
        {"compile", compile_s},
        {"compile_background", compile_background_s},
        {"execution", execution_s()},
        {"unaccounted", unaccounted_s()}}},
      {"kernels",
       {{"compiled", kernels_compiled},
        {"launched", kernels_launched},
        {"on_team", kernels_on_team},
        {"blocks_interpreted", blocks_interpreted},
        {"blocks_chunked", blocks_chunked},
        {"cache_hits", kernel_cache_hits},
        {"cache_disk_hits", kernel_cache_disk_hits},
        {"cache_misses", kernel_cache_misses}}},
      {"merge_cache",
       {{"hits", merge_cache_hits},
        {"misses", merge_cache_misses},
        {"upgrades", merge_cache_upgrades},
        {"rejected", merge_cache_rejected},
        {"upgrades_held", upgrades_held}}},
      {"memory",
       {{"arrays_contracted", arrays_contracted},
        {"bytes_allocated_peak", bytes_allocated_peak},
        {"bytes_allocated", bytes_allocated}}},
      {"transfers",
       {{"bytes_from_host", bytes_from_host},
        {"bytes_to_host", bytes_to_host},
        {"reads_direct", reads_direct},
        {"writes_direct", writes_direct},
        {"bytes_to_device", bytes_to_device},
        {"bytes_from_device", bytes_from_device}}},
      {"communication",
       {{"bytes_sent", comm_bytes_sent},
        {"bytes_received", comm_bytes_received},
        {"messages", comm_messages},
        {"wait", comm_wait_s}}},
  };
  nlohmann::json fired = nlohmann::json::object();
  for (int i = 0; i < kMaxPasses && pass_names[i] != nullptr; ++i) fired[pass_names[i]] = pass_counts[i];
  j["passes"] = fired;
  return j.dump(2);
}

}  // namespace arrvm
