// One entry of an on-disk cache: a file holding a magic string, the full key,
// a blob and a SHA-256 of key + blob. Written to a temporary file and renamed
// into place, so processes sharing the directory see the old entry, none, or
// the whole new one. The same layout as the cpu kernel cache's entries
// (cache/kernel_cache.cpp), which could move onto these two functions.
#pragma once

#include <string>

namespace arrvm {

enum class DiskEntry { Absent, Hit, Corrupt };

// Reads the entry in `file`. Hit: *blob is its blob. An entry whose magic,
// key or checksum does not match, or that is truncated, is removed and
// reported Corrupt (the caller rebuilds and stores it again).
DiskEntry read_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                          std::string* blob);

// Writes the entry atomically. Failures are ignored: a cache that cannot be
// written is not an error.
void write_disk_entry(const std::string& file, const std::string& magic, const std::string& key,
                      const std::string& blob);

}  // namespace arrvm
