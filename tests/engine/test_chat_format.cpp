// ChatFormat: the model's own template, an override, or a named built-in format; BOS
// never doubled; a template that refuses a system message still gets the system prompt.
// Templates are real ones from ../shared/templates/cases.json, tokenizers real vocabs.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gguf/gguf_file.h"
#include "kvchat/chat_format.h"
#include "support/test_paths.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat {
namespace {

using test::shared_path;

std::unique_ptr<Tokenizer> vocab(const std::string& name) {
  auto file = gguf::GgufFile::open(shared_path("vocab/ggml-vocab-" + name + ".gguf"));
  EXPECT_TRUE(file.ok()) << file.message();
  auto tok = load_tokenizer(**file);
  EXPECT_TRUE(tok.ok()) << tok.message();
  return std::move(tok).value();
}

std::string real_template(const std::string& name) {
  static const nlohmann::json cases = test::load_json(shared_path("templates/cases.json"));
  return cases["templates"][name].get<std::string>();
}

TEST(ChatFormat, FileTemplateRendersWithTheVocabsBosAndIsTokenizedWithoutASecondBos) {
  auto tok = vocab("llama-bpe");
  auto f = ChatFormat::create(real_template("meta-llama-Llama-3.2-3B-Instruct.jinja"), *tok);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->source(), ChatFormatSource::File);
  EXPECT_EQ(f->description(), "the model's own chat template");
  auto text = f->render("", {{"user", "Hi"}});
  ASSERT_TRUE(text.ok()) << text.message();
  const std::string bos = tok->token_text(tok->bos());
  EXPECT_EQ(bos, "<|begin_of_text|>");
  ASSERT_EQ(text->rfind(bos, 0), 0u) << *text;
  // The generation prompt is open at the end.
  EXPECT_TRUE(text->ends_with("<|start_header_id|>assistant<|end_header_id|>\n\n")) << *text;
  const std::vector<TokenId> ids = f->tokenize(*text);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], tok->bos());
  EXPECT_NE(ids[1], tok->bos());
  int n_bos = 0;
  for (TokenId id : ids) n_bos += id == tok->bos();
  EXPECT_EQ(n_bos, 1);
  // <|eot_id|> closed the user's turn as one special token, which also ends a reply.
  const TokenId eot = tok->encode_with_special("<|eot_id|>", false).at(0);
  EXPECT_NE(std::find(ids.begin(), ids.end(), eot), ids.end());
  EXPECT_TRUE(tok->is_eog(eot));
}

TEST(ChatFormat, AReplyClosesItsTurnWithoutOpeningANewOne) {
  auto tok = vocab("llama-bpe");
  auto f = ChatFormat::create(real_template("Qwen-Qwen2.5-7B-Instruct.jinja"), *tok);
  ASSERT_TRUE(f.ok()) << f.message();
  auto open = f->render("Be brief.", {{"user", "Hi"}});
  auto closed = f->render("Be brief.", {{"user", "Hi"}, {"assistant", "Hello!"}});
  ASSERT_TRUE(open.ok() && closed.ok());
  EXPECT_EQ(*open,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\n");
  EXPECT_EQ(*closed, *open + "Hello!<|im_end|>\n");
}

TEST(ChatFormat, ATemplateThatRefusesSystemMessagesGetsThePromptInTheFirstUserTurn) {
  auto tok = vocab("llama-spm");
  auto f = ChatFormat::create(real_template("google-gemma-2-2b-it.jinja"), *tok);
  ASSERT_TRUE(f.ok()) << f.message();
  auto text = f->render("Answer in French.", {{"user", "Hi"}});
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text,
            "<s><start_of_turn>user\nAnswer in French.\n\nHi<end_of_turn>\n<start_of_turn>model\n");
  // A conversation the template itself refuses is an error with the template's words.
  auto bad = f->render("", {{"assistant", "first"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("Conversation roles must alternate"), std::string::npos)
      << bad.message();
}

TEST(ChatFormat, NoTemplateMeansTheNamedCompletionFormatAndTheWindowIsTold) {
  auto tok = vocab("llama-spm");
  auto f = ChatFormat::create("", *tok);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->source(), ChatFormatSource::BuiltIn);
  EXPECT_EQ(f->kind(), ChatTemplateKind::Completion);
  EXPECT_NE(f->description().find("the file has no chat template"), std::string::npos);
  auto text = f->render("", {{"user", "In the beginning"}});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, render_chat(ChatTemplateKind::Completion, "", {{"user", "In the beginning"}}));
}

TEST(ChatFormat, OverridesNameABuiltInOrGiveJinjaAndBadOnesAreRefused) {
  auto tok = vocab("llama-bpe");
  const std::string file = real_template("meta-llama-Llama-3.1-8B-Instruct.jinja");
  auto chatml = ChatFormat::create(file, *tok, "builtin:chatml");
  ASSERT_TRUE(chatml.ok()) << chatml.message();
  EXPECT_EQ(chatml->source(), ChatFormatSource::Override);
  EXPECT_EQ(*chatml->render("", {{"user", "Hi"}}),
            render_chat(ChatTemplateKind::ChatML, "", {{"user", "Hi"}}));
  auto unknown = ChatFormat::create(file, *tok, "builtin:vicuna");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("known: completion, llama2"), std::string::npos)
      << unknown.message();
  auto jinja = ChatFormat::create(
      file, *tok, "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}");
  ASSERT_TRUE(jinja.ok()) << jinja.message();
  EXPECT_EQ(*jinja->render("S", {{"user", "U"}}), "[system] S\n[user] U\n");
  auto broken = ChatFormat::create(file, *tok, "{% if %}");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.message().find("does not parse"), std::string::npos);
}

TEST(ChatFormat, AFileTemplateThatDoesNotParseFallsBackToTheFamilyItsMarkersSuggest) {
  auto tok = vocab("llama-bpe");
  auto f = ChatFormat::create("{{ '<|im_start|>' }}{% for %}", *tok);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->source(), ChatFormatSource::BuiltIn);
  EXPECT_EQ(f->kind(), ChatTemplateKind::ChatML);
  EXPECT_NE(f->description().find("does not parse"), std::string::npos) << f->description();
}

}  // namespace
}  // namespace kvchat
