// Model identity: two GGUF files with the same header (metadata and tensor infos) but
// other weights — two fine-tunes of one base model — get different identities and
// refuse each other's KV snapshots; the same file always gets the same identity.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gguf/gguf_file.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/model_identity.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::read_bytes;
using test::write_bytes;

std::shared_ptr<const Model> load(const std::string& path) {
  auto m = Model::load(path);
  EXPECT_TRUE(m) << m.message();
  return m ? m.value() : nullptr;
}

class ModelIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = synthetic_preset("tiny-256");
    ASSERT_TRUE(spec) << spec.message();
    spec_ = *spec;
    spec_.seed = 1;
    ASSERT_TRUE(write_synthetic_model(dir_.file("a.gguf"), spec_));
    spec_.seed = 2;  // other weights, the same metadata
    ASSERT_TRUE(write_synthetic_model(dir_.file("b.gguf"), spec_));
  }
  test::TempDir dir_;
  SyntheticModelSpec spec_;
};

TEST_F(ModelIdentity, SameHeaderOtherWeightsIsAnotherModel) {
  const auto a = read_bytes(dir_.file("a.gguf")), b = read_bytes(dir_.file("b.gguf"));
  auto fa = gguf::GgufFile::parse(a, "a"), fb = gguf::GgufFile::parse(b, "b");
  ASSERT_TRUE(fa && fb);
  // The premise: byte-identical headers, different tensor data.
  ASSERT_EQ((*fa)->data_offset(), (*fb)->data_offset());
  ASSERT_EQ(std::memcmp(a.data(), b.data(), (*fa)->data_offset()), 0);
  ASSERT_NE(a, b);

  auto ma = load(dir_.file("a.gguf")), mb = load(dir_.file("b.gguf"));
  ASSERT_TRUE(ma && mb);
  EXPECT_EQ(ma->info().header_hash, mb->info().header_hash);
  EXPECT_NE(ma->info().weights_sample_hash, mb->info().weights_sample_hash);
  EXPECT_NE(ma->info().identity, mb->info().identity);
  // Deterministic: the same file, the same identity (and the parts combine as documented).
  auto ma2 = load(dir_.file("a.gguf"));
  EXPECT_EQ(ma2->info().identity, ma->info().identity);
  EXPECT_EQ(ma->info().identity,
            model_identity(gguf_header_hash(**fa), sampled_weights_hash(**fa)));
}

// One changed byte inside a sampled window of one tensor (the last window ends at the
// tensor's end) changes the identity; the sample is what is compared.
TEST_F(ModelIdentity, OneTensorsLastBytesChangeTheIdentity) {
  std::vector<uint8_t> bytes = read_bytes(dir_.file("a.gguf"));
  auto f = gguf::GgufFile::parse(bytes, "a");
  ASSERT_TRUE(f);
  const gguf::TensorInfo& t = (*f)->tensors().back();
  const uint64_t before = sampled_weights_hash(**f);
  bytes[(*f)->data_offset() + t.offset + t.n_bytes - 1] ^= 0x01;
  EXPECT_NE(sampled_weights_hash(**f), before);  // parse() keeps a view of `bytes`
  write_bytes(dir_.file("c.gguf"), bytes);
  auto mc = load(dir_.file("c.gguf")), ma = load(dir_.file("a.gguf"));
  ASSERT_TRUE(mc && ma);
  EXPECT_NE(mc->info().identity, ma->info().identity);
  EXPECT_EQ(mc->info().header_hash, ma->info().header_hash);
}

TEST_F(ModelIdentity, AFineTuneRefusesTheOthersSnapshot) {
  auto ma = load(dir_.file("a.gguf")), mb = load(dir_.file("b.gguf"));
  ASSERT_TRUE(ma && mb);
  SessionOptions o;
  o.n_threads = 2;
  o.n_ctx = 64;
  auto a = Session::create(ma, o);
  auto b = Session::create(mb, o);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE((*a)->eval(std::vector<TokenId>{1, 5, 9, 12}));
  ASSERT_TRUE((*a)->save_snapshot(dir_.file("a.kvsnap")));
  ASSERT_TRUE((*b)->eval(std::vector<TokenId>{1, 7}));
  const Status s = (*b)->load_snapshot(dir_.file("a.kvsnap"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("belongs to another model"), std::string::npos) << s.message();
  EXPECT_EQ((*b)->tokens(), (std::vector<TokenId>{1, 7}));
  // ... and the right model takes it.
  auto a2 = Session::create(load(dir_.file("a.gguf")), o);
  ASSERT_TRUE(a2);
  EXPECT_TRUE((*a2)->load_snapshot(dir_.file("a.kvsnap")));
}

}  // namespace
}  // namespace kvchat
