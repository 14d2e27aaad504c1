// The engine's file-writing seam (util/file_io): a full disk (ENOSPC) or an I/O error
// (EIO) injected at write, fsync or rename makes an atomic write fail with a message
// naming the file and the reason, leaves the previous file byte for byte as it was and
// no temp file behind; once the fault clears the same write succeeds.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "util/file_io.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;
using file_io::FileOp;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

struct Fault {
  FileOp op;
  int error;
  const char* text;
};

class FileIoFaults : public ::testing::TestWithParam<Fault> {
 protected:
  void TearDown() override { file_io::set_fault_hook({}); }
  test::TempDir dir_;
};

TEST_P(FileIoFaults, AtomicWriteFailsCleanlyAndRetrySucceeds) {
  const Fault fault = GetParam();
  const std::string path = dir_.file("state.bin");
  ASSERT_TRUE(file_io::write_file_atomically(path, bytes_of("committed before")));
  int calls = 0;
  file_io::set_fault_hook([&](FileOp op, const std::string&) {
    if (op != fault.op) return 0;
    ++calls;
    return fault.error;
  });
  const Status s = file_io::write_file_atomically(path, bytes_of("the new contents"));
  ASSERT_FALSE(s);
  EXPECT_EQ(calls, 1);
  EXPECT_NE(s.message().find(fault.text), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(dir_.path()), std::string::npos) << s.message();
  EXPECT_EQ(read_text(path), "committed before");
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  file_io::set_fault_hook({});
  ASSERT_TRUE(file_io::write_file_atomically(path, bytes_of("the new contents")));
  EXPECT_EQ(read_text(path), "the new contents");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

INSTANTIATE_TEST_SUITE_P(EveryStep, FileIoFaults,
                         ::testing::Values(Fault{FileOp::Open, ENOSPC, "No space left on device"},
                                           Fault{FileOp::Write, ENOSPC, "No space left on device"},
                                           Fault{FileOp::Write, EIO, "Input/output error"},
                                           Fault{FileOp::Sync, EIO, "Input/output error"},
                                           Fault{FileOp::Sync, ENOSPC, "No space left on device"},
                                           Fault{FileOp::Rename, EIO, "Input/output error"}));

TEST(FileIo, RealErrorsAreReportedWithThePath) {
  test::TempDir dir;
  const std::string path = dir.file("missing-dir/state.bin");
  const Status s = file_io::write_file_atomically(path, bytes_of("x"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot create " + path + ".tmp"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::strerror(ENOENT)), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kvchat
