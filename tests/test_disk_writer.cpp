// Cache files written off the caller's thread (cache/disk_writer): writes
// and removals of a path apply in the order asked, what is pending is served
// to readers at once, drain leaves everything on disk, and a fork's child
// neither deadlocks nor loses its own writes.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cache/disk_writer.hpp"
#include "tests/cpu_test_util.hpp"

namespace fs = std::filesystem;

namespace {

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("disk writer: a pending write is served at once and is on disk after drain") {
  cputest::TempDir dir;
  const std::string file = (fs::path(dir.path()) / "a.entry").string();
  bool known = true;
  CHECK_FALSE(arrvm::pending_file(file, &known).has_value());
  CHECK_FALSE(known);
  arrvm::write_file_later(file, "first");
  arrvm::write_file_later(file, "second");
  // Pending or already written: either way a reader gets the last bytes.
  const std::optional<std::string> now = arrvm::pending_file(file, &known);
  CHECK((known ? now.value_or("") : contents(file)) == "second");
  arrvm::drain_file_writes();
  CHECK(contents(file) == "second");
  arrvm::pending_file(file, &known);
  CHECK_FALSE(known);
  for (const auto& e : fs::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
}

TEST_CASE("disk writer: writes and removals of a path apply in the order asked") {
  cputest::TempDir dir;
  const std::string a = (fs::path(dir.path()) / "a").string();
  const std::string b = (fs::path(dir.path()) / "b").string();
  arrvm::write_file_later(a, "x");
  arrvm::remove_file_later(a);  // removed: the write before it does not come back
  arrvm::remove_file_later(b);
  arrvm::write_file_later(b, "y");  // written: the removal before it does not win
  bool known = false;
  const std::optional<std::string> pa = arrvm::pending_file(a, &known);
  if (known) CHECK_FALSE(pa.has_value());  // pending as "removed"
  arrvm::drain_file_writes();
  CHECK_FALSE(fs::exists(a));
  CHECK(contents(b) == "y");
  // Many paths, each written several times: the last value of each lands.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i) {
      arrvm::write_file_later((fs::path(dir.path()) / std::to_string(i)).string(),
                              std::to_string(i * 10 + round));
    }
  }
  arrvm::drain_file_writes();
  for (int i = 0; i < 50; ++i)
    CHECK(contents(fs::path(dir.path()) / std::to_string(i)) == std::to_string(i * 10 + 2));
}

TEST_CASE("disk writer: a fork's child writes its own files and its parent's still land") {
  cputest::TempDir dir;
  for (int i = 0; i < 200; ++i) {
    arrvm::write_file_later((fs::path(dir.path()) / ("p" + std::to_string(i))).string(), "parent");
  }
  const pid_t pid = ::fork();  // (the writer is most likely mid-queue here)
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(20);  // a deadlocked child fails the test instead of hanging it
    const std::string mine = (fs::path(dir.path()) / "child").string();
    arrvm::write_file_later(mine, "child");
    bool known = false;
    const std::optional<std::string> p = arrvm::pending_file(mine, &known);
    const bool served = !known || p.value_or("") == "child";
    arrvm::drain_file_writes();
    ::_exit(served && contents(mine) == "child" ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  arrvm::drain_file_writes();
  for (int i = 0; i < 200; ++i) CHECK(contents(fs::path(dir.path()) / ("p" + std::to_string(i))) == "parent");
  CHECK(contents(fs::path(dir.path()) / "child") == "child");
}
