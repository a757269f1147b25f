// The C++ API's VM handle: construction from the environment and options,
// the default VM, flush, floating-point flags, the profile and the
// configuration read back.
#include "arrvm/arrvm.hpp"

#include "frontend/array_internal.hpp"
#include "vm/error.hpp"
#include "vm/interrupt.hpp"

namespace arrvm {

Vm::Vm(const Options& options) {
  Config config = Config::from_env();
  for (const auto& [name, value] : options) config.set(name, value);
  rt_ = std::make_shared<Runtime>(std::move(config));
}

void set_interrupt_check(bool (*check)()) {
  set_interrupt_hook(check);
}

Vm& Vm::default_vm() {
  // Constructed on first use so that a program that never touches the
  // default VM never reads its environment or starts its backend.
  static Vm vm(Options{});
  return vm;
}

Vm Vm::from_runtime(std::shared_ptr<Runtime> runtime) {
  if (!runtime) throw Error("Vm::from_runtime: null runtime");
  return detail::ArrayAccess::make_vm(std::move(runtime));
}

void Vm::flush() const {
  rt_->flush();
}

uint32_t Vm::take_fp_flags(std::vector<std::string>* ops) const {
  return rt_->take_fp_flags(ops);
}

void Vm::set_fp_report(std::function<void()> report) const {
  rt_->set_fp_report(std::move(report));
}

std::string Vm::profile_json() const {
  return rt_->profile().to_json();
}

void Vm::report_profile() const {
  rt_->report_profile();
}

std::string Vm::config_value(const std::string& key) const {
  const Config& c = rt_->config();
  if (key == "backend") return c.backend;
  if (key == "fuser") return c.fuser;
  if (key == "cost") return c.cost;
  if (key == "batch") return std::to_string(c.batch);
  if (key == "cache_dir") return c.cache_dir;
  if (key == "cache") return to_string(c.cache);
  if (key == "trace") return c.trace;
  if (key == "profile") return c.profile;
  if (key == "log") return c.log;
  if (key == "cc") return c.cc;
  if (key == "cflags") return c.cflags;
  if (key == "opencl_device") return c.opencl_device;
  if (key == "fuse_time_limit") return std::to_string(c.fuse_time_limit);
  return "";
}

}  // namespace arrvm
