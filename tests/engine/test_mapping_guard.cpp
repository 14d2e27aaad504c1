// A model file cut short while a process reads its weights lazily through the mapping
// (no prefetch, as kvchat-cli runs; issue 24 point 9). Without the guard the next read of
// a lost page kills the process with SIGBUS (rc 135). With it (gguf/mapping_guard.h) the
// read sees zeros, the step is discarded and every later step fails with an error naming
// the file and both sizes, until the model is loaded again. A file replaced by rename
// keeps working (the mapping holds the old inode); one rewritten in place is an error.
// SIGBUS outside every guarded mapping still goes to the previous handler or kills.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;

std::string demo_path() { return test::shared_path("models/kjv-demo-f16.gguf"); }

std::unique_ptr<Session> make_session(const std::shared_ptr<const Model>& model) {
  SessionOptions o;
  o.backend = "cpu";
  o.n_threads = 2;
  o.n_ctx = 128;
  auto s = Session::create(model, o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

// Greedy continuation of a fixed prompt on a fresh session, or the error.
Result<std::string> reply(const std::shared_ptr<const Model>& model) {
  SessionOptions o;
  o.backend = "cpu";
  o.n_threads = 2;
  o.n_ctx = 128;
  auto s = Session::create(model, o);
  if (!s) return s.error();
  GenerateOptions g;
  g.max_tokens = 12;
  g.sampling.temperature = 0.0f;
  const auto prompt = model->tokenizer().encode("Genesis 1\n1 In the beginning", true);
  auto r = generate(**s, prompt, g);
  if (!r) return r.error();
  return r->text;
}

std::shared_ptr<const Model> load(const std::string& path) {
  auto m = Model::load(path);
  EXPECT_TRUE(m) << m.message();
  return m ? m.value() : nullptr;
}

class MappingGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    copy_ = dir_.file("model.gguf");
    fs::copy_file(demo_path(), copy_);
    size_ = fs::file_size(copy_);
    auto expected = reply(load(demo_path()));
    ASSERT_TRUE(expected) << expected.message();
    expected_ = *expected;
    ASSERT_FALSE(expected_.empty());
  }
  test::TempDir dir_;
  std::string copy_, expected_;
  uintmax_t size_ = 0;
};

TEST_F(MappingGuard, CutShortWhileInUseIsAnErrorNotSigbus) {
  auto model = load(copy_);
  ASSERT_TRUE(model);
  ASSERT_FALSE(model->gguf().read_in_complete());  // weights come from the file as needed
  auto session = make_session(model);
  ASSERT_TRUE(session);
  const auto prompt = model->tokenizer().encode("Genesis 1\n1 In the beginning", true);
  ASSERT_TRUE(session->eval(prompt));
  const std::vector<float> logits(session->last_logits().begin(), session->last_logits().end());
  const int32_t n_past = session->n_past();

  fs::resize_file(copy_, size_ / 3);  // most weight pages are gone from under the mapping
  const TokenId next = prompt.back();
  const Status step = session->eval(std::span<const TokenId>(&next, 1));
  ASSERT_FALSE(step);  // the step read zeros: discarded
  const std::string& m = step.message();
  const std::vector<std::string> parts = {copy_ + ": the model file was cut short while in use",
                                          std::to_string(size_) + " bytes when opened",
                                          std::to_string(size_ / 3) + " now",
                                          "load the model again"};
  for (const std::string& part : parts) {
    EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
  }
  // The session is as it was; the model stays unusable, for every later step and session.
  EXPECT_EQ(session->n_past(), n_past);
  EXPECT_TRUE(std::equal(logits.begin(), logits.end(), session->last_logits().begin(),
                         session->last_logits().end()));
  EXPECT_EQ(session->eval(std::span<const TokenId>(&next, 1)).message(), m);
  EXPECT_EQ(model->check_weights().message(), m);
  auto again = reply(model);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.message(), m);

  // Loaded again from a whole file: the same reply as before the cut.
  fs::remove(copy_);
  fs::copy_file(demo_path(), copy_);
  auto fresh = reply(load(copy_));
  ASSERT_TRUE(fresh) << fresh.message();
  EXPECT_EQ(*fresh, expected_);
}

TEST_F(MappingGuard, CutShortBeforeTheFirstStep) {
  auto model = load(copy_);
  ASSERT_TRUE(model);
  fs::resize_file(copy_, 4096);  // everything but the first page
  auto r = reply(model);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("cut short while in use (" + std::to_string(size_) +
                             " bytes when opened, 4096 now)"),
            std::string::npos)
      << r.message();
}

TEST_F(MappingGuard, ReplacedByRenameKeepsWorking) {
  auto model = load(copy_);
  ASSERT_TRUE(model);
  auto first = reply(model);
  ASSERT_TRUE(first) << first.message();
  EXPECT_EQ(*first, expected_);
  const std::string other = dir_.file("other.gguf");
  std::ofstream(other, std::ios::binary) << "not a model";
  fs::rename(other, copy_);  // the mapping keeps the old inode, whole
  auto second = reply(model);
  ASSERT_TRUE(second) << second.message();
  EXPECT_EQ(*second, expected_);
  EXPECT_TRUE(model->check_weights());
  EXPECT_NE(model->check_file().message().find("replaced by another file"), std::string::npos);
}

TEST_F(MappingGuard, RewrittenInPlaceWhileInUseIsAnError) {
  auto model = load(copy_);
  ASSERT_TRUE(model);
  ASSERT_TRUE(reply(model));
  {
    // Zeros over the whole file, the same size: unread pages of the mapping show them.
    std::fstream f(copy_, std::ios::in | std::ios::out | std::ios::binary);
    const std::vector<char> zeros(size_, 0);
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  auto r = reply(model);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find(copy_ + ": the model file was modified in place while in use"),
            std::string::npos)
      << r.message();
}

TEST_F(MappingGuard, AfterPrefetchACutChangesNothing) {
  // The app's path: the weights read in, the file no longer matters.
  auto model = load(copy_);
  ASSERT_TRUE(model && model->prefetch({}));
  fs::resize_file(copy_, size_ / 3);
  auto r = reply(model);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(*r, expected_);
  EXPECT_TRUE(model->check_weights());
}

// A plain mapping of a file cut short, outside every guarded range, read after a model
// (and so the guard's handler) is in place.
void touch_cut_plain_mapping(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) std::_Exit(10);
  void* p = ::mmap(nullptr, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) std::_Exit(11);
  if (::truncate(path.c_str(), 0) != 0) std::_Exit(12);
  volatile unsigned char c = static_cast<const unsigned char*>(p)[8192];
  (void)c;
}

TEST_F(MappingGuard, SigbusOutsideTheGuardedRangesStillKills) {
  EXPECT_EXIT(
      {
        auto m = Model::load(copy_);
        if (!m) std::_Exit(3);
        std::ofstream(dir_.file("plain.bin"), std::ios::binary) << std::string(1 << 16, 'x');
        touch_cut_plain_mapping(dir_.file("plain.bin"));
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGBUS), "");
  // A SIGBUS sent by kill() is not a fault: it too keeps its default action.
  EXPECT_EXIT(
      {
        auto m = Model::load(copy_);
        if (!m) std::_Exit(3);
        ::kill(::getpid(), SIGBUS);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

void previous_handler(int) { std::_Exit(42); }

// Not a MappingGuard test: its SetUp loads a model, which would install the guard first.
TEST(MappingGuardChain, SigbusOutsideTheGuardedRangesGoesToThePreviousHandler) {
  // threadsafe: the child is a fresh process, so the guard is installed after this handler.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::TempDir dir;
  EXPECT_EXIT(
      {
        std::signal(SIGBUS, previous_handler);
        auto m = Model::load(demo_path());
        if (!m) std::_Exit(3);
        std::ofstream(dir.file("plain.bin"), std::ios::binary) << std::string(1 << 16, 'x');
        touch_cut_plain_mapping(dir.file("plain.bin"));
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(42), "");
}

// kvchat-cli chat reading its model lazily, the file cut between two messages: the second
// gets the error, and the process ends normally with a non-zero status (not SIGBUS).
TEST_F(MappingGuard, CliChatSurvivesItsModelCutShort) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead child must fail the test, not kill it
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  const std::string err_path = dir_.file("stderr");
  const std::string cli = test::bin_path("kvchat-cli");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, 2);
    ::close(in[1]);
    ::close(out[0]);
    ::execl(cli.c_str(), cli.c_str(), "chat", "--model", copy_.c_str(), "--ctx", "256", "-n", "8",
            "--json", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  auto send = [&](const std::string& line) {
    return ::write(in[1], line.data(), line.size()) == static_cast<ssize_t>(line.size());
  };
  // Reads stdout up to the first whole line, waiting at most `seconds`.
  std::string pending;
  auto read_line = [&](double seconds) -> std::string {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (pending.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return {};
      pollfd p{out[0], POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) return {};
      pending.append(buf, static_cast<size_t>(n));
    }
    const size_t nl = pending.find('\n');
    std::string line = pending.substr(0, nl);
    pending.erase(0, nl + 1);
    return line;
  };

  ASSERT_TRUE(send("In the beginning\n"));
  const std::string first = read_line(60);
  EXPECT_NE(first.find("\"text\""), std::string::npos) << "no first reply: " << first;
  fs::resize_file(copy_, size_ / 3);
  ASSERT_TRUE(send("And the earth was without form\n"));
  const std::string second = read_line(60);
  EXPECT_NE(second.find("\"event\":\"error\""), std::string::npos) << second;
  ::close(in[1]);

  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    ::usleep(20000);
  }
  ::close(out[0]);
  std::ifstream ef(err_path);
  const std::string err((std::istreambuf_iterator<char>(ef)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status) << "; stderr:\n"
                                    << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_NE(
      err.find(copy_ + ": the model file was cut short while in use (" + std::to_string(size_) +
               " bytes when opened, " + std::to_string(size_ / 3) + " now)"),
      std::string::npos)
      << err;
}

}  // namespace
}  // namespace kvchat
