#include "vm/profile.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace arrvm {

std::string Profile::to_text() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "arrvm profile\n"
                "  batches %llu, instructions %llu, blocks %llu\n"
                "  time: fusion %.6f s, execution %.6f s\n"
                "  host transfers: %llu bytes in, %llu bytes out\n",
                static_cast<unsigned long long>(batches), static_cast<unsigned long long>(instructions),
                static_cast<unsigned long long>(blocks), fusion_s, exec_s,
                static_cast<unsigned long long>(bytes_from_host), static_cast<unsigned long long>(bytes_to_host));
  return buf;
}

std::string Profile::to_json() const {
  nlohmann::json j = {
      {"batches", batches},
      {"instructions", instructions},
      {"blocks", blocks},
      {"time", {{"fusion", fusion_s}, {"exec", exec_s}}},
      {"bytes_from_host", bytes_from_host},
      {"bytes_to_host", bytes_to_host},
  };
  return j.dump();
}

}  // namespace arrvm
