// KV snapshot journals: a save after a reply appends only that reply's K/V; a
// truncated conversation appends a truncation record, compacted when dead records
// outweigh the live state; a torn or corrupt last record loads the state before it
// and says so; a failed append loses nothing committed. "Bit for bit" is checked
// against an independent whole-file save: two sessions holding the same tokens, K/V,
// turn marks and logits write byte-identical files.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "kvchat/sampler.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/test_paths.h"
#include "util/file_io.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const Model> demo_model() {
  static std::shared_ptr<const Model> model = [] {
    auto m = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
    EXPECT_TRUE(m) << m.message();
    return m ? m.value() : nullptr;
  }();
  return model;
}

std::unique_ptr<Session> make_session(const std::string& kv_type = "f16", int32_t n_ctx = 256,
                                      ContextPolicy policy = ContextPolicy::Stop) {
  SessionOptions o;
  o.backend = "cpu";
  o.n_threads = 2;
  o.n_ctx = n_ctx;
  o.kv_type = kv_type;
  o.context_policy = policy;
  auto s = Session::create(demo_model(), o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

std::vector<TokenId> encode(const std::string& text, bool bos) {
  return demo_model()->tokenizer().encode(text, bos);
}

using test::read_bytes;
using test::write_bytes;

bool bit_identical(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A system prompt (kept) and a user turn.
void converse(Session& s) {
  const auto system = encode("Genesis 1\n", true);
  s.mark_turn();
  ASSERT_TRUE(s.eval(system));
  s.set_keep(static_cast<int32_t>(system.size()));
  s.mark_turn();
  ASSERT_TRUE(
      s.eval(encode("1 In the beginning God created the heaven and the earth.\n2 And the", false)));
}

// A reply of n greedy tokens as a new turn (each evaluated, EOS or not).
void reply(Session& s, int32_t n) {
  s.mark_turn();
  for (int32_t k = 0; k < n; ++k) {
    // (after a truncation the logits are unknown: any token will do)
    const TokenId next = s.last_logits().empty() ? 5 : argmax(s.last_logits());
    ASSERT_TRUE(s.eval(std::span<const TokenId>(&next, 1)));
  }
}

// What one appended record of n new tokens takes (the format's arithmetic).
uint64_t record_bytes(const Session& s, int32_t n_new) {
  const MemoryReport m = s.memory_report();
  return 48 + 4 * (n_new + s.turn_starts().size() + s.last_logits().size()) +
         n_new * m.kv_bytes_per_token + 8;
}

// The whole-file save of a session holding exactly what `s` holds, by a session that
// never saved there: the independent truth for "the journal restores bit for bit".
std::vector<uint8_t> whole_file(const Session& s, const std::string& path) {
  EXPECT_TRUE(s.save_snapshot(path));
  EXPECT_TRUE(s.last_snapshot_save().rewritten);
  return read_bytes(path);
}

class SnapshotJournal : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(demo_model());
    path_ = dir_.file("chat.kvsnap");
  }
  // Loads path_ into a fresh session and checks it equals `want` bit for bit.
  void expect_restores(const Session& want) {
    auto b = make_session();
    const Status loaded = b->load_snapshot(path_);
    ASSERT_TRUE(loaded) << loaded.message();
    EXPECT_EQ(b->tokens_evaluated(), 0u);
    EXPECT_EQ(b->tokens(), want.tokens());
    EXPECT_EQ(b->turn_starts(), want.turn_starts());
    EXPECT_EQ(b->n_keep(), want.n_keep());
    EXPECT_TRUE(bit_identical(b->last_logits(), want.last_logits()));
    EXPECT_EQ(whole_file(*b, dir_.file("restored.kvsnap")),
              whole_file(want, dir_.file("live.kvsnap")));
  }

  test::TempDir dir_;
  std::string path_;
};

TEST_F(SnapshotJournal, AReplyAppendsOnlyItsOwnTokensAndRestoresBitForBit) {
  auto a = make_session();
  converse(*a);
  ASSERT_TRUE(
      a->eval(encode(" earth was without form, and void; and darkness was upon the face of the "
                     "deep. And the Spirit of God "
                     "moved upon the face of the waters.\n3 And God said, Let there be light: and "
                     "there was light.\n4 And God "
                     "saw the light, that it was good: and God divided the light from the "
                     "darkness.\n5 And God called the "
                     "light Day, and the darkness he called Night. And the evening and the morning "
                     "were the first day.\n",
                     false)));
  ASSERT_GT(a->n_past(), 100);
  ASSERT_TRUE(a->save_snapshot(path_));
  const uint64_t first = fs::file_size(path_);
  EXPECT_TRUE(a->last_snapshot_save().rewritten);
  EXPECT_EQ(a->last_snapshot_save().bytes_written, first);

  reply(*a, 12);
  ASSERT_TRUE(a->save_snapshot(path_));
  const SnapshotSaveStats& st = a->last_snapshot_save();
  EXPECT_FALSE(st.rewritten) << st.why_rewritten;
  EXPECT_EQ(st.tokens_written, 12);
  EXPECT_EQ(st.bytes_written, record_bytes(*a, 12));
  EXPECT_EQ(fs::file_size(path_), first + st.bytes_written);  // the file grew by exactly that
  EXPECT_EQ(st.file_bytes, fs::file_size(path_));

  // A whole-file rewrite (what every save cost before the journal) is several times more.
  const uint64_t whole = 64 + record_bytes(*a, a->n_past());
  EXPECT_LT(st.bytes_written * 3, whole);
  expect_restores(*a);

  // Loading binds the journal: the restored session's next reply appends too.
  auto b = make_session();
  ASSERT_TRUE(b->load_snapshot(path_));
  reply(*b, 5);
  ASSERT_TRUE(b->save_snapshot(path_));
  EXPECT_FALSE(b->last_snapshot_save().rewritten) << b->last_snapshot_save().why_rewritten;
  EXPECT_EQ(b->last_snapshot_save().tokens_written, 5);
  expect_restores(*b);
}

TEST_F(SnapshotJournal, ARegeneratedReplyAppendsATruncationRecord) {
  auto a = make_session();
  converse(*a);
  const int32_t prompt = a->n_past();
  reply(*a, 10);
  ASSERT_TRUE(a->save_snapshot(path_));
  const uint64_t before = fs::file_size(path_);

  // Regenerate: back to the prompt, another reply.
  a->truncate(prompt);
  a->mark_turn();
  const auto other = encode(" And God said, Let there be light", false);
  ASSERT_TRUE(a->eval(other));
  const int32_t n_other = static_cast<int32_t>(other.size());
  ASSERT_TRUE(a->save_snapshot(path_));
  EXPECT_FALSE(a->last_snapshot_save().rewritten) << a->last_snapshot_save().why_rewritten;
  EXPECT_EQ(a->last_snapshot_save().tokens_written, n_other);
  EXPECT_EQ(fs::file_size(path_), before + record_bytes(*a, n_other));
  expect_restores(*a);  // rows [0, prompt) from the first record, the rest from the second
}

TEST_F(SnapshotJournal, AnEditIntoThePromptAndABareTruncationAppendToo) {
  auto a = make_session();
  converse(*a);
  const int32_t prompt = a->n_past();
  reply(*a, 10);
  ASSERT_TRUE(a->save_snapshot(path_));

  // Truncated with nothing new evaluated: a record of no tokens and no logits.
  auto c = make_session();
  ASSERT_TRUE(c->load_snapshot(path_));
  c->truncate(c->n_past() - 2);
  ASSERT_TRUE(c->save_snapshot(path_));
  EXPECT_FALSE(c->last_snapshot_save().rewritten) << c->last_snapshot_save().why_rewritten;
  EXPECT_EQ(c->last_snapshot_save().tokens_written, 0);
  expect_restores(*c);
  EXPECT_TRUE(c->last_logits().empty());

  // An edit that cuts into the prompt: the record restarts there.
  auto b = make_session();
  ASSERT_TRUE(b->load_snapshot(path_));
  b->truncate(prompt - 4);
  ASSERT_TRUE(b->eval(encode(" earth was", false)));
  ASSERT_TRUE(b->save_snapshot(path_));
  EXPECT_FALSE(b->last_snapshot_save().rewritten) << b->last_snapshot_save().why_rewritten;
  EXPECT_EQ(b->last_snapshot_save().tokens_written, b->n_past() - (prompt - 4));
  expect_restores(*b);
}

TEST_F(SnapshotJournal, DeadRecordsAreCompactedAway) {
  auto a = make_session();
  converse(*a);
  const int32_t prompt = a->n_past();
  ASSERT_TRUE(a->save_snapshot(path_));
  bool compacted = false;
  for (int round = 0; round < 12 && !compacted; ++round) {
    a->truncate(prompt);
    reply(*a, 30);
    ASSERT_TRUE(a->save_snapshot(path_));
    compacted = a->last_snapshot_save().rewritten;
    // Never more than twice the live state on disk.
    EXPECT_LE(fs::file_size(path_), 2 * (64 + record_bytes(*a, a->n_past())));
  }
  ASSERT_TRUE(compacted) << "never compacted";
  EXPECT_NE(a->last_snapshot_save().why_rewritten.find("compaction"), std::string::npos);
  EXPECT_EQ(fs::file_size(path_), 64 + record_bytes(*a, a->n_past()));
  expect_restores(*a);
}

TEST_F(SnapshotJournal, ATornOrCorruptLastRecordLoadsThePrefixAndSaysSo) {
  // The truth for the first record's state: a twin session, saved whole elsewhere.
  auto twin = make_session();
  converse(*twin);
  const std::vector<uint8_t> whole_then = whole_file(*twin, dir_.file("then.kvsnap"));

  auto a = make_session();
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path_));
  const uint64_t committed = fs::file_size(path_);
  reply(*a, 9);
  ASSERT_TRUE(a->save_snapshot(path_));
  ASSERT_FALSE(a->last_snapshot_save().rewritten);
  const std::vector<uint8_t> good = read_bytes(path_);
  ASSERT_EQ(good.size(), committed + record_bytes(*a, 9));

  auto check_prefix = [&](const std::vector<uint8_t>& bytes, const std::string& why) {
    write_bytes(path_, bytes);
    auto b = make_session();
    const Status loaded = b->load_snapshot(path_);
    ASSERT_TRUE(loaded) << loaded.message();
    EXPECT_EQ(b->tokens(), twin->tokens());
    EXPECT_TRUE(bit_identical(b->last_logits(), twin->last_logits()));
    EXPECT_EQ(b->last_snapshot_load().records, 1);
    EXPECT_EQ(b->last_snapshot_load().tokens_restored, twin->n_past());
    EXPECT_NE(b->last_snapshot_load().ignored_tail.find(why), std::string::npos)
        << b->last_snapshot_load().ignored_tail;
    EXPECT_EQ(whole_file(*b, dir_.file("prefix.kvsnap")), whole_then);
  };
  for (uint64_t cut = committed + 1; cut < good.size(); cut += (good.size() - committed) / 13) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    check_prefix(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<int64_t>(cut)),
                 "torn");
  }
  for (uint64_t at :
       {committed + 60, committed + 200, committed + 5000, uint64_t{good.size() - 3}}) {
    SCOPED_TRACE("flipped byte " + std::to_string(at));
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x20;
    check_prefix(bad, "fails its checksum");
  }
  std::vector<uint8_t> bad = good;
  bad[committed] ^= 1;  // the record magic
  check_prefix(bad, "corrupt (no record magic)");

  // A session restored from a torn file appends after cutting the tail off.
  write_bytes(path_, std::span(good).first(committed + 100));
  auto b = make_session();
  ASSERT_TRUE(b->load_snapshot(path_));
  reply(*b, 4);
  ASSERT_TRUE(b->save_snapshot(path_));
  EXPECT_FALSE(b->last_snapshot_save().rewritten);
  EXPECT_EQ(fs::file_size(path_), committed + record_bytes(*b, 4));
  expect_restores(*b);
}

TEST_F(SnapshotJournal, AFailedAppendLosesNothingCommitted) {
  auto a = make_session();
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path_));
  const std::vector<uint8_t> committed = read_bytes(path_);
  const std::vector<TokenId> tokens_then = a->tokens();
  reply(*a, 20);

  // The file may grow by 100 bytes only: the append fails part way (as a full disk would).
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = committed.size() + 100;
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status s = a->save_snapshot(path_);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot write"), std::string::npos) << s.message();
  EXPECT_EQ(read_bytes(path_), committed);  // cut back to the committed records

  auto b = make_session();
  ASSERT_TRUE(b->load_snapshot(path_));
  EXPECT_EQ(b->tokens(), tokens_then);
  // The next save appends what the failed one could not.
  ASSERT_TRUE(a->save_snapshot(path_));
  EXPECT_FALSE(a->last_snapshot_save().rewritten);
  EXPECT_EQ(a->last_snapshot_save().tokens_written, 20);
  expect_restores(*a);
}

// A full disk (ENOSPC) or a failing one (EIO), injected through the file layer's seam at
// each step of both kinds of save: the save fails naming the file and the reason, the file
// on disk is exactly the committed journal (no temporary file left), a load gets the
// committed state, and the next save once the disk recovers writes everything.
TEST_F(SnapshotJournal, DiskFullAndIoErrorsAtEveryStepLoseNothingCommitted) {
  struct Fault {
    file_io::FileOp op;
    int error;
    bool rewrite;  // the whole-file path (a KV type change) instead of an append
    const char* says;
  };
  const Fault faults[] = {
      {file_io::FileOp::Write, ENOSPC, false, "No space left on device"},
      {file_io::FileOp::Sync, EIO, false, "Input/output error"},
      {file_io::FileOp::Open, EIO, false, "Input/output error"},
      {file_io::FileOp::Write, ENOSPC, true, "No space left on device"},
      {file_io::FileOp::Sync, EIO, true, "Input/output error"},
      {file_io::FileOp::Rename, EIO, true, "Input/output error"},
  };
  for (const Fault& f : faults) {
    SCOPED_TRACE(std::string(f.rewrite ? "rewrite, " : "append, ") + f.says);
    fs::remove(path_);
    auto a = make_session();
    converse(*a);
    ASSERT_TRUE(a->save_snapshot(path_));
    const std::vector<uint8_t> committed = read_bytes(path_);
    const std::vector<TokenId> tokens_then = a->tokens();
    reply(*a, 12);
    // An append by `a`; or the whole file by a session that never saved here (as after a
    // restart), written to a temporary file and renamed over the journal.
    std::unique_ptr<Session> fresh;
    if (f.rewrite) {
      fresh = make_session();
      converse(*fresh);
      reply(*fresh, 12);
    }
    Session& writer = f.rewrite ? *fresh : *a;

    file_io::set_fault_hook(
        [&](file_io::FileOp op, const std::string&) { return op == f.op ? f.error : 0; });
    const Status s = writer.save_snapshot(path_);
    file_io::set_fault_hook({});
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(f.says), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(path_), std::string::npos) << s.message();
    EXPECT_EQ(read_bytes(path_), committed);
    EXPECT_FALSE(fs::exists(path_ + ".tmp"));

    auto b = make_session();
    ASSERT_TRUE(b->load_snapshot(path_));
    EXPECT_EQ(b->tokens(), tokens_then);
    ASSERT_TRUE(writer.save_snapshot(path_));  // the disk is back
    EXPECT_EQ(writer.last_snapshot_save().rewritten, f.rewrite);
    expect_restores(writer);
  }
}

TEST_F(SnapshotJournal, ContextShiftAppendsFromTheKeptPrefix) {
  auto a = make_session("f16", 96, ContextPolicy::Shift);
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path_));
  const int32_t before = a->n_past();
  reply(*a, 80);  // 80 more tokens do not fit in 96: the context shifts
  ASSERT_LT(a->n_past(), before + 80) << "the context never shifted";
  ASSERT_TRUE(a->save_snapshot(path_));
  const SnapshotSaveStats& st = a->last_snapshot_save();
  if (!st.rewritten) {
    EXPECT_EQ(st.tokens_written, a->n_past() - a->n_keep());
  }
  auto b = make_session("f16", 96, ContextPolicy::Shift);
  ASSERT_TRUE(b->load_snapshot(path_));
  EXPECT_EQ(b->tokens(), a->tokens());
  EXPECT_EQ(whole_file(*b, dir_.file("b.kvsnap")), whole_file(*a, dir_.file("a.kvsnap")));
}

TEST_F(SnapshotJournal, AnotherKvTypeOrAReplacedFileIsRewrittenWhole) {
  auto a = make_session();
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path_));
  ASSERT_TRUE(a->set_kv_type("q8_0"));
  ASSERT_TRUE(a->save_snapshot(path_));
  EXPECT_TRUE(a->last_snapshot_save().rewritten);
  EXPECT_NE(a->last_snapshot_save().why_rewritten.find("KV type"), std::string::npos);

  // Another file renamed over ours: not appended to.
  auto other = make_session("q8_0");
  converse(*other);
  ASSERT_TRUE(other->save_snapshot(dir_.file("other.kvsnap")));
  fs::rename(dir_.file("other.kvsnap"), path_);
  reply(*a, 3);
  ASSERT_TRUE(a->save_snapshot(path_));
  EXPECT_TRUE(a->last_snapshot_save().rewritten);
  EXPECT_NE(a->last_snapshot_save().why_rewritten.find("changed"), std::string::npos);
  auto b = make_session("q8_0");
  ASSERT_TRUE(b->load_snapshot(path_));
  EXPECT_EQ(b->tokens(), a->tokens());
}

}  // namespace
}  // namespace kvchat
