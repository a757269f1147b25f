#include "cache/disk_entry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "vm/hash.hpp"
#include "vm/log.hpp"

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

namespace {

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// `data` into a file that must not exist yet (a symlink or anything else
// already at `path` makes this fail and is left alone; a file this call
// created and could not finish is removed).
bool write_new_file(const std::string& path, const std::string& data) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return false;
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done == data.size() && ::close(fd.release()) == 0) return true;
  ::unlink(path.c_str());
  return false;
}

// What is wrong with `st` as something this user may trust, or "".
std::string untrusted(const struct stat& st) {
  if (st.st_uid != geteuid()) {
    return "it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(geteuid()) + ")";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "it is writable by its group or by others";
  return "";
}

}  // namespace

std::string trusted_cache_dir(const std::string& dir, std::string* why) {
  if (dir.empty()) {
    *why = "no directory is set";
    return "";
  }
  // Created 0700 (each missing level), whatever the umask.
  std::error_code ec;
  std::filesystem::path p(dir);
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path q = p; !q.empty() && !std::filesystem::exists(q, ec); q = q.parent_path()) {
    missing.push_back(q);
    if (q == q.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      *why = "it cannot be created (" + std::string(std::strerror(errno)) + ")";
      return "";
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    *why = "it cannot be examined (" + std::string(std::strerror(errno)) + ")";
    return "";
  }
  if (!S_ISDIR(st.st_mode)) {
    *why = "it is not a directory";
    return "";
  }
  *why = untrusted(st);
  if (!why->empty()) return "";
  if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) {
    *why = "it is not readable and writable (" + std::string(std::strerror(errno)) + ")";
    return "";
  }
  return dir;
}

std::string open_cache_dir(const std::string& root, const std::string& sub, const char* what) {
  if (root.empty()) return "";
  std::string why;
  const std::string dir = sub.empty() ? root : (std::filesystem::path(root) / sub).string();
  std::string ok = trusted_cache_dir(root, &why);
  if (!ok.empty() && !sub.empty()) {
    struct stat st {};
    ok = trusted_cache_dir(dir, &why);
    if (!ok.empty() && (::lstat(dir.c_str(), &st) != 0 || S_ISLNK(st.st_mode))) {
      why = "it is a symbolic link";
      ok.clear();
    }
  }
  if (ok.empty()) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(dir + "\n" + why).second) {
      logger().warn("{}: not using the cache directory {}: {}; the cache stays in memory for this process",
                    what, dir, why);
    }
  }
  return ok;
}

DiskEntry read_cache_file(const std::string& path, std::string* out) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ELOOP || errno == ENXIO || errno == EACCES) return DiskEntry::Corrupt;  // a symlink, ...
    return DiskEntry::Absent;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || !untrusted(st).empty() ||
      static_cast<uint64_t>(st.st_size) > kMaxCacheFileBytes) {
    return DiskEntry::Corrupt;
  }
  out->assign(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < out->size()) {
    const ssize_t n = ::read(fd.get(), out->data() + done, out->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return DiskEntry::Absent;
    if (n == 0) break;  // shrank under us: the checksum decides
    done += static_cast<std::size_t>(n);
  }
  out->resize(done);
  return DiskEntry::Hit;
}

bool write_file_atomically(const std::string& path, const std::string& data) {
  // Unique across processes (pid) and threads (counter).
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::error_code ec;
  if (!write_new_file(tmp, data)) return false;
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
  switch (read_cache_file(file, &data)) {
    case DiskEntry::Absent:
      return DiskEntry::Absent;
    case DiskEntry::Corrupt:
      data.clear();  // removed below
      break;
    case DiskEntry::Hit:
      break;
  }
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
