// The on-disk side of every cache (cpu kernels, OpenCL binaries, merge-cache
// partitions, the machine cost model): the trusted directory, whole-file
// reads, atomic writes, little-endian u64 fields, and the common entry
// layout. An entry is a file holding a magic string, the full key, a blob and
// a SHA-256 of key + blob (which detects truncation and bit rot, not forgery:
// anyone who can write the file can recompute it). Files are written to a
// temporary name in the same directory and renamed into place, so processes
// sharing the directory see the old file, none, or the whole new one.
//
// Trust (docs/semantics.md, "The caches"): a cache directory is used only if
// it is a directory owned by this process's effective user and writable by
// no one else (created 0700 when missing); otherwise the cache stays in
// memory with a warning. Cache files are opened without following symlinks,
// and only regular files of this user, writable by no one else and at most
// kMaxCacheFileBytes long, are read; temporary files are created exclusively
// (O_EXCL | O_NOFOLLOW, mode 0600), so nothing planted at their names is
// followed or overwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace arrvm {

enum class DiskEntry { Absent, Hit, Corrupt };

// The largest cache file read (a larger one is treated as corrupt).
inline constexpr std::size_t kMaxCacheFileBytes = std::size_t{256} << 20;

// `dir` (created with its missing parents, mode 0700) if it may be trusted
// as a cache directory: a directory owned by the effective user, neither
// group- nor world-writable. Otherwise "" and *why says what is wrong.
std::string trusted_cache_dir(const std::string& dir, std::string* why);

// The directory `root`/`sub` (`sub` empty: `root`) of the cache named `what`
// ("kernel cache", ...), if `root` and it are trusted and `sub` is no
// symlink; otherwise "" and a warning (once per directory, reason and process) that
// the cache stays in memory.
std::string open_cache_dir(const std::string& root, const std::string& sub, const char* what);

// A cache file's bytes, read as the trust rules above say. Absent: no such
// file; Corrupt: something is there that may not be read (a symlink, a
// FIFO, a device, another user's file, a file writable by others, one past
// kMaxCacheFileBytes), which is removed when it is in a trusted directory.
DiskEntry read_cache_file(const std::string& path, std::string* out);

// Reads the entry in `file`. Hit: *blob is its blob. An entry whose magic,
// key or checksum does not match, or that is truncated, is removed and
// reported Corrupt (the caller rebuilds and stores it again).
DiskEntry read_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                          std::string* blob);

// Writes the entry atomically. Returns false (and leaves no temporary file)
// if it could not be written: a cache that cannot be written is not an error.
bool write_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                      const std::string& blob);

// The whole of `path` into *out; false if it cannot be opened. For files this
// process made itself (a compiler's output); cache files use read_cache_file.
bool read_whole_file(const std::string& path, std::string* out);

// `data` into `path` (truncating); false on any failure.
bool write_whole_file(const std::string& path, const std::string& data);

// `data` into `path` through a unique temporary file (created O_EXCL |
// O_NOFOLLOW, 0600) and a rename; false (temporary removed) on any failure.
bool write_file_atomically(const std::string& path, const std::string& data);

// Little-endian u64 fields. get_u64 reads at *pos and advances it; false if
// fewer than 8 bytes are left.
void put_u64(std::string* s, uint64_t v);
bool get_u64(const std::string& s, std::size_t* pos, uint64_t* v);

}  // namespace arrvm
