// KV snapshots: a saved and restored session continues exactly as the original (same
// next-token logits bit for bit, same greedy continuation, no re-evaluation), and a
// damaged, truncated, foreign or misplaced snapshot is refused with a message while
// the session stays as it was. A whole-file save is atomic. (Appending, torn records
// and compaction: test_snapshot_journal.cpp.)
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

std::unique_ptr<Session> make_session(std::shared_ptr<const Model> model,
                                      const std::string& kv_type, int32_t n_ctx = 256) {
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

using test::read_bytes;
using test::write_bytes;

bool bit_identical(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Recomputes the header's checksum after an edit, so that the edit itself is refused.
void fix_header_checksum(std::vector<uint8_t>& bytes) {
  const uint64_t c = crc64(std::span<const uint8_t>(bytes.data(), 56));
  for (int k = 0; k < 8; ++k) bytes[56 + k] = static_cast<uint8_t>(c >> (8 * k));
}
// Recomputes the first record's trailing checksum (a file of one record).
void fix_record_checksum(std::vector<uint8_t>& bytes) {
  const uint64_t c = crc64(std::span<const uint8_t>(bytes.data() + 64, bytes.size() - 8 - 64));
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
  ASSERT_TRUE(
      s.eval(encode("1 In the beginning God created the heaven and the earth.\n2 And the", false)));
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
  EXPECT_EQ(crc64({reinterpret_cast<const uint8_t*>(check.data()), check.size()}),
            0x995DC9BBDF1939FAull);
  Crc64 split;  // streamed in uneven pieces: the same value
  split.update({reinterpret_cast<const uint8_t*>(check.data()), 2});
  split.update({reinterpret_cast<const uint8_t*>(check.data()) + 2, 7});
  EXPECT_EQ(split.value(), 0x995DC9BBDF1939FAull);
}

TEST(SnapshotFormat, JournalOfTwoRecordsScansToTheLastStateWithTheDocumentedSizes) {
  JournalHeader h;
  h.model_identity = 0x1234;
  h.kv_type = KvType::Q4_0;
  h.n_layers = 3;
  h.n_kv_heads = 2;
  h.head_dim = 32;
  const uint64_t rb = h.row_bytes(0);
  ASSERT_EQ(h.row_bytes(1), rb);
  ASSERT_EQ(rb, 2u * 18);
  // Rows of position p, layer l, K/V v: bytes derived from (record, l, v, p), so that a
  // row read from the wrong place cannot match.
  auto fill = [&](int rec, uint32_t first, uint64_t n) {
    return [=](int32_t l, int32_t v, uint8_t* dst) {
      for (uint64_t k = 0; k < n * rb; ++k)
        dst[k] = static_cast<uint8_t>(rec * 101 + l * 31 + v * 7 + first + k);
      return Status{};
    };
  };
  std::vector<uint8_t> file = encode_journal_header(h);
  ASSERT_EQ(file.size(), 64u);
  EXPECT_EQ(std::memcmp(file.data(), "KVCHATSJ", 8), 0);
  auto sink = [&](std::span<const uint8_t> b) {
    file.insert(file.end(), b.begin(), b.end());
    return Status{};
  };
  // Record 1: 5 tokens from 0. Record 2: keeps 3, adds 2 (a regenerated reply).
  const std::vector<int32_t> t1 = {1, 2, 3, 4, 6}, t2 = {5, 0}, turns1 = {0, 3}, turns2 = {0, 3};
  const std::vector<float> logits = {0.5f, -1, 2, 3, 4, 5, -0.0f};
  JournalRecordContents r1{0, 1, 0, 0, t1, turns1, logits, fill(1, 0, 5)};
  ASSERT_TRUE(write_journal_record(h, r1, sink));
  EXPECT_EQ(file.size(), 64 + 48 + 4 * (5 + 2 + 7) + 3 * 2 * 5 * rb + 8);
  EXPECT_EQ(file.size(), 64 + journal_record_bytes(h, 5, 2, 7));
  const size_t second = file.size();
  JournalRecordContents r2{3, 1, 0, 0, t2, turns2, {}, fill(2, 3, 2)};
  ASSERT_TRUE(write_journal_record(h, r2, sink));
  EXPECT_EQ(file.size() - second, journal_record_bytes(h, 2, 2, 0));

  SnapshotTarget t{0x1234, 3, 2, 32, 7, 16};
  auto st = scan_journal(file.size(), t, snapshot_memory_reader(file));
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(st->tokens, (std::vector<int32_t>{1, 2, 3, 5, 0}));
  EXPECT_EQ(st->turn_starts, turns2);
  EXPECT_TRUE(st->logits.empty());
  EXPECT_EQ(st->n_keep, 1u);
  EXPECT_EQ(st->records.size(), 2u);
  EXPECT_EQ(st->valid_bytes, file.size());
  EXPECT_TRUE(st->stopped.empty()) << st->stopped;
  // Rows 0..2 live in record 1, rows 3..4 in record 2.
  const auto live = journal_live_rows(*st);
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].first_pos, 0u);
  EXPECT_EQ(live[0].n, 3u);
  EXPECT_EQ(live[0].record_n_new, 5u);
  EXPECT_EQ(live[1].first_pos, 3u);
  EXPECT_EQ(live[1].n, 2u);
  // Record 2's V rows of layer 1 sit where the format says.
  std::vector<uint8_t> want(2 * rb);
  (void)fill(2, 3, 2)(1, 1, want.data());
  const uint64_t at = live[1].rows_offset + (2 * 1 + 1) * 2 * rb;
  EXPECT_EQ(std::memcmp(file.data() + at, want.data(), want.size()), 0);

  // The second record torn at every byte: the first record's state, and why.
  for (size_t cut = second + 1; cut < file.size(); cut += 7) {
    auto torn = scan_journal(cut, t, snapshot_memory_reader(std::span(file).first(cut)));
    ASSERT_TRUE(torn) << torn.message();
    EXPECT_EQ(torn->tokens, t1);
    EXPECT_TRUE(bit_identical(torn->logits, logits));
    EXPECT_EQ(torn->valid_bytes, second);
    EXPECT_NE(torn->stopped.find("torn"), std::string::npos) << torn->stopped;
  }
  t.n_ctx = 4;  // too small for the final 5 tokens
  EXPECT_FALSE(scan_journal(file.size(), t, snapshot_memory_reader(file)));
}

// --- round trips with the demo model ----------------------------------------

// Every K/V type pair: "q8_0" (both), "q8_0/q4_0r" (K/V typed apart).
class SnapshotRoundTrip : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> every_kv_type_pair() {
  std::vector<std::string> pairs;
  for (KvType k : kAllKvTypes) {
    for (KvType v : kAllKvTypes) pairs.push_back(kv_types_name(k, v));
  }
  return pairs;
}

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
  // The header and one record: every token's K/V once.
  // K and V rows: half of each type's 2 x layers x tokens x kv_heads x head_dim formula.
  const auto [k, v] = *parse_kv_types(type);
  const uint64_t expect = 64 + 48 + 4 * (a->tokens().size() + a->turn_starts().size() + 2048) +
                          kv_cache_bytes(k, 6, a->tokens().size(), 2, 32) / 2 +
                          kv_cache_bytes(v, 6, a->tokens().size(), 2, 32) / 2 + 8;
  EXPECT_EQ(fs::file_size(path), expect);
  EXPECT_TRUE(a->last_snapshot_save().rewritten);
  EXPECT_EQ(a->last_snapshot_save().bytes_written, expect);

  auto b = make_session(model, type);
  ASSERT_TRUE(b);
  std::vector<SessionEvent> events;
  b->set_event_handler([&](const SessionEvent& e) { events.push_back(e); });
  const Status loaded = b->load_snapshot(path);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_TRUE(events.empty()) << events.front().message;
  EXPECT_EQ(b->tokens_evaluated(), 0u);  // nothing was re-evaluated
  EXPECT_EQ(b->last_snapshot_load().tokens_restored, a->n_past());
  EXPECT_EQ(b->last_snapshot_load().records, 1);
  EXPECT_TRUE(b->last_snapshot_load().ignored_tail.empty());
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

INSTANTIATE_TEST_SUITE_P(EveryKvTypePair, SnapshotRoundTrip,
                         ::testing::ValuesIn(every_kv_type_pair()), [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });

// A snapshot saved with KV type `from` loads into a session of type `to` re-encoded (one
// event naming both, nothing evaluated) exactly as set_kv_type(to) re-encodes the live one:
// the same continuation, bit for bit.
void expect_loads_like_set_kv_type(const std::string& from, const std::string& to) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  test::TempDir dir;
  const std::string path = dir.file("from.kvsnap");
  auto a = make_session(model, from);
  converse(*a);
  ASSERT_TRUE(a->save_snapshot(path));

  auto b = make_session(model, to);
  std::vector<SessionEvent> events;
  b->set_event_handler([&](const SessionEvent& e) { events.push_back(e); });
  ASSERT_TRUE(b->load_snapshot(path));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, SessionEvent::Kind::KvTypeChanged);
  EXPECT_NE(events[0].message.find("saved with " + from), std::string::npos) << events[0].message;
  EXPECT_NE(events[0].message.find("to " + to), std::string::npos) << events[0].message;
  EXPECT_EQ(b->memory_report().kv_type, to);
  EXPECT_EQ(b->tokens_evaluated(), 0u);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));

  ASSERT_TRUE(a->set_kv_type(to));
  auto ga = generate(*a, {}, greedy(20));
  auto gb = generate(*b, {}, greedy(20));
  ASSERT_TRUE(ga && gb);
  EXPECT_EQ(gb->ids, ga->ids);
  EXPECT_TRUE(bit_identical(b->last_logits(), a->last_logits()));
}

TEST(Snapshot, AnotherKvTypeIsReencodedOnLoadLikeSetKvType) {
  expect_loads_like_set_kv_type("f32", "q8_0");
  expect_loads_like_set_kv_type("q8_0/q4_0r", "f16");  // K and V typed apart, rotated V
  expect_loads_like_set_kv_type("q4_0", "f16/q4_0r");
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

// A file of one record: cut anywhere, nothing complete is left to restore.
TEST_F(SnapshotRefusal, TruncatedAtAnyOffset) {
  std::vector<size_t> cuts;
  for (size_t k = 0; k < 50; ++k) cuts.push_back(good_.size() * k / 50);
  for (size_t k = 0; k < 120; ++k) cuts.push_back(k);
  cuts.push_back(good_.size() - 1);
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_refused(*target_, with("cut.kvsnap", std::span(good_).first(cut)),
                   cut < 64 ? "truncated" : "no complete record");
  }
}

// Bytes after the last record are a torn record: ignored, and said so.
TEST_F(SnapshotRefusal, TrailingGarbageIsIgnoredAndReported) {
  std::vector<uint8_t> longer = good_;
  longer.insert(longer.end(), {0x4b, 0x56, 0x4a});
  auto s = make_session(model_, "f16");
  ASSERT_TRUE(s->load_snapshot(with("long.kvsnap", longer)));
  EXPECT_EQ(s->last_snapshot_load().tokens_restored, s->n_past());
  EXPECT_GT(s->n_past(), 0);
  EXPECT_NE(s->last_snapshot_load().ignored_tail.find("torn"), std::string::npos)
      << s->last_snapshot_load().ignored_tail;
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
    // In the header: its own checks or its checksum; past it, the record's checksum (or
    // its size fields, which no longer add up).
    expect_refused(*target_, with("flip.kvsnap", bad),
                   at >= 64 + 48 ? "fails its checksum"
                   : at >= 64    ? "no complete record"
                                 : "");
  }
}

TEST_F(SnapshotRefusal, BadMagic) {
  std::vector<uint8_t> bad = good_;
  std::memcpy(bad.data(), "GGUF\3\0\0\0", 8);
  expect_refused(*target_, with("magic.kvsnap", bad), "not a kvchat KV snapshot");
}

TEST_F(SnapshotRefusal, TheWholeFileFormatOfVersion2) {
  std::vector<uint8_t> old = good_;
  std::memcpy(old.data(), "KVCHATSN", 8);
  put_u32(old, 8, 2);
  expect_refused(*target_, with("v2.kvsnap", old), "older kvchat (format version 2");
}

TEST_F(SnapshotRefusal, CorruptHeader) {
  std::vector<uint8_t> bad = good_;
  bad[30] ^= 1;  // n_layers, checksum left as it was
  expect_refused(*target_, with("header.kvsnap", bad), "header is corrupted: checksum mismatch");
}

TEST_F(SnapshotRefusal, FutureAndUnknownVersions) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, 8, kSnapshotVersion + 1);
  fix_header_checksum(bad);
  expect_refused(*target_, with("v4.kvsnap", bad), "newer kvchat");
  put_u32(bad, 8, 0);
  fix_header_checksum(bad);
  expect_refused(*target_, with("v0.kvsnap", bad), "unknown snapshot format version 0");
}

TEST_F(SnapshotRefusal, UnknownKvTypeCode) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, 24, 9);
  fix_header_checksum(bad);
  expect_refused(*target_, with("type.kvsnap", bad), "unknown KV type");
}

TEST_F(SnapshotRefusal, TokenOutsideTheVocabulary) {
  std::vector<uint8_t> bad = good_;
  put_u32(bad, 64 + 48 + 4 * 3, 5000);  // the 4th token
  fix_record_checksum(bad);
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

  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);  // an append writes the file, not the directory
  ASSERT_EQ(::chmod(sub.c_str(), 0555), 0);
  if (::access(sub.c_str(), W_OK) == 0) {  // root ignores the mode
    ::chmod(sub.c_str(), 0755);
    GTEST_SKIP() << "running with permission to write into a read-only directory (root?)";
  }
  const Status s = a->save_snapshot(path);
  // A session that never saved there rewrites the whole file: refused as well.
  auto b = make_session(model, "f16");
  converse(*b);
  const Status rewrite = b->save_snapshot(path);
  ::chmod(sub.c_str(), 0755);
  ASSERT_FALSE(rewrite);
  EXPECT_NE(rewrite.message().find("cannot create"), std::string::npos) << rewrite.message();
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

  // The same with a whole-file rewrite (a session that never saved there): the
  // temporary file goes, the old file stays.
  auto b = make_session(model, "f16");
  converse(*b);
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status rewrite = b->save_snapshot(path);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(rewrite);
  EXPECT_NE(rewrite.message().find("cannot write"), std::string::npos) << rewrite.message();
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_TRUE(leftovers(dir.path()).empty());

  ASSERT_TRUE(a->save_snapshot(path));  // and it works again afterwards
  EXPECT_NE(read_bytes(path), old);
  auto c = make_session(model, "f16");
  ASSERT_TRUE(c->load_snapshot(path));
  EXPECT_EQ(c->tokens(), a->tokens());
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
