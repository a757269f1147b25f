// Cache files written off the caller's thread. A merge-cache miss stores its
// partition on disk for the next process; the write (a temporary file, a
// rename: 100-250 us on this machine's file system) sat on the flush that
// missed, and a cold run of a program whose batches are all new (a sieve
// issues one 3-instruction batch per prime) spent 40-70 ms of 0.4 s there.
//
// One writer per process, on a thread of its own, started at the first
// write. Writes and removals of a path apply in the order asked, the last
// one winning (a path written twice before the thread gets to it is written
// once). Until a write is on disk, `pending` serves its bytes to readers in
// this process, so a second cache on the same directory sees what the first
// stored at once. `drain` waits until everything asked so far is on disk;
// the merge cache drains when it is destroyed and the process at exit, so a
// run that ends normally leaves every entry it stored. A fork's child starts
// with nothing pending (its parent writes what it had asked for) and starts
// a thread of its own if it writes.
#pragma once

#include <optional>
#include <string>

namespace arrvm {

// Writes `data` to `path` atomically (write_file_atomically), later.
void write_file_later(const std::string& path, std::string data);

// Removes `path`, after the writes of it asked before.
void remove_file_later(const std::string& path);

// What `path` will hold once the writes asked for it are done: its bytes,
// "removed" (an empty optional with *known set), or unknown (nothing
// pending for it: read the file).
std::optional<std::string> pending_file(const std::string& path, bool* known);

// Waits until every write and removal asked so far is done.
void drain_file_writes();

}  // namespace arrvm
