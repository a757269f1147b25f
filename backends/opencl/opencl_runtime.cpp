#include "backends/opencl/opencl_runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "cache/disk_entry.hpp"
#include "cache/kernel_cache.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/log.hpp"
#include "vm/timeline.hpp"

namespace arrvm::opencl {

namespace {

constexpr const char kMagic[] = "ARRVMCL1\n";
// The blob of a source's entry whose kernel was built in a merged program:
// this prefix, then the key of that program's entry.
constexpr const char kMergedPrefix[] = "arrvm merged program entry\n";

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

DeviceInfo device_info(cl_platform_id p, int pi, cl_device_id d, int di) {
  DeviceInfo info;
  info.platform = p;
  info.device = d;
  info.platform_index = pi;
  info.device_index = di;
  info.platform_name = platform_string(p, CL_PLATFORM_NAME);
  info.platform_version = platform_string(p, CL_PLATFORM_VERSION);
  info.name = device_string(d, CL_DEVICE_NAME);
  info.vendor = device_string(d, CL_DEVICE_VENDOR);
  info.device_version = device_string(d, CL_DEVICE_VERSION);
  info.driver_version = device_string(d, CL_DRIVER_VERSION);
  info.gpu = (device_value<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
  const std::string ext = " " + device_string(d, CL_DEVICE_EXTENSIONS) + " ";
  info.fp64 = ext.find(" cl_khr_fp64 ") != std::string::npos &&
              device_value<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  info.correctly_rounded_fp32_div = (device_value<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG) &
                                     CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  info.max_work_group_size = device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.max_parameter_size = device_value<std::size_t>(d, CL_DEVICE_MAX_PARAMETER_SIZE);
  info.global_mem_size = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  if (info.max_work_group_size == 0) info.max_work_group_size = 1;
  if (info.compute_units == 0) info.compute_units = 1;
  return info;
}

std::string device_list(const std::vector<DeviceInfo>& devices) {
  std::string s;
  for (const DeviceInfo& d : devices) s += "\n  " + describe(d);
  return s;
}

}  // namespace

std::string error_name(cl_int status) {
  switch (status) {
#define ARRVM_CL_ERROR(E) \
  case E:                 \
    return #E;
    ARRVM_CL_ERROR(CL_SUCCESS)
    ARRVM_CL_ERROR(CL_DEVICE_NOT_FOUND)
    ARRVM_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    ARRVM_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    ARRVM_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    ARRVM_CL_ERROR(CL_OUT_OF_RESOURCES)
    ARRVM_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    ARRVM_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    ARRVM_CL_ERROR(CL_INVALID_VALUE)
    ARRVM_CL_ERROR(CL_INVALID_DEVICE)
    ARRVM_CL_ERROR(CL_INVALID_CONTEXT)
    ARRVM_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    ARRVM_CL_ERROR(CL_INVALID_MEM_OBJECT)
    ARRVM_CL_ERROR(CL_INVALID_BINARY)
    ARRVM_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    ARRVM_CL_ERROR(CL_INVALID_PROGRAM)
    ARRVM_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    ARRVM_CL_ERROR(CL_INVALID_KERNEL_NAME)
    ARRVM_CL_ERROR(CL_INVALID_KERNEL)
    ARRVM_CL_ERROR(CL_INVALID_ARG_INDEX)
    ARRVM_CL_ERROR(CL_INVALID_ARG_VALUE)
    ARRVM_CL_ERROR(CL_INVALID_ARG_SIZE)
    ARRVM_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    ARRVM_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    ARRVM_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    ARRVM_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    ARRVM_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    ARRVM_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    ARRVM_CL_ERROR(CL_INVALID_OPERATION)
    ARRVM_CL_ERROR(CL_INVALID_PLATFORM)
#undef ARRVM_CL_ERROR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";  // cl_khr_icd: no platform installed
    default:
      return "OpenCL error " + std::to_string(status);
  }
}

void check(cl_int status, const std::string& what) {
  if (status != CL_SUCCESS) throw BackendError("opencl: " + what + " failed: " + error_name(status), "");
}

namespace {

std::vector<DeviceInfo> discover_devices() {
  cl_uint np = 0;
  // ocl-icd answers CL_PLATFORM_NOT_FOUND_KHR when no driver is installed.
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return {};
  std::vector<cl_platform_id> platforms(np);
  if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return {};
  std::vector<DeviceInfo> devices;
  for (cl_uint p = 0; p < np; ++p) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_uint d = 0; d < nd; ++d) {
      devices.push_back(device_info(platforms[p], static_cast<int>(p), ids[d], static_cast<int>(d)));
    }
  }
  return devices;
}

}  // namespace

// Discovered once per process: the ICD loader and PoCL initialize themselves
// on the first clGetPlatformIDs and are not safe to enter from several
// threads at once (VMs created in threads crashed, or found no platform).
// Platforms and devices do not come and go while a process runs.
std::vector<DeviceInfo> list_devices() {
  static const std::vector<DeviceInfo> devices = discover_devices();  // (thread-safe initialization)
  return devices;
}

DeviceInfo select_device(const std::string& spec) {
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) {
    throw Error(
        "opencl backend: no OpenCL device found (no OpenCL platform is installed; on Debian install "
        "pocl-opencl-icd for the CPU, or a GPU vendor's driver)");
  }
  if (spec.empty()) {
    for (const DeviceInfo& d : devices) {
      if (d.gpu) return d;
    }
    return devices.front();
  }
  const std::size_t colon = spec.find(':');
  if (colon != std::string::npos && colon > 0 && colon + 1 < spec.size() &&
      spec.find_first_not_of("0123456789:") == std::string::npos &&
      spec.find(':', colon + 1) == std::string::npos) {
    const int p = std::stoi(spec.substr(0, colon)), d = std::stoi(spec.substr(colon + 1));
    for (const DeviceInfo& info : devices) {
      if (info.platform_index == p && info.device_index == d) return info;
    }
  } else {
    for (const DeviceInfo& info : devices) {
      if (info.name.find(spec) != std::string::npos) return info;
    }
  }
  throw Error("opencl backend: no OpenCL device matches ARRVM_OPENCL_DEVICE='" + spec +
              "' (a name substring or platform:device); devices:" + device_list(devices));
}

std::string describe(const DeviceInfo& d) {
  return std::to_string(d.platform_index) + ":" + std::to_string(d.device_index) + " " + d.name + " [" +
         (d.gpu ? "gpu" : "other") + "] (platform " + d.platform_name + ", " + d.device_version +
         ", driver " + d.driver_version + ", " + std::to_string(d.compute_units) + " compute units" +
         (d.fp64 ? ", fp64" : "") + ")";
}

ProgramCache::ProgramCache(const Config& config, cl_context context, const DeviceInfo& device,
                           std::string options)
    : context_(context), device_(device), options_(std::move(options)), mode_(config.cache) {
  // A directory that cannot be trusted leaves the cache in memory (a warning says so).
  if (mode_ == CacheMode::On) dir_ = open_cache_dir(config.cache_dir, "opencl", "opencl program cache");
}

std::string ProgramCache::key_of(const std::string& source) const {
  return "arrvm opencl program 1\nplatform=" + device_.platform_name +
         "\nplatform_version=" + device_.platform_version + "\ndevice=" + device_.name +
         "\ndevice_version=" + device_.device_version + "\ndriver=" + device_.driver_version +
         "\noptions=" + options_ + "\nsource=\n" + source;
}

std::string ProgramCache::file_of(const std::string& key) const {
  return (std::filesystem::path(dir_) / (sha256_hex(key) + ".clbin")).string();
}

void ProgramCache::prepare(const std::vector<std::string>& sources, Profile& profile) {
  if (mode_ == CacheMode::Off) return;  // get() builds each kernel when it is launched
  std::vector<const std::string*> missing;
  for (const std::string& s : sources) {
    if (entries_.count(s) != 0) {
      ++stats_.memory_hits;
      ++profile.kernel_cache_hits;
      continue;
    }
    if (std::find_if(missing.begin(), missing.end(), [&](const std::string* m) { return *m == s; }) !=
        missing.end()) {
      continue;  // needed twice in this batch: one lookup
    }
    if (std::shared_ptr<Entry> e = load(key_of(s), profile)) {
      entries_[s] = std::move(e);
      continue;
    }
    missing.push_back(&s);
  }
  if (missing.empty()) return;
  if (missing.size() == 1) {
    std::shared_ptr<Entry> e = build(*missing[0], 1, profile);
    store(key_of(*missing[0]), e->program);
    entries_[*missing[0]] = std::move(e);
    return;
  }
  std::string merged;
  for (const std::string* m : missing) merged += *m;
  std::shared_ptr<Entry> e;
  try {
    e = build(merged, missing.size(), profile);
  } catch (const BackendError&) {
    // Built one by one, the error names the source that fails.
    for (const std::string* m : missing) {
      std::shared_ptr<Entry> single = build(*m, 1, profile);
      store(key_of(*m), single->program);
      entries_[*m] = std::move(single);
    }
    return;
  }
  if (!dir_.empty()) {
    // The program's entry, keyed by its members' keys; each member's own
    // entry names it, so that any later batch finds it source by source.
    std::string program_key = key_of("") + "merged program of:\n";
    for (const std::string* m : missing) program_key += sha256_hex(key_of(*m)) + "\n";
    store(program_key, e->program);
    for (const std::string* m : missing) {
      const std::string key = key_of(*m);
      write_disk_entry(file_of(key), kMagic, key, kMergedPrefix + program_key);
    }
  }
  for (const std::string* m : missing) entries_[*m] = e;
}

cl_kernel ProgramCache::get(const std::string& source, const std::string& name, Profile& profile) {
  std::shared_ptr<Entry> entry;
  if (mode_ != CacheMode::Off) {
    auto it = entries_.find(source);
    if (it != entries_.end()) entry = it->second;
  }
  if (entry == nullptr) {
    prepare({source}, profile);
    if (mode_ == CacheMode::Off) {
      entry = build(source, 1, profile);
      uncached_.push_back(entry);
    } else {
      entry = entries_.at(source);
    }
  }
  auto k = entry->kernels.find(name);
  if (k != entry->kernels.end()) return k->second.get();
  cl_int err = CL_SUCCESS;
  Kernel kernel(clCreateKernel(entry->program.get(), name.c_str(), &err));
  check(err, "clCreateKernel(" + name + ")");
  return entry->kernels.emplace(name, std::move(kernel)).first->second.get();
}

std::shared_ptr<ProgramCache::Entry> ProgramCache::load(const std::string& key, Profile& profile) {
  if (dir_.empty()) return nullptr;
  std::string blob;
  const std::string file = file_of(key);
  DiskEntry r = read_disk_entry(file, kMagic, key, &blob);
  if (r == DiskEntry::Corrupt) ++stats_.corrupt;
  if (r != DiskEntry::Hit) return nullptr;
  std::string program_key = key;
  const std::size_t prefix = std::strlen(kMergedPrefix);
  if (blob.compare(0, prefix, kMergedPrefix) == 0) {
    program_key = blob.substr(prefix);
    auto it = loaded_files_.find(program_key);
    if (it != loaded_files_.end()) {
      ++stats_.disk_hits;
      ++profile.kernel_cache_hits;
      ++profile.kernel_cache_disk_hits;
      return it->second;
    }
    r = read_disk_entry(file_of(program_key), kMagic, program_key, &blob);
    if (r != DiskEntry::Hit) {
      if (r == DiskEntry::Corrupt) ++stats_.corrupt;
      std::error_code ec;  // names a program that is gone: rebuilt and rewritten
      std::filesystem::remove(file, ec);
      return nullptr;
    }
  }
  Program p;
  {
    ScopedSpan timer(profile, &profile.compile_s, "load binary");
    p = from_binary(blob);
  }
  if (!p) {
    ++stats_.corrupt;  // the driver rejects it (another driver build?): rebuilt
    std::error_code ec;
    std::filesystem::remove(file_of(program_key), ec);
    std::filesystem::remove(file, ec);
    return nullptr;
  }
  auto e = std::make_shared<Entry>();
  e->program = std::move(p);
  if (program_key != key) loaded_files_[program_key] = e;
  ++stats_.disk_hits;
  ++profile.kernel_cache_hits;
  ++profile.kernel_cache_disk_hits;
  return e;
}

Program ProgramCache::from_binary(const std::string& binary) {
  const std::size_t size = binary.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  Program p(clCreateProgramWithBinary(context_, 1, &device_.device, &size, &bytes, &status, &err));
  if (err != CL_SUCCESS || status != CL_SUCCESS) return Program();
  if (clBuildProgram(p.get(), 1, &device_.device, options_.c_str(), nullptr, nullptr) != CL_SUCCESS)
    return Program();
  return p;
}

std::shared_ptr<ProgramCache::Entry> ProgramCache::build(const std::string& source, std::size_t sources,
                                                         Profile& profile) {
  const auto start = std::chrono::steady_clock::now();
  ScopedSpan timer(profile, &profile.compile_s, "compile", "arrvm",
                   {{"kernels", static_cast<int64_t>(sources)}});
  ++stats_.built;
  stats_.sources_built += sources;
  ++profile.kernels_compiled;
  profile.kernel_cache_misses += sources;
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int err = CL_SUCCESS;
  auto e = std::make_shared<Entry>();
  e->program = Program(clCreateProgramWithSource(context_, 1, &text, &length, &err));
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(e->program.get(), 1, &device_.device, options_.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(e->program.get(), device_.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n > 0)
      clGetProgramBuildInfo(e->program.get(), device_.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && log.back() == '\0') log.pop_back();
    throw BackendError("opencl backend: program build failed on " + device_.name + " (" + error_name(err) +
                           ", options '" + options_ + "'); build log:",
                       log + "\nsource:\n" + source);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // compile_s gets this build when `timer` ends: count it here already.
  log_compile("opencl", sources, seconds, profile.compile_s + seconds, dir_);
  return e;
}

void ProgramCache::store(const std::string& key, const Program& program) {
  if (dir_.empty()) return;
  std::size_t size = 0;
  if (clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS ||
      size == 0) {
    return;
  }
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  write_disk_entry(file_of(key), kMagic, key, bin);
}

}  // namespace arrvm::opencl
