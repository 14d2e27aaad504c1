// A whole model with a real byte-level BPE vocabulary (Llama 3's, from
// ../shared/vocab/ggml-vocab-llama-bpe.gguf) and synthetic weights: it loads through
// Model::load, its prompts are the Llama 3.2 template's rendering with special tokens
// parsed, and generation ends at an end-of-turn token that is not EOS, which never
// shows in the reply text.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "kvchat/chat_format.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::shared_path;

const std::string kLlamaBpe = shared_path("vocab/ggml-vocab-llama-bpe.gguf");

// A llama model of the smallest synthetic shape with the vocabulary of `vocab_path`.
std::shared_ptr<const Model> bpe_model(const test::TempDir& dir, const std::string& vocab_path,
                                       const std::string& name) {
  auto spec = synthetic_arch_spec("llama");
  EXPECT_TRUE(spec.ok()) << spec.message();
  spec->tied = false;  // a separate output matrix: tied random weights repeat a token
  spec->type = gguf::TensorType::F16;
  spec->vocab_from = vocab_path;
  const std::string path = dir.file(name);
  if (auto st = write_synthetic_model(path, *spec); !st) {
    ADD_FAILURE() << st.message();
    return nullptr;
  }
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.message();
  return model.ok() ? std::move(model).value() : nullptr;
}

// A copy of the vocab-only GGUF at `from` with tokenizer.ggml.eot_token_id = eot.
std::string vocab_with_eot(const test::TempDir& dir, const std::string& from, TokenId eot) {
  auto file = gguf::GgufFile::open(from);
  EXPECT_TRUE(file.ok()) << file.message();
  gguf::GgufWriter w;
  for (const gguf::KeyValue& kv : (*file)->metadata()) {
    if (kv.key != "tokenizer.ggml.eot_token_id") w.set(kv.key, kv.value);
  }
  w.set_u32("tokenizer.ggml.eot_token_id", static_cast<uint32_t>(eot));
  const std::string path = dir.file("vocab-eot.gguf");
  auto st = w.write_file(path);
  EXPECT_TRUE(st.ok()) << st.message();
  return path;
}

GenerateOptions greedy(int n) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 0;
  return o;
}

TEST(BpeModel, LoadsAndRendersTheLlama3TemplateWithSpecialTokens) {
  test::TempDir dir;
  auto model = bpe_model(dir, kLlamaBpe, "llama-bpe.gguf");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->info().tokenizer_model, "gpt2");
  EXPECT_EQ(model->info().n_vocab, 128256);
  const Tokenizer& tok = model->tokenizer();
  // Byte-level BPE: "Hello world" is two tokens, the space inside the second.
  EXPECT_EQ(tok.encode("Hello world", false), (std::vector<TokenId>{9906, 1917}));

  const nlohmann::json cases = test::load_json(shared_path("templates/cases.json"));
  auto format = ChatFormat::create(
      cases["templates"]["meta-llama-Llama-3.2-3B-Instruct.jinja"].get<std::string>(), tok);
  ASSERT_TRUE(format.ok()) << format.message();
  auto text = format->render("", {{"user", "Hello world"}});
  ASSERT_TRUE(text.ok()) << text.message();
  const std::vector<TokenId> ids = format->tokenize(*text);
  // <|begin_of_text|> once, then <|start_header_id|>system<|end_header_id|> ... and the
  // user's turn; the user's words tokenize exactly as plain text.
  ASSERT_GE(ids.size(), 4u);
  EXPECT_EQ(ids[0], 128000);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 128000), 1);
  EXPECT_EQ(ids[1], 128006);                                 // <|start_header_id|>
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 128009), 2);  // <|eot_id|> after system, user
  const std::vector<TokenId> hello = {9906, 1917};
  EXPECT_NE(std::search(ids.begin(), ids.end(), hello.begin(), hello.end()), ids.end());

  auto session = Session::create(model, SessionOptions{});
  ASSERT_TRUE(session.ok()) << session.message();
  auto reply = generate(**session, ids, greedy(6));
  ASSERT_TRUE(reply.ok()) << reply.message();
  EXPECT_GE(reply->ids.size(), 1u);
}

TEST(BpeModel, GenerationEndsAtAnEndOfTurnTokenThatIsNotEosAndItIsNotInTheText) {
  test::TempDir dir;
  auto first = bpe_model(dir, kLlamaBpe, "a.gguf");
  ASSERT_TRUE(first);
  const std::vector<TokenId> prompt = first->tokenizer().encode("Once upon a time, in a", true);
  auto s1 = Session::create(first, SessionOptions{});
  ASSERT_TRUE(s1.ok());
  auto r1 = generate(**s1, prompt, greedy(12));
  ASSERT_TRUE(r1.ok()) << r1.message();
  ASSERT_EQ(r1->ids.size(), 12u);
  // The first token of the greedy reply that it had not produced before.
  size_t k = 0;
  for (size_t i = 1; i < r1->ids.size() && k == 0; ++i) {
    if (std::find(r1->ids.begin(), r1->ids.begin() + i, r1->ids[i]) == r1->ids.begin() + i) k = i;
  }
  ASSERT_GT(k, 0u) << "the greedy reply repeats one token: choose another prompt";
  const TokenId end_of_turn = r1->ids[k];
  ASSERT_NE(end_of_turn, first->tokenizer().eos());
  ASSERT_FALSE(first->tokenizer().is_eog(end_of_turn));

  // The same weights, with that token declared the end of a turn.
  auto model = bpe_model(dir, vocab_with_eot(dir, kLlamaBpe, end_of_turn), "b.gguf");
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->tokenizer().is_eog(end_of_turn));
  auto s2 = Session::create(model, SessionOptions{});
  ASSERT_TRUE(s2.ok());
  auto r2 = generate(**s2, prompt, greedy(12));
  ASSERT_TRUE(r2.ok()) << r2.message();
  EXPECT_EQ(r2->stop_reason, StopReason::Eos);
  EXPECT_EQ(r2->ids, std::vector<TokenId>(r1->ids.begin(), r1->ids.begin() + k + 1));
  std::string before;
  for (size_t i = 0; i < k; ++i) before += model->tokenizer().token_bytes(r1->ids[i]);
  EXPECT_EQ(r2->text, before);
}

}  // namespace
}  // namespace kvchat
