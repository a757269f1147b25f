// The on-disk side of every cache (cpu kernels, OpenCL binaries, merge-cache
// partitions): whole-file reads, atomic writes, little-endian u64 fields, and
// the common entry layout. An entry is a file holding a magic string, the
// full key, a blob and a SHA-256 of key + blob. Files are written to a
// temporary name in the same directory and renamed into place, so processes
// sharing the directory see the old file, none, or the whole new one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace arrvm {

enum class DiskEntry { Absent, Hit, Corrupt };

// Reads the entry in `file`. Hit: *blob is its blob. An entry whose magic,
// key or checksum does not match, or that is truncated, is removed and
// reported Corrupt (the caller rebuilds and stores it again).
DiskEntry read_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                          std::string* blob);

// Writes the entry atomically. Returns false (and leaves no temporary file)
// if it could not be written: a cache that cannot be written is not an error.
bool write_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                      const std::string& blob);

// The whole of `path` into *out; false if it cannot be opened.
bool read_whole_file(const std::string& path, std::string* out);

// `data` into `path` (truncating); false on any failure.
bool write_whole_file(const std::string& path, const std::string& data);

// `data` into `path` through a unique temporary file and a rename; false
// (temporary removed) on any failure.
bool write_file_atomically(const std::string& path, const std::string& data);

// Little-endian u64 fields. get_u64 reads at *pos and advances it; false if
// fewer than 8 bytes are left.
void put_u64(std::string* s, uint64_t v);
bool get_u64(const std::string& s, std::size_t* pos, uint64_t* v);

}  // namespace arrvm
