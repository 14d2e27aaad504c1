// A FIFO, a directory or a character device named where a file is expected (issue 24
// point 6): a model (--model), a document (summarize --file), the snapshot beside a
// --resume file, the --resume file itself. open() of a FIFO blocks until a writer comes
// and /dev/zero never ends, so each must be refused by its type before anything waits or
// reads: within a second, with an error naming the path and the type. Every call runs in
// a child process killed after a few seconds, so a regression fails instead of hanging.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "kvchat/document.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/run_command.h"
#include "support/test_paths.h"
#include "util/file_io.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;
using test::sh_quote;

std::string demo_path() { return test::shared_path("models/kjv-demo-f16.gguf"); }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Runs `call` (it returns the error message it got, "" when it succeeded) in a forked
// child under alarm(5): the child prints the message and exits 0 when there was one and
// the call took under a second (`prepare`, run first, is not timed). A call that blocks
// dies of SIGALRM: a failure, not a hang. `expected`: an extended regex the child's
// stderr must match.
void expect_refused_quickly(const std::function<std::string()>& call, const std::string& expected,
                            const std::function<void()>& prepare = {}) {
  EXPECT_EXIT(
      {
        ::alarm(5);
        if (prepare) prepare();
        const auto t0 = std::chrono::steady_clock::now();
        const std::string message = call();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "%s [%.3f s]\n", message.c_str(), seconds);
        std::fflush(stderr);
        std::_Exit(message.empty() ? 2 : seconds < 1.0 ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), expected);
}

class SpecialFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    fifo_ = dir_.file("fifo");
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
    subdir_ = dir_.file("a-dir");
    fs::create_directory(subdir_);
  }
  test::TempDir dir_;
  std::string fifo_, subdir_;
};

TEST_F(SpecialFiles, OpenRegularFileNamesEachType) {
  struct Case {
    std::string path, type;
  };
  for (const Case& c :
       {Case{fifo_, "a FIFO"}, Case{subdir_, "a directory"},
        Case{"/dev/zero", "a character device"}, Case{"/dev/urandom", "a character device"},
        Case{"/dev/null", "a character device"}}) {
    SCOPED_TRACE(c.path);
    expect_refused_quickly(
        [&] {
          auto f = file_io::open_regular_file(c.path);
          return f ? std::string() : f.message();
        },
        "not a regular file \\(" + c.type + "\\)");
  }
  // A regular file opens, blocking reads restored (O_NONBLOCK cleared).
  write_text(dir_.file("plain.txt"), "text");
  auto f = file_io::open_regular_file(dir_.file("plain.txt"));
  ASSERT_TRUE(f) << f.message();
  EXPECT_TRUE(S_ISREG(f->st.st_mode));
  EXPECT_EQ(f->st.st_size, 4);
  EXPECT_EQ(::fcntl(f->fd, F_GETFL) & O_NONBLOCK, 0);
  char buf[8];
  EXPECT_EQ(::read(f->fd, buf, sizeof buf), 4);
  ::close(f->fd);
  auto missing = file_io::open_regular_file(dir_.file("missing"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.message(), "cannot open: No such file or directory");
}

TEST_F(SpecialFiles, ModelLoadRefusesAFifoADirectoryAndDevZero) {
  expect_refused_quickly(
      [&] {
        auto m = Model::load(fifo_);
        return m ? std::string() : m.message();
      },
      "/fifo: not a regular file \\(a FIFO\\)");
  expect_refused_quickly(
      [&] {
        auto m = Model::load(subdir_);
        return m ? std::string() : m.message();
      },
      "/a-dir: not a regular file \\(a directory\\)");
  expect_refused_quickly(
      [] {
        auto m = Model::load("/dev/zero");
        return m ? std::string() : m.message();
      },
      "/dev/zero: not a regular file \\(a character device\\)");
}

TEST_F(SpecialFiles, DocumentReaderRefusesAFifoAndEndlessDevices) {
  for (const std::string& path : {fifo_, std::string("/dev/zero"), std::string("/dev/urandom")}) {
    SCOPED_TRACE(path);
    expect_refused_quickly(
        [&] {
          auto r = read_document_text(path, nullptr);
          return r ? std::string() : r.message();
        },
        path + ": not a regular file \\(a (FIFO|character device)\\)");
  }
  expect_refused_quickly(
      [&] {
        auto r = DocumentReader::open(subdir_);
        return r ? std::string() : r.message();
      },
      "/a-dir: not a regular file \\(a directory\\)");
}

TEST_F(SpecialFiles, SnapshotLoadRefusesAFifo) {
  for (const std::string& path : {fifo_, std::string("/dev/zero"), subdir_}) {
    SCOPED_TRACE(path);
    // The model and session are made in the child (no engine threads in the forking
    // parent), before the timed call.
    std::unique_ptr<Session> session;
    std::string no_session;
    expect_refused_quickly(
        [&] {
          if (!session) return no_session;
          const Status st = session->load_snapshot(path);
          return st ? std::string() : st.message();
        },
        "cannot restore the snapshot: not a regular file "
        "\\(a (FIFO|character device|directory)\\)",
        [&] {
          auto m = Model::load(demo_path());
          if (!m) {
            no_session = "no model: " + m.message();
            return;
          }
          SessionOptions o;
          o.backend = "cpu";
          o.n_threads = 1;
          o.n_ctx = 64;
          auto s = Session::create(*m, o);
          if (s) {
            session = std::move(s.value());
          } else {
            no_session = "no session: " + s.message();
          }
        });
  }
}

// kvchat-cli as a user runs it, under timeout(1): exit 124 would mean it hung.
struct CliRun {
  test::CommandResult result;
  double seconds = 0;
};

CliRun run_cli_briefly(const std::string& args, const std::string& stdin_from = "/dev/null") {
  const auto t0 = std::chrono::steady_clock::now();
  CliRun r;
  r.result = test::run_command("timeout -s KILL 15 " + sh_quote(test::bin_path("kvchat-cli")) +
                               " " + args + " <" + sh_quote(stdin_from));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

TEST_F(SpecialFiles, CliGenerateWithAFifoModel) {
  const CliRun r = run_cli_briefly("generate --model " + sh_quote(fifo_) + " --prompt hi -n 1");
  EXPECT_EQ(r.result.exit_code, 1) << r.result.err;
  EXPECT_NE(r.result.err.find(fifo_ + ": not a regular file (a FIFO)"), std::string::npos)
      << r.result.err;
  // Process start only, no model to load; generous for a loaded 2-core machine.
  EXPECT_LT(r.seconds, 5.0);
}

TEST_F(SpecialFiles, CliSummarizeWithAFifoFile) {
  const CliRun r =
      run_cli_briefly("summarize --model " + sh_quote(demo_path()) + " --file " + sh_quote(fifo_));
  EXPECT_EQ(r.result.exit_code, 1) << r.result.err;
  EXPECT_NE(r.result.err.find(fifo_ + ": not a regular file (a FIFO)"), std::string::npos)
      << r.result.err;
  EXPECT_LT(r.seconds, 5.0);
  const CliRun z =
      run_cli_briefly("summarize --model " + sh_quote(demo_path()) + " --file /dev/zero");
  EXPECT_EQ(z.result.exit_code, 1) << z.result.err;
  EXPECT_NE(z.result.err.find("/dev/zero: not a regular file (a character device)"),
            std::string::npos)
      << z.result.err;
}

TEST_F(SpecialFiles, CliChatResumeWithAFifoSnapshotOrFile) {
  // A conversation as /save writes it, its snapshot a FIFO: not restored, said why, and
  // the chat goes on (it re-evaluates the conversation instead).
  const std::string saved = dir_.file("talk.json");
  write_text(saved, R"({"system":"","messages":[{"role":"user","content":"In the beginning"},)"
                    R"({"role":"assistant","content":"God created"}]})");
  ASSERT_EQ(::mkfifo((saved + ".kvsnap").c_str(), 0600), 0);
  const CliRun r = run_cli_briefly("chat --model " + sh_quote(demo_path()) +
                                   " --ctx 256 --resume " + sh_quote(saved));
  EXPECT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_NE(r.result.err.find(saved +
                              ".kvsnap: cannot restore the snapshot: not a regular file (a FIFO)"),
            std::string::npos)
      << r.result.err;
  EXPECT_LT(r.seconds, 10.0);

  // The --resume file itself a FIFO: refused before anything reads it (by read_file, or
  // by a check of cmd_chat's own before it, whose message may name what was expected).
  const CliRun f =
      run_cli_briefly("chat --model " + sh_quote(demo_path()) + " --resume " + sh_quote(fifo_));
  EXPECT_EQ(f.result.exit_code, 1) << f.result.err;
  EXPECT_NE(f.result.err.find(fifo_ + ": not a regular file"), std::string::npos) << f.result.err;
  EXPECT_LT(f.seconds, 10.0);
}

TEST_F(SpecialFiles, CliChatSaveOntoAFifoReplacesItWithTheSave) {
  // /save writes beside the file and renames over it: a FIFO at the path is replaced by
  // the save, never opened for writing (that blocks until a reader comes).
  const std::string script = dir_.file("script.txt");
  write_text(script, "/save " + fifo_ + "\n/quit\n");
  const CliRun r = run_cli_briefly("chat --model " + sh_quote(demo_path()) + " --ctx 256", script);
  EXPECT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_TRUE(fs::is_regular_file(fifo_));
  const std::string saved = read_text(fifo_);
  EXPECT_NE(saved.find("\"messages\""), std::string::npos) << saved;
}

}  // namespace
}  // namespace kvchat
