// The one table of backends (backends/backends.def): name -> factory.
#include "backends/backend.hpp"

#include "backends/cpu/cpu_backend.hpp"
#include "backends/mpi/mpi_backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "vm/error.hpp"

namespace arrvm {

namespace {

struct BackendEntry {
  const char* name;
  std::unique_ptr<Backend> (*make)(const Config&);
};

constexpr BackendEntry kBackends[] = {
#define ARRVM_BACKEND(name, factory) {name, factory},
#include "backends/backends.def"
#undef ARRVM_BACKEND
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Config& config) {
  for (const BackendEntry& e : kBackends) {
    if (config.backend == e.name) return e.make(config);
  }
  std::string known;
  for (const std::string& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown backend '" + config.backend + "' (known: " + known + ")");
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const BackendEntry& e : kBackends) names.emplace_back(e.name);
  return names;
}

}  // namespace arrvm
