// A reply's reasoning through Conversation on the demo model with real reasoning templates
// (shared/templates/cases.json as overrides): DeepSeek-R1's generation prompt opens
// <think>, so a greedy reply cut at the length limit is all reasoning, unclosed, its
// tokens and KV bytes (computed by hand from the model's shape) counted; the reasoning and
// the answer stream apart; the raw text stays in messages(). Qwen 3 drops an earlier
// reply's reasoning from the history: the next turn releases exactly the cached tokens
// from the first changed token on, and says how many KV bytes that freed.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvchat/conversation.h"
#include "kvchat/model.h"
#include "support/demo_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::demo_model;

std::string real_template(const std::string& name) {
  static const nlohmann::json doc = test::load_json(test::shared_path("templates/cases.json"));
  return doc["templates"][name].get<std::string>();
}

const std::string kDeepSeek = "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja";
const std::string kQwen3 = "Qwen-Qwen3-0.6B.jinja";

Conversation conversation_with(const std::string& template_name, SessionOptions so = {}) {
  so.n_threads = 1;
  auto session = Session::create(demo_model(), so);
  EXPECT_TRUE(session) << session.message();
  auto format = ChatFormat::for_model(*demo_model(), real_template(template_name));
  EXPECT_TRUE(format) << format.message();
  return Conversation(std::move(session).value(), std::move(format).value());
}

GenerateOptions greedy(int n) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 0;
  return o;
}

// K and V x layers x KV heads x head dim: the values one token holds in the cache.
uint64_t kv_values_per_token(const Model& m) {
  const ModelInfo& i = m.info();
  return 2ull * static_cast<uint64_t>(i.n_layers) * static_cast<uint64_t>(i.n_kv_heads) *
         static_cast<uint64_t>(i.head_dim);
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

struct Streamed {
  std::string thinking, answer;
  int thinking_pieces = 0;
};

ReplyCallbacks split_callbacks(Streamed& s) {
  ReplyCallbacks cb;
  cb.on_text = [&s](std::string_view t) {
    s.answer += t;
    return true;
  };
  cb.on_thinking = [&s](std::string_view t) {
    s.thinking += t;
    ++s.thinking_pieces;
    return true;
  };
  return cb;
}

// The model's shape: 6 layers, 2 KV heads, head dim 32 (the demo model's card).
TEST(ConversationReasoning, DemoModelShape) {
  EXPECT_EQ(kv_values_per_token(*demo_model()), 2u * 6 * 2 * 32);
}

// DeepSeek-R1's prompt ends "<think>\n": everything the model writes is reasoning, never
// closed at the length stop; every sampled token is a reasoning token.
TEST(ConversationReasoning, DeepSeekReplyCutAtTheLengthLimitIsAllUnclosedReasoning) {
  for (const char* kv : {"f16", "q8_0"}) {
    const std::string kv_type = kv;
    SessionOptions so;
    so.kv_type = kv_type;
    Conversation c = conversation_with(kDeepSeek, so);
    Streamed streamed;
    auto r = c.reply_to("Genesis 1", greedy(12), split_callbacks(streamed));
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(r->generated.stop_reason, StopReason::MaxTokens) << r->generated.text;
    const ReasoningStats& rs = r->reasoning;
    EXPECT_TRUE(r->prompt.opens_reasoning);
    EXPECT_TRUE(rs.opened);
    EXPECT_FALSE(rs.closed);
    EXPECT_EQ(rs.thinking_tokens, r->generated.stats.generated_tokens);
    EXPECT_EQ(rs.thinking_tokens, 12);
    // Bytes per token by hand: f16 2 bytes per value; q8_0 34 bytes per 32 values.
    const uint64_t values = kv_values_per_token(*demo_model());
    const uint64_t per_token = kv_type == "f16" ? values * 2 : values / 32 * 34;
    EXPECT_EQ(per_token, kv_type == "f16" ? 1536u : 816u);
    EXPECT_EQ(rs.thinking_kv_bytes, 12u * per_token) << kv_type;
    EXPECT_EQ(rs.thinking_kv_bytes, 12u * c.session().memory_report().kv_bytes_per_token);
    EXPECT_GE(rs.thinking_seconds, 0.0);
    EXPECT_GT(rs.thinking_seconds, 0.0);
    // The reasoning is the text without its surrounding whitespace; nothing is answer.
    EXPECT_EQ(rs.thinking, trimmed(r->generated.text));
    EXPECT_FALSE(rs.thinking.empty());
    EXPECT_EQ(rs.answer, "");
    // Streamed apart: the reasoning to on_thinking, nothing to on_text.
    EXPECT_EQ(streamed.thinking, rs.thinking);
    EXPECT_GT(streamed.thinking_pieces, 1);
    EXPECT_EQ(streamed.answer, "");
    // messages() keeps the raw sampled text.
    EXPECT_EQ(c.messages().back().content, r->generated.text);
    EXPECT_EQ(r->prompt.released_tokens, 0);  // the first turn: nothing was cached
  }
}

// Without on_thinking, on_text gets the raw text as before; the stats are the same.
TEST(ConversationReasoning, WithoutOnThinkingTheRawTextStreams) {
  Conversation c = conversation_with(kDeepSeek);
  std::string raw;
  ReplyCallbacks cb;
  cb.on_text = [&raw](std::string_view t) {
    raw += t;
    return true;
  };
  auto r = c.reply_to("Genesis 1", greedy(8), cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(raw, r->generated.text);
  EXPECT_EQ(r->reasoning.thinking_tokens, r->generated.stats.generated_tokens);
  EXPECT_EQ(r->reasoning.thinking, trimmed(raw));
}

// Stopping from on_thinking stops the reply.
TEST(ConversationReasoning, FalseFromOnThinkingStops) {
  Conversation c = conversation_with(kDeepSeek);
  ReplyCallbacks cb;
  cb.on_thinking = [](std::string_view) { return false; };
  auto r = c.reply_to("Genesis 1", greedy(32), cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->generated.stop_reason, StopReason::Cancelled);
  EXPECT_LT(r->generated.stats.generated_tokens, 32);
}

// Qwen 3 without reasoning in the reply (the demo model never writes <think>): all answer;
// with enable_thinking off its prompt closes an empty block and the reply is answer too.
TEST(ConversationReasoning, Qwen3ReplyWithoutReasoningIsAllAnswer) {
  for (auto enable : {std::optional<bool>{}, std::optional<bool>{false}}) {
    Conversation c = conversation_with(kQwen3);
    ChatFormat f = c.format();
    f.set_enable_thinking(enable);
    c.set_format(f);
    Streamed streamed;
    auto r = c.reply_to("Genesis 1", greedy(8), split_callbacks(streamed));
    ASSERT_TRUE(r) << r.message();
    EXPECT_FALSE(r->prompt.opens_reasoning);
    EXPECT_FALSE(r->reasoning.opened);
    EXPECT_EQ(r->reasoning.thinking_tokens, 0);
    EXPECT_EQ(r->reasoning.thinking_kv_bytes, 0u);
    EXPECT_EQ(r->reasoning.thinking_seconds, 0.0);
    EXPECT_EQ(r->reasoning.answer, r->generated.text);
    EXPECT_EQ(streamed.answer, r->generated.text);
    EXPECT_EQ(streamed.thinking, "");
    if (enable) {
      auto text = c.format().render("", {{"user", "x"}});
      ASSERT_TRUE(text);
      EXPECT_TRUE(text->ends_with("<think>\n\n</think>\n\n")) << *text;
    }
  }
}

// The turn after a reasoning reply: Qwen 3 renders the earlier reply without its
// reasoning, so the cache is kept up to the first changed token and the rest released.
TEST(ConversationReasoning, Qwen3NextTurnReleasesTheTokensFromTheFirstChangedOne) {
  Conversation c = conversation_with(kQwen3);
  const std::vector<ChatMessage> history = {{"user", "Genesis 1"},
                                            {"assistant", "<think>\nx\n</think>\n\ny"}};
  c.set_messages(history);
  // The session holds the exchange as rendered while the reply was the last turn (with
  // its reasoning), as after the reply itself.
  auto held = c.tokens();
  ASSERT_TRUE(held) << held.message();
  auto rendered_held = c.format().render("", history);
  ASSERT_TRUE(rendered_held);
  ASSERT_NE(rendered_held->find("<think>\nx\n</think>"), std::string::npos) << *rendered_held;
  ASSERT_TRUE(c.session().eval_sequence(*held));
  ASSERT_EQ(c.session().n_past(), static_cast<int32_t>(held->size()));

  std::vector<ChatMessage> next = history;
  next.push_back({"user", "And"});
  auto rendered_next = c.format().render("", next);
  ASSERT_TRUE(rendered_next);
  EXPECT_EQ(rendered_next->find("<think>"), std::string::npos) << *rendered_next;
  auto next_ids = c.tokens_for("", next);
  ASSERT_TRUE(next_ids);
  const auto first_changed = static_cast<int32_t>(
      std::mismatch(held->begin(), held->end(), next_ids->begin(), next_ids->end()).first -
      held->begin());
  const int32_t expected_released = static_cast<int32_t>(held->size()) - first_changed;
  ASSERT_GT(expected_released, 0);
  // At least the reasoning block's own tokens left ("<think>\nx\n</think>\n\n").
  EXPECT_GE(
      expected_released,
      static_cast<int32_t>(
          c.session().model().tokenizer().encode_continuation("<think>\nx\n</think>").size()));

  auto r = c.reply_to("And", greedy(2));
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->prompt.released_tokens, expected_released);
  EXPECT_EQ(r->prompt.reused_tokens, first_changed);
  EXPECT_EQ(r->prompt.evaluated_tokens, static_cast<int32_t>(next_ids->size()) - first_changed);
  EXPECT_EQ(r->prompt.released_kv_bytes,
            static_cast<uint64_t>(expected_released) * kv_values_per_token(*demo_model()) * 2);
  // The stored reply keeps its markers (the template decides what history shows).
  EXPECT_EQ(c.messages()[1].content, "<think>\nx\n</think>\n\ny");

  // A regenerate of this reply releases only the reply's last evaluated tokens.
  ASSERT_TRUE(c.drop_last_reply());
  auto again = c.reply(greedy(2));
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(again->prompt.released_tokens, static_cast<int32_t>(r->generated.ids.size()) - 1);
}

// Continuing a reply whose reasoning is closed: what is added is answer.
TEST(ConversationReasoning, ContinueAfterClosedReasoningIsAnswer) {
  Conversation c = conversation_with(kDeepSeek);
  c.set_messages({{"user", "Genesis 1"}, {"assistant", "<think>\nx\n</think>\n\nIn the"}});
  Streamed streamed;
  auto r = c.continue_reply(greedy(4), split_callbacks(streamed));
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->reasoning.opened);
  EXPECT_TRUE(r->reasoning.closed);
  EXPECT_EQ(r->reasoning.thinking_tokens, 0);
  EXPECT_EQ(r->reasoning.thinking, "");
  EXPECT_EQ(r->reasoning.answer, r->generated.text);
  EXPECT_EQ(streamed.answer, r->generated.text);
}

}  // namespace
}  // namespace kvchat
