#include "cache/disk_entry.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vm/hash.hpp"

namespace arrvm {

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

bool read_whole_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool write_whole_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

bool write_file_atomically(const std::string& path, const std::string& data) {
  // Unique across processes (pid) and threads (counter).
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::error_code ec;
  if (!write_whole_file(tmp, data)) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

DiskEntry read_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                          std::string* blob) {
  std::string data;
  if (!read_whole_file(file, &data)) return DiskEntry::Absent;
  std::size_t pos = magic.size();
  uint64_t klen = 0, blen = 0;
  bool ok = data.size() >= magic.size() && data.compare(0, magic.size(), magic) == 0 &&
            get_u64(data, &pos, &klen) && klen == key.size() && klen <= data.size() - pos &&
            data.compare(pos, klen, key) == 0;
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

bool write_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                      const std::string& blob) {
  std::string data = magic;
  put_u64(&data, key.size());
  data += key;
  put_u64(&data, blob.size());
  data += blob;
  data += sha256_hex(key + blob);
  return write_file_atomically(file, data);
}

}  // namespace arrvm
