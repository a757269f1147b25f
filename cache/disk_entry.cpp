#include "cache/disk_entry.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cache/kernel_cache.hpp"

namespace arrvm {

namespace {

void put_u64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool get_u64(const std::string& s, std::size_t* pos, uint64_t* v) {
  if (*pos > s.size() || s.size() - *pos < 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(static_cast<unsigned char>(s[*pos + i])) << (8 * i);
  *pos += 8;
  return true;
}

}  // namespace

DiskEntry read_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                          std::string* blob) {
  std::string data;
  {
    std::ifstream in(file, std::ios::binary);
    if (!in) return DiskEntry::Absent;
    std::ostringstream ss;
    ss << in.rdbuf();
    data = ss.str();
  }
  std::size_t pos = magic.size();
  uint64_t klen = 0, blen = 0;
  bool ok = data.size() >= magic.size() && data.compare(0, magic.size(), magic) == 0 && get_u64(data, &pos, &klen) &&
            klen == key.size() && klen <= data.size() - pos && data.compare(pos, klen, key) == 0;
  if (ok) {
    pos += klen;
    ok = get_u64(data, &pos, &blen) && blen <= data.size() - pos && data.size() - pos - blen == 64;
  }
  if (ok) {
    std::string b = data.substr(pos, blen);
    if (data.compare(pos + blen, 64, sha256_hex(key + b)) == 0) {
      *blob = std::move(b);
      return DiskEntry::Hit;
    }
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
  return DiskEntry::Corrupt;
}

void write_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                      const std::string& blob) {
  static std::atomic<uint64_t> counter{0};
  std::string data = magic;
  put_u64(&data, key.size());
  data += key;
  put_u64(&data, blob.size());
  data += blob;
  data += sha256_hex(key + blob);
  const std::string tmp = file + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace arrvm
