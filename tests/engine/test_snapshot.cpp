// KV snapshots: a saved and restored session continues exactly as the original (same
// next-token logits bit for bit, same greedy continuation, no re-evaluation), and a
// damaged, truncated, foreign or misplaced snapshot is refused with a message while
// the session stays as it was. Saving is atomic.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "kv/kv_snapshot_format.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

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

std::unique_ptr<Session> make_session(std::shared_ptr<const Model> model, const std::string& kv_type,
                                      int32_t n_ctx = 256) {
  SessionOptions o;
  o.backend = "cpu";
  o.n_threads = 2;
  o.n_ctx = n_ctx;
  o.kv_type = kv_type;
  auto s = Session::create(std::move(model), o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

std::vector<TokenId> encode(const std::string& text, bool bos) {
  return demo_model()->tokenizer().encode(text, bos);
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool bit_identical(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Recomputes the trailing checksum after an edit, so that the edit itself is refused.
void fix_checksum(std::vector<uint8_t>& bytes) {
  const uint64_t c = crc64(std::span<const uint8_t>(bytes.data(), bytes.size() - 8));
  for (int k = 0; k < 8; ++k) bytes[bytes.size() - 8 + k] = static_cast<uint8_t>(c >> (8 * k));
}

void put_u32(std::vector<uint8_t>& bytes, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) bytes[at + k] = static_cast<uint8_t>(v >> (8 * k));
}

GenerateOptions greedy(int32_t n) {
  GenerateOptions g;
  g.max_tokens = n;
  g.sampling.temperature = 0;
  return g;
}

// A two-turn conversation with a kept prefix.
void converse(Session& s) {
  const auto system = encode("Genesis 1\n", true);
  s.mark_turn();
  ASSERT_TRUE(s.eval(system));
  s.set_keep(static_cast<int32_t>(system.size()));
  s.mark_turn();
  ASSERT_TRUE(s.eval(encode("1 In the beginning God created the heaven and the earth.\n2 And the", false)));
}

// What a refused load must leave unchanged.
struct SessionState {
  std::vector<TokenId> tokens;
  std::vector<float> logits;
  std::vector<int32_t> turns;
  int32_t n_keep = 0;
  int32_t kv_tokens = 0;
  std::string kv_type;
  uint64_t evaluated = 0;

  explicit SessionState(const Session& s)
      : tokens(s.tokens()),
        logits(s.last_logits().begin(), s.last_logits().end()),
        turns(s.turn_starts()),
        n_keep(s.n_keep()),
        kv_tokens(s.memory_report().kv_tokens),
        kv_type(s.memory_report().kv_type),
        evaluated(s.tokens_evaluated()) {}
  void expect_same(const Session& s) const {
    EXPECT_EQ(s.tokens(), tokens);
    EXPECT_TRUE(bit_identical(s.last_logits(), logits));
    EXPECT_EQ(s.turn_starts(), turns);
    EXPECT_EQ(s.n_keep(), n_keep);
    EXPECT_EQ(s.memory_report().kv_tokens, kv_tokens);
    EXPECT_EQ(s.memory_report().kv_type, kv_type);
    EXPECT_EQ(s.tokens_evaluated(), evaluated);
  }
};

void expect_refused(Session& s, const std::string& path, const std::string& why) {
  const SessionState before(s);
  Status st = s.load_snapshot(path);
  ASSERT_FALSE(st) << "accepted " << path;
  EXPECT_NE(st.message().find(why), std::string::npos) << "message: " << st.message();
  before.expect_same(s);
}

// --- the format alone --------------------------------------------------------

TEST(SnapshotFormat, Crc64MatchesTheStandardCheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(crc64({reinterpret_cast<const uint8_t*>(check.data()), check.size()}), 0x995DC9BBDF1939FAull);
  Crc64 split;  // streamed in uneven pieces: the same value
  split.update({reinterpret_cast<const uint8_t*>(check.data()), 2});
  split.update({reinterpret_cast<const uint8_t*>(check.data()) + 2, 7});
  EXPECT_EQ(split.value(), 0x995DC9BBDF1939FAull);
}

TEST(SnapshotFormat, RoundTripsThroughMemoryWithTheDocumentedSize) {
  SnapshotContents c;
  c.header.model_identity = 0x1234;
  c.header.kv_type = KvType::Q4_0;
  c.header.n_layers = 3;
  c.header.n_kv_heads = 2;
  c.header.head_dim = 32;
  c.header.n_tokens = 5;
  c.header.n_keep = 1;
  c.header.n_turns = 2;
  c.header.n_vocab = 7;
  const std::vector<int32_t> tokens = {1, 2, 3, 4, 6};
  const std::vector<int32_t> turns = {0, 3};
  const std::vector<float> logits = {0.5f, -1, 2, 3, 4, 5, -0.0f};
  const uint64_t rb = c.header.row_bytes();
  ASSERT_EQ(rb, 2u * 18);
  std::vector<uint8_t> rows(3 * 5 * 2 * rb);
  for (size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<uint8_t>(k * 7 + 3);
  c.tokens = tokens;
  c.turn_starts = turns;
  c.logits = logits;
  c.row = [&](int32_t l, int32_t p, bool v) { return rows.data() + ((l * 5 + p) * 2 + (v ? 1 : 0)) * rb; };
  std::vector<uint8_t> file;
  ASSERT_TRUE(write_snapshot(c, [&](std::span<const uint8_t> b) {
    file.insert(file.end(), b.begin(), b.end());
    return Status{};
  }));
  EXPECT_EQ(file.size(), 60 + 4 * (5 + 2 + 7) + rows.size() + 8);
  EXPECT_EQ(file.size(), c.header.file_bytes());
  EXPECT_EQ(std::memcmp(file.data(), "KVCHATSN", 8), 0);

  SnapshotTarget t{0x1234, 3, 2, 32, 7, 16};
  std::vector<uint8_t> got(rows.size());
  auto d = read_snapshot(file.size(), t, snapshot_memory_source(file), nullptr,
                         [&](int32_t l, int32_t p, const uint8_t* k, const uint8_t* v) {
                           std::memcpy(got.data() + ((l * 5 + p) * 2) * rb, k, rb);
                           std::memcpy(got.data() + ((l * 5 + p) * 2 + 1) * rb, v, rb);
                         });
  ASSERT_TRUE(d) << d.message();
  EXPECT_EQ(d->tokens, tokens);
  EXPECT_EQ(d->turn_starts, turns);
  EXPECT_TRUE(bit_identical(d->logits, logits));
  EXPECT_EQ(got, rows);
  EXPECT_EQ(d->header.n_keep, 1u);
  EXPECT_EQ(d->header.kv_type, KvType::Q4_0);

  t.n_ctx = 4;  // too small for 5 tokens
  EXPECT_FALSE(read_snapshot(file.size(), t, snapshot_memory_source(file), nullptr, nullptr));
}

// --- round trips with the demo model ----------------------------------------

class SnapshotRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(SnapshotRoundTrip, RestoredSessionContinuesBitIdenticallyWithoutReevaluation) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  const std::string type = GetParam();
  test::TempDir dir;
  const std::string path = dir.file("chat.kvsnap");

  auto a = make_session(model, type);
  ASSERT_TRUE(a);
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path)) << "save";
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_EQ(fs::file_size(path), 60 + 4 * (a->tokens().size() + a->turn_starts().size() + 2048) +
                                     kv_cache_bytes(*parse_kv_type(type), 6, a->tokens().size(), 2, 32) + 8);

  auto b = make_session(model, type);
  ASSERT_TRUE(b);
  std::vector<SessionEvent> events;
  b->set_event_handler([&](const SessionEvent& e) { events.push_back(e); });
  const Status loaded = b->load_snapshot(path);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_TRUE(events.empty()) << events.front().message;
  EXPECT_EQ(b->tokens_evaluated(), 0u);  // nothing was re-evaluated
  EXPECT_EQ(b->tokens(), a->tokens());
  EXPECT_EQ(b->turn_starts(), a->turn_starts());
  EXPECT_EQ(b->n_keep(), a->n_keep());
  EXPECT_EQ(b->memory_report().kv_tokens, a->n_past());
  EXPECT_EQ(b->memory_report().kv_type, type);
  EXPECT_EQ(b->memory_report().kv_used_bytes, a->memory_report().kv_used_bytes);
  ASSERT_EQ(b->last_logits().size(), 2048u);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));

  const uint64_t a_before = a->tokens_evaluated();
  auto ga = generate(*a, {}, greedy(20));
  auto gb = generate(*b, {}, greedy(20));
  ASSERT_TRUE(ga) << ga.message();
  ASSERT_TRUE(gb) << gb.message();
  EXPECT_EQ(gb->ids, ga->ids);
  EXPECT_EQ(gb->text, ga->text);
  EXPECT_GE(ga->ids.size(), 2u);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));
  EXPECT_EQ(b->tokens_evaluated(), a->tokens_evaluated() - a_before);
}

INSTANTIATE_TEST_SUITE_P(EveryKvType, SnapshotRoundTrip, ::testing::Values("f32", "f16", "q8_0", "q4_0"),
                         [](const auto& info) { return std::string(info.param); });

TEST(Snapshot, AnotherKvTypeIsReencodedOnLoadLikeSetKvType) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  const std::string path = dir.file("f32.kvsnap");
  auto a = make_session(model, "f32");
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path));

  auto b = make_session(model, "q8_0");
  std::vector<SessionEvent> events;
  b->set_event_handler([&](const SessionEvent& e) { events.push_back(e); });
  ASSERT_TRUE(b->load_snapshot(path));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, SessionEvent::Kind::KvTypeChanged);
  EXPECT_NE(events[0].message.find("f32"), std::string::npos) << events[0].message;
  EXPECT_NE(events[0].message.find("q8_0"), std::string::npos) << events[0].message;
  EXPECT_EQ(b->memory_report().kv_type, "q8_0");
  EXPECT_EQ(b->tokens_evaluated(), 0u);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));

  // The same K/V as re-encoding the live session: the same continuation.
  ASSERT_TRUE(a->set_kv_type("q8_0"));
  auto ga = generate(*a, {}, greedy(20));
  auto gb = generate(*b, {}, greedy(20));
  ASSERT_TRUE(ga && gb);
  EXPECT_EQ(gb->ids, ga->ids);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));
}

TEST(Snapshot, WithoutLogitsTheCallerReevaluatesTheLastToken) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  const std::string path = dir.file("nologits.kvsnap");
  auto a = make_session(model, "f16");
  converse(*a);
  a->truncate(a->n_past() - 3);
  ASSERT_TRUE(a->last_logits().empty());
  ASSERT_TRUE(a->save_snapshot(path));

  auto b = make_session(model, "f16");
  ASSERT_TRUE(b->load_snapshot(path));
  EXPECT_EQ(b->tokens(), a->tokens());
  EXPECT_TRUE(b->last_logits().empty());
  const std::vector<TokenId> seq = a->tokens();
  auto na = a->eval_sequence(seq);
  auto nb = b->eval_sequence(seq);
  ASSERT_TRUE(na && nb);
  EXPECT_EQ(*nb, 1);  // only the last token, not the whole prompt
  EXPECT_EQ(*na, 1);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));
}

// --- refusals ---------------------------------------------------------------

class SnapshotRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = demo_model();
    ASSERT_TRUE(model_);
    auto a = make_session(model_, "f16");
    converse(*a);
    ASSERT_TRUE(a->save_snapshot(dir_.file("good.kvsnap")));
    good_ = read_bytes(dir_.file("good.kvsnap"));
    ASSERT_GT(good_.size(), 1000u);
    // The session that refuses: it holds a conversation of its own.
    target_ = make_session(model_, "f16");
    ASSERT_TRUE(target_);
    target_->mark_turn();
    ASSERT_TRUE(target_->eval(encode("Exodus 1\n1 Now these are the names", true)));
  }
  std::string with(const std::string& name, std::span<const uint8_t> bytes) {
    const std::string path = dir_.file(name);
    write_bytes(path, bytes);
    return path;
  }

  test::TempDir dir_;
  std::shared_ptr<const Model> model_;
  std::vector<uint8_t> good_;
  std::unique_ptr<Session> target_;
};

TEST_F(SnapshotRefusal, TheGoodFileLoads) {
  auto s = make_session(model_, "f16");
  EXPECT_TRUE(s->load_snapshot(with("copy.kvsnap", good_)));
}

TEST_F(SnapshotRefusal, TruncatedAtAnyOffset) {
  std::vector<size_t> cuts;
  for (size_t k = 0; k < 50; ++k) cuts.push_back(good_.size() * k / 50);
  for (size_t k = 0; k < 64; ++k) cuts.push_back(k);
  cuts.push_back(good_.size() - 1);
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_refused(*target_, with("cut.kvsnap", std::span(good_).first(cut)), "truncated");
  }
}

TEST_F(SnapshotRefusal, TrailingGarbage) {
  std::vector<uint8_t> longer = good_;
  longer.push_back(0);
  expect_refused(*target_, with("long.kvsnap", longer), "trailing");
}

TEST_F(SnapshotRefusal, OneFlippedByteAnywhere) {
  std::vector<size_t> offsets;
  for (size_t k = 0; k < 50; ++k) offsets.push_back(good_.size() * k / 50 + k);
  for (size_t k = 0; k < 64; ++k) offsets.push_back(k);
  for (size_t k = 1; k <= 8; ++k) offsets.push_back(good_.size() - k);
  for (size_t at : offsets) {
    SCOPED_TRACE("flipped byte " + std::to_string(at));
    std::vector<uint8_t> bad = good_;
    bad[at] ^= 0x5a;
    // Past the header only the checksum can tell; in it, the field's own check may.
    expect_refused(*target_, with("flip.kvsnap", bad), at >= kSnapshotHeaderBytes ? "checksum" : "");
  }
}

TEST_F(SnapshotRefusal, BadMagic) {
  std::vector<uint8_t> bad = good_;
  std::memcpy(bad.data(), "GGUF\3\0\0\0", 8);
  expect_refused(*target_, with("magic.kvsnap", bad), "not a kvchat KV snapshot");
}

TEST_F(SnapshotRefusal, FutureAndUnknownVersions) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, 8, kSnapshotVersion + 1);
  fix_checksum(bad);
  expect_refused(*target_, with("v3.kvsnap", bad), "newer kvchat");
  put_u32(bad, 8, 1);  // version 1 had no window fields
  fix_checksum(bad);
  expect_refused(*target_, with("v1.kvsnap", bad), "older kvchat (format version 1");
  put_u32(bad, 8, 0);
  fix_checksum(bad);
  expect_refused(*target_, with("v0.kvsnap", bad), "unknown snapshot format version 0");
}

TEST_F(SnapshotRefusal, UnknownKvTypeCode) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, 20, 9);
  fix_checksum(bad);
  expect_refused(*target_, with("type.kvsnap", bad), "unknown KV type");
}

TEST_F(SnapshotRefusal, TokenOutsideTheVocabulary) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, kSnapshotHeaderBytes + 4 * 3, 5000);  // the 4th token
  fix_checksum(bad);
  expect_refused(*target_, with("vocab.kvsnap", bad), "outside the vocabulary");
}

TEST_F(SnapshotRefusal, AnotherModel) {
  auto spec = synthetic_preset("kjv-demo-shape");
  ASSERT_TRUE(spec) << spec.message();
  const std::string other_path = dir_.file("other.gguf");
  ASSERT_TRUE(write_synthetic_model(other_path, *spec));
  auto other = Model::load(other_path);
  ASSERT_TRUE(other) << other.message();
  ASSERT_NE(other.value()->info().identity, model_->info().identity);
  auto s = make_session(other.value(), "f16");
  ASSERT_TRUE(s);
  s->mark_turn();
  ASSERT_TRUE(s->eval(std::vector<TokenId>{1, 5, 9}));
  expect_refused(*s, dir_.file("good.kvsnap"), "belongs to another model");
}

TEST_F(SnapshotRefusal, ContextTooSmall) {
  auto s = make_session(model_, "f16", 8);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->eval(encode("Exodus", true)));
  expect_refused(*s, dir_.file("good.kvsnap"), "context of 8 tokens");
}

TEST_F(SnapshotRefusal, MissingFileAndDirectory) {
  expect_refused(*target_, dir_.file("nothing-here.kvsnap"), "cannot open");
  fs::create_directory(dir_.file("a-dir"));
  expect_refused(*target_, dir_.file("a-dir"), "directory");
}

// --- atomic writes ----------------------------------------------------------

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> tmp;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".tmp") tmp.push_back(e.path().string());
  }
  return tmp;
}

TEST(SnapshotSave, ReadOnlyDirectoryLeavesTheOldSnapshotIntact) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  const std::string sub = dir.file("ro");
  fs::create_directory(sub);
  const std::string path = sub + "/chat.kvsnap";
  auto a = make_session(model, "f16");
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path));
  const std::vector<uint8_t> old = read_bytes(path);
  ASSERT_TRUE(a->eval(encode(" more", false)));

  ASSERT_EQ(::chmod(sub.c_str(), 0555), 0);
  if (::access(sub.c_str(), W_OK) == 0) {  // root ignores the mode
    ::chmod(sub.c_str(), 0755);
    GTEST_SKIP() << "running with permission to write into a read-only directory (root?)";
  }
  const Status s = a->save_snapshot(path);
  ::chmod(sub.c_str(), 0755);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot save the snapshot"), std::string::npos) << s.message();
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_TRUE(leftovers(sub).empty());
}

TEST(SnapshotSave, AFailedWriteRemovesTheTemporaryFile) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  const std::string path = dir.file("chat.kvsnap");
  auto a = make_session(model, "f16");
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path));
  const std::vector<uint8_t> old = read_bytes(path);
  ASSERT_GT(old.size(), 8192u);
  ASSERT_TRUE(a->eval(encode(" more", false)));

  // A file size limit makes write() fail part way, as a full disk would (even as root).
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 4096;
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status s = a->save_snapshot(path);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot write"), std::string::npos) << s.message();
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_TRUE(leftovers(dir.path()).empty());
  ASSERT_TRUE(a->save_snapshot(path));  // and it works again afterwards
  EXPECT_NE(read_bytes(path), old);
}

TEST(SnapshotSave, MissingDirectoryFailsCleanly) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  auto a = make_session(model, "f16");
  converse(*a);
  const Status s = a->save_snapshot(dir.file("no/such/dir/chat.kvsnap"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot create"), std::string::npos) << s.message();
  EXPECT_TRUE(leftovers(dir.path()).empty());
}

}  // namespace
}  // namespace kvchat
