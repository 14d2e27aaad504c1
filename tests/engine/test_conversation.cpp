// Conversation (kvchat/conversation.h) on the demo model: the ids a conversation is
// evaluated as (the format's tokenization on a first turn; a sampled reply's own ids
// afterwards), prefix reuse that forwards only the new suffix (counted by the session's
// forward-pass counter), edit / regenerate / undo truncating the cache at the right
// point (checked against a fresh session's logits and a seeded re-run), the context
// policies keeping the system prompt, and two sessions on one model making progress
// at the same time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "kvchat/conversation.h"
#include "kvchat/model.h"
#include "support/document_text.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

const std::string kPrompt = "Genesis 1\n1 In the beginning";

std::shared_ptr<const Model> demo_model() {
  static std::shared_ptr<const Model> model = [] {
    auto m = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
    EXPECT_TRUE(m) << m.message();
    return m ? *m : nullptr;
  }();
  return model;
}

std::unique_ptr<Session> make_session(SessionOptions so = {}) {
  if (so.n_threads == 0) so.n_threads = 1;
  auto s = Session::create(demo_model(), so);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

Conversation make_conversation(SessionOptions so = {}) {
  auto format = ChatFormat::for_model(*demo_model());
  EXPECT_TRUE(format) << format.message();
  return Conversation(make_session(so), *format);
}

GenerateOptions greedy(int n) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 0;
  return o;
}

GenerateOptions sampled(int n, uint64_t seed) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 1.0f;
  o.sampling.top_k = 0;
  o.sampling.top_p = 1.0f;
  o.sampling.min_p = 0.0f;
  o.sampling.seed = seed;
  return o;
}

size_t common_prefix(const std::vector<TokenId>& a, const std::vector<TokenId>& b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first -
                             a.begin());
}

TEST(Conversation, FirstTurnIsTheFormatsTokenization) {
  const Tokenizer& tok = demo_model()->tokenizer();
  // The model's own format (the demo file has none: plain completion).
  Conversation c = make_conversation();
  c.add_user(kPrompt);
  auto ids = c.tokens();
  ASSERT_TRUE(ids) << ids.message();
  EXPECT_EQ(*ids, tok.encode_with_special(kPrompt, tok.add_bos_by_default()));
  // A chat format with a system prompt: rendered text, then the format's tokenization.
  c.set_format(ChatFormat::built_in(ChatTemplateKind::ChatML, tok));
  c.set_system_prompt("You are terse.");
  auto chatml = c.tokens();
  ASSERT_TRUE(chatml) << chatml.message();
  const std::string text =
      render_chat(ChatTemplateKind::ChatML, "You are terse.", {{"user", kPrompt}});
  EXPECT_EQ(*chatml, c.format().tokenize(text));
  EXPECT_EQ(c.session().tokens_evaluated(), 0u);  // counting evaluates nothing
}

TEST(Conversation, SecondTurnKeepsTheSampledIdsAndForwardsOnlyTheNewSuffix) {
  Conversation c = make_conversation();
  const Tokenizer& tok = demo_model()->tokenizer();
  c.add_user(kPrompt);
  auto first = c.reply(sampled(96, 11));
  ASSERT_TRUE(first) << first.message();
  EXPECT_EQ(first->prompt.evaluated_tokens, first->prompt.prompt_tokens);  // empty cache
  ASSERT_EQ(c.messages().size(), 2u);
  EXPECT_EQ(c.messages()[1].role, "assistant");
  EXPECT_EQ(c.messages()[1].content, first->generated.text);
  // The session holds the prompt and every sampled id but the last.
  const std::vector<TokenId> held = c.session().tokens();
  ASSERT_EQ(held.size(),
            static_cast<size_t>(first->prompt.prompt_tokens) + first->generated.ids.size() - 1);
  EXPECT_TRUE(std::equal(first->generated.ids.begin(), first->generated.ids.end() - 1,
                         held.end() - static_cast<long>(first->generated.ids.size() - 1)));

  const std::string more = "\n2 And the earth";
  c.add_user(more);
  auto ids = c.tokens();
  ASSERT_TRUE(ids) << ids.message();
  // The held ids exactly as sampled, then the rest of the text tokenized as a
  // continuation: the last sampled token's bytes and the new message.
  const std::string tail = tok.token_bytes(first->generated.ids.back()) + more;
  std::vector<TokenId> expected = held;
  const auto cont = tok.encode_continuation(tail);
  expected.insert(expected.end(), cont.begin(), cont.end());
  EXPECT_EQ(*ids, expected);

  const uint64_t before = c.session().tokens_evaluated();
  auto second = c.reply(greedy(8));
  ASSERT_TRUE(second) << second.message();
  const uint64_t forwarded_prompt = static_cast<uint64_t>(second->prompt.evaluated_tokens);
  EXPECT_EQ(forwarded_prompt, cont.size());
  EXPECT_EQ(second->prompt.reused_tokens, static_cast<int32_t>(held.size()));
  // Forward passes: the suffix, then one per sampled token but the last.
  EXPECT_EQ(c.session().tokens_evaluated() - before,
            forwarded_prompt + second->generated.ids.size() - 1);

  // Nothing new: one token at most is forwarded, to refresh the next-token logits.
  ASSERT_TRUE(c.drop_last_reply());
  auto again = c.reply(greedy(1));
  ASSERT_TRUE(again) << again.message();
  EXPECT_LE(again->prompt.evaluated_tokens, 1);
}

TEST(Conversation, RegenerateTruncatesToThePromptAndReproducesASeededReply) {
  Conversation c = make_conversation();
  c.add_user(kPrompt);
  auto first = c.reply(sampled(40, 5));
  ASSERT_TRUE(first) << first.message();
  ASSERT_TRUE(c.drop_last_reply());
  ASSERT_EQ(c.messages().size(), 1u);
  auto again = c.reply(sampled(40, 5));
  ASSERT_TRUE(again) << again.message();
  // Only the prompt's last token is forwarded again (its logits), and the same seed
  // gives the same reply: the cache holds nothing of the dropped one.
  EXPECT_EQ(again->prompt.evaluated_tokens, 1);
  EXPECT_EQ(again->generated.ids, first->generated.ids);
  EXPECT_EQ(again->generated.text, first->generated.text);
}

// Continue: a greedy reply cut at N tokens and continued for N more is one uncut greedy
// reply of 2N (same ids, same text), and only the cut reply's last token is evaluated
// before sampling goes on. In the demo's plain completion format and in ChatML (whose
// template closes the reply with <|im_end|>, which Continue must leave out).
void expect_continue_matches_an_uncut_reply(std::optional<ChatTemplateKind> kind) {
  const Tokenizer& tok = demo_model()->tokenizer();
  constexpr int kN = 12;
  auto make = [&] {
    Conversation c = make_conversation();
    if (kind) c.set_format(ChatFormat::built_in(*kind, tok));
    c.add_user(kPrompt);
    return c;
  };
  Conversation uncut = make();
  auto whole = uncut.reply(greedy(2 * kN));
  ASSERT_TRUE(whole) << whole.message();
  ASSERT_EQ(whole->generated.stop_reason, StopReason::MaxTokens);
  ASSERT_EQ(whole->generated.ids.size(), static_cast<size_t>(2 * kN));

  Conversation c = make();
  auto first = c.reply(greedy(kN));
  ASSERT_TRUE(first) << first.message();
  ASSERT_EQ(first->generated.stop_reason, StopReason::MaxTokens);
  const int32_t held = c.session().n_past();
  auto more = c.continue_reply(greedy(kN));
  ASSERT_TRUE(more) << more.message();
  std::vector<TokenId> ids = first->generated.ids;
  ids.insert(ids.end(), more->generated.ids.begin(), more->generated.ids.end());
  EXPECT_EQ(ids, whole->generated.ids);
  ASSERT_EQ(c.messages().size(), 2u);  // the reply grew in place
  EXPECT_EQ(c.messages()[1].content, whole->generated.text);
  EXPECT_EQ(c.messages()[1].content, first->generated.text + more->generated.text);
  EXPECT_EQ(more->prompt.evaluated_tokens, 1);  // the cut reply's last sampled token
  EXPECT_EQ(more->prompt.reused_tokens, held);
  EXPECT_EQ(c.session().tokens(), uncut.session().tokens());
}

TEST(Conversation, ContinueACutGreedyReplyGivesTheUncutReply) {
  expect_continue_matches_an_uncut_reply(std::nullopt);
}

TEST(Conversation, ContinueLeavesTheTemplatesEndOfTurnOut) {
  expect_continue_matches_an_uncut_reply(ChatTemplateKind::ChatML);
}

TEST(Conversation, ContinueAfterTheTextsWereForgottenStartsFromTheReplysText) {
  Conversation c = make_conversation();
  c.add_user(kPrompt);
  EXPECT_FALSE(c.continue_reply(greedy(4)));  // the last message is the user's
  ASSERT_EQ(c.messages().size(), 1u);
  auto first = c.reply(greedy(10));
  ASSERT_TRUE(first) << first.message();
  // As after a restart: the messages from the database, no checkpoints, an empty cache.
  const std::vector<ChatMessage> stored = c.messages();
  c.clear();
  c.set_messages(stored);
  auto more = c.continue_reply(greedy(6));
  ASSERT_TRUE(more) << more.message();
  // The prompt is the rendered conversation ending in the open reply, tokenized whole.
  const std::vector<TokenId> prompt = c.format().tokenize(kPrompt + first->generated.text);
  EXPECT_EQ(more->prompt.prompt_tokens, static_cast<int32_t>(prompt.size()));
  EXPECT_EQ(more->prompt.evaluated_tokens, more->prompt.prompt_tokens);
  EXPECT_EQ(c.messages().back().content, first->generated.text + more->generated.text);
  EXPECT_FALSE(more->generated.ids.empty());
}

TEST(Conversation, EditTruncatesAtTheEditAndMatchesAFreshSession) {
  Conversation c = make_conversation();
  c.add_user(kPrompt);
  ASSERT_TRUE(c.reply(sampled(24, 3)));
  const std::vector<TokenId> after_first = c.session().tokens();
  c.add_user("\n2 And the earth");
  ASSERT_TRUE(c.reply(sampled(24, 4)));
  const std::vector<TokenId> after_second = c.session().tokens();

  EXPECT_FALSE(c.edit(1, "x"));  // an assistant message cannot be edited
  EXPECT_FALSE(c.edit(9, "x"));
  ASSERT_TRUE(c.edit(2, "\n2 And the waters"));
  ASSERT_EQ(c.messages().size(), 3u);
  auto ids = c.tokens();
  ASSERT_TRUE(ids) << ids.message();
  // The edited prompt keeps the first exchange's ids.
  ASSERT_GE(common_prefix(*ids, after_first), after_first.size());
  const size_t fork = common_prefix(*ids, after_second);

  std::vector<float> logits;
  ReplyCallbacks cb;
  cb.on_prompt = [&](const PromptStats&) {
    logits.assign(c.session().last_logits().begin(), c.session().last_logits().end());
  };
  const uint64_t before = c.session().tokens_evaluated();
  auto edited = c.reply(greedy(4), cb);
  ASSERT_TRUE(edited) << edited.message();
  // Exactly what follows the fork is forwarded.
  EXPECT_EQ(edited->prompt.evaluated_tokens, static_cast<int32_t>(ids->size() - fork));
  EXPECT_EQ(c.session().tokens_evaluated() - before,
            ids->size() - fork + edited->generated.ids.size() - 1);
  // The next-token logits are those of a fresh session given the same ids.
  auto fresh = make_session();
  ASSERT_TRUE(fresh->eval(*ids));
  ASSERT_EQ(logits.size(), fresh->last_logits().size());
  float worst = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    worst = std::max(worst, std::abs(logits[i] - fresh->last_logits()[i]));
  EXPECT_LT(worst, 2e-3f);
}

TEST(Conversation, UndoDropsTheLastExchangeAndReusesWhatWasBeforeIt) {
  Conversation c = make_conversation();
  EXPECT_FALSE(c.undo());
  c.add_user(kPrompt);
  ASSERT_TRUE(c.reply(greedy(12)));
  const std::vector<TokenId> after_first = c.session().tokens();
  c.add_user("\n2 And the earth");
  ASSERT_TRUE(c.reply(greedy(12)));
  ASSERT_TRUE(c.undo());
  ASSERT_EQ(c.messages().size(), 2u);
  EXPECT_EQ(c.messages().back().role, "assistant");
  c.add_user("\n3 And God said");
  auto r = c.reply(greedy(4));
  ASSERT_TRUE(r) << r.message();
  EXPECT_GE(r->prompt.reused_tokens, static_cast<int32_t>(after_first.size()));
  EXPECT_TRUE(std::equal(after_first.begin(), after_first.end(), c.session().tokens().begin()));
}

TEST(Conversation, PolicyStopRefusesAndLeavesTheMessages) {
  SessionOptions so;
  so.n_ctx = 48;
  Conversation c = make_conversation(so);
  std::string lng;
  for (int i = 0; i < 20; ++i) lng += " And God saw the light, that it was good.";
  c.add_user(lng);
  auto r = c.reply(greedy(4));
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("context"), std::string::npos) << r.message();
  EXPECT_EQ(c.messages().size(), 1u);
}

// A message longer than the context, under each policy: refused, and the conversation is
// exactly as it was (messages, the tokens the session holds, the checkpoints); the next
// message is answered from the cache as it was, and undo removes that exchange. An edit
// into such a message (the prompt forks early) leaves the cache whole too.
TEST(Conversation, ARefusedMessageLeavesTheConversationAsItWas) {
  std::string huge;
  for (int i = 0; i < 40; ++i) huge += " And God saw the light, that it was good.";
  for (ContextPolicy policy :
       {ContextPolicy::Stop, ContextPolicy::DropOldest, ContextPolicy::Shift}) {
    SCOPED_TRACE(std::string(context_policy_name(policy)));
    SessionOptions so;
    so.n_ctx = 96;
    so.context_policy = policy;
    Conversation c = make_conversation(so);
    c.set_system_prompt("Genesis 1\n");
    ASSERT_TRUE(c.reply_to(kPrompt, greedy(8)));
    const std::vector<ChatMessage> messages = c.messages();
    const std::vector<TokenId> held = c.session().tokens();
    const size_t checkpoints = c.checkpoint_count();

    auto refused = c.reply_to(huge, greedy(8));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("the context is full"), std::string::npos)
        << refused.message();
    ASSERT_EQ(c.messages().size(), messages.size());
    EXPECT_EQ(c.messages().back().content, messages.back().content);
    EXPECT_EQ(c.session().tokens(), held);
    EXPECT_EQ(c.session().kv_tokens(), static_cast<int32_t>(held.size()));
    EXPECT_EQ(c.checkpoint_count(), checkpoints);

    // An edit of the first message into the long one: refused before the cache is cut.
    ASSERT_TRUE(c.edit(0, huge));
    ASSERT_FALSE(c.reply(greedy(8)));
    EXPECT_EQ(c.session().tokens(), held);
    c.set_messages(messages);

    auto next = c.reply_to("\n2 And the earth", greedy(4));
    ASSERT_TRUE(next) << next.message();
    EXPECT_EQ(next->prompt.reused_tokens, static_cast<int32_t>(held.size()));
    EXPECT_EQ(c.messages().size(), 4u);
    ASSERT_TRUE(c.undo());
    ASSERT_EQ(c.messages().size(), 2u);
    EXPECT_EQ(c.messages()[0].content, kPrompt);
    EXPECT_EQ(c.messages()[1].content, messages[1].content);
  }
}

// An edit of the last message after drop-oldest dropped the first exchange: the history no
// longer fits (the cache starts at the second exchange), and the reply reads the newest
// exchanges, as a new message would, instead of being refused.
TEST(Conversation, AnEditAfterTurnsWereDroppedIsAnsweredFromTheNewestTurns) {
  for (ContextPolicy policy : {ContextPolicy::DropOldest, ContextPolicy::Shift}) {
    SCOPED_TRACE(std::string(context_policy_name(policy)));
    SessionOptions so;
    so.n_ctx = 96;
    so.context_policy = policy;
    Conversation c = make_conversation(so);
    // Turns until the whole history is longer than the context (the policy dropped some).
    const auto history_tokens = [&] {
      std::string all;
      for (const ChatMessage& m : c.messages()) all += m.content;
      return c.format().tokenize(all).size();
    };
    int turns = 0;
    while (history_tokens() < 130u && turns < 30) {
      auto r = c.reply_to("\n" + std::to_string(++turns) + " And God said, Let there be light",
                          greedy(24));
      ASSERT_TRUE(r) << "turn " << turns << ": " << r.message();
    }
    ASSERT_GE(history_tokens(), 130u);
    const size_t n = c.messages().size();
    const std::string first = c.messages()[0].content;
    ASSERT_TRUE(c.edit(n - 2, "\n9 And the darkness was upon the face of the deep"));
    auto edited = c.reply(greedy(8));
    ASSERT_TRUE(edited) << edited.message();
    EXPECT_LT(edited->prompt.prompt_tokens, 96);
    EXPECT_LE(c.session().n_past(), 96);
    EXPECT_EQ(c.messages().size(), n);  // every message kept
    EXPECT_EQ(c.messages()[0].content, first);
  }
}

void many_turns_keep_the_system_prompt(ContextPolicy policy, SessionEvent::Kind expected) {
  SessionOptions so;
  so.n_ctx = 128;
  so.context_policy = policy;
  Conversation c = make_conversation(so);
  int events = 0;
  c.session().set_event_handler([&](const SessionEvent& e) { events += e.kind == expected; });
  c.set_system_prompt("Genesis 1\n");
  const std::vector<TokenId> system = c.format().tokenize("Genesis 1\n");
  for (int turn = 0; turn < 8; ++turn) {
    c.add_user("\n" + std::to_string(turn + 1) + " And God said, Let there be light");
    auto r = c.reply(greedy(24));
    ASSERT_TRUE(r) << "turn " << turn << ": " << r.message();
    EXPECT_EQ(r->prompt.kept_tokens, static_cast<int32_t>(system.size()));
    EXPECT_LE(c.session().n_past(), 128);
    EXPECT_TRUE(std::equal(system.begin(), system.end(), c.session().tokens().begin()));
  }
  EXPECT_GE(events, 1);
  EXPECT_EQ(c.messages().size(), 16u);  // the messages are all kept; the cache is not
}

TEST(Conversation, PolicyDropOldestKeepsTheSystemPromptOverManyTurns) {
  many_turns_keep_the_system_prompt(ContextPolicy::DropOldest, SessionEvent::Kind::TurnsDropped);
}

TEST(Conversation, PolicyShiftKeepsTheSystemPromptOverManyTurns) {
  many_turns_keep_the_system_prompt(ContextPolicy::Shift, SessionEvent::Kind::ContextShifted);
}

TEST(Conversation, SnapshotRestoreReusesTheCacheByIds) {
  test::TempDir dir;
  Conversation a = make_conversation();
  a.add_user(kPrompt);
  ASSERT_TRUE(a.reply(greedy(16)));
  ASSERT_TRUE(a.save_snapshot(dir.file("c.kvsnap")));

  Conversation b = make_conversation();
  b.set_messages(a.messages());
  ASSERT_TRUE(b.restore_snapshot(dir.file("c.kvsnap")));
  EXPECT_EQ(b.session().tokens(), a.session().tokens());
  b.add_user("\n2 And the earth");
  auto r = b.reply(greedy(2));
  ASSERT_TRUE(r) << r.message();
  // Re-tokenized from text (nothing else is known after a restore), the prompt is
  // still found in the cache.
  EXPECT_GE(
      r->prompt.reused_tokens,
      static_cast<int32_t>(demo_model()->tokenizer().encode_with_special(kPrompt, true).size()));

  Conversation d = make_conversation();
  EXPECT_FALSE(d.restore_snapshot(dir.file("missing.kvsnap")));
  EXPECT_EQ(d.session().n_past(), 0);
}

// Two conversations on one loaded model, each on its own thread: A stops inside its
// first token's callback until B has streamed a token, so both are mid-reply at once
// (a shared lock or shared scratch would hang or change the output). Each reply equals
// the same reply run alone.
TEST(Conversation, TwoSessionsOnOneModelMakeProgressTogether) {
  auto alone = [](const std::string& prompt) {
    Conversation c = make_conversation();
    c.add_user(prompt);
    auto r = c.reply(greedy(24));
    EXPECT_TRUE(r) << r.message();
    return r ? r->generated.text : std::string();
  };
  const std::string prompt_b = "Exodus 1\n1 Now these are the names";
  const std::string want_a = alone(kPrompt), want_b = alone(prompt_b);

  std::mutex mu;
  std::condition_variable cv;
  bool b_streamed = false;
  bool a_waited = false;
  std::string got_a, got_b;
  std::thread ta([&] {
    Conversation c = make_conversation();
    c.add_user(kPrompt);
    ReplyCallbacks cb;
    cb.on_text = [&](std::string_view) {
      std::unique_lock<std::mutex> lock(mu);
      if (!a_waited) {
        a_waited = cv.wait_for(lock, std::chrono::seconds(60), [&] { return b_streamed; });
      }
      return true;
    };
    auto r = c.reply(greedy(24), cb);
    if (r) got_a = r->generated.text;
  });
  std::thread tb([&] {
    Conversation c = make_conversation();
    c.add_user(prompt_b);
    ReplyCallbacks cb;
    cb.on_text = [&](std::string_view) {
      {
        const std::lock_guard<std::mutex> lock(mu);
        b_streamed = true;
      }
      cv.notify_all();
      return true;
    };
    auto r = c.reply(greedy(24), cb);
    if (r) got_b = r->generated.text;
  });
  ta.join();
  tb.join();
  EXPECT_TRUE(a_waited);  // B streamed while A was inside its reply
  EXPECT_EQ(got_a, want_a);
  EXPECT_EQ(got_b, want_b);
}

// A document summarized into a conversation: the same summary the bare pipeline writes on
// a fresh session (the chat's cache before it changes nothing), the exchange appended,
// and the next reply evaluated from an empty cache; cancelled, the messages stay as they
// were.
TEST(Conversation, SummarizeDocumentAppendsTheExchangeTheBarePipelineWrites) {
  SessionOptions so;
  so.n_ctx = 512;
  const std::string text = test::revelation(1).substr(0, 4000);  // about 3 chunks

  auto fresh = make_session(so);
  auto bare_reader = DocumentReader::from_bytes(text, "rev.txt");
  ASSERT_TRUE(bare_reader) << bare_reader.message();
  auto bare = summarize_document(*fresh, **bare_reader, SummarizeOptions{});
  ASSERT_TRUE(bare) << bare.message();
  ASSERT_GT(bare->plan.n_chunks, 1);
  ASSERT_FALSE(bare->summary.empty());

  Conversation c = make_conversation(so);
  c.set_system_prompt("You are a scribe.");
  c.add_user(kPrompt);
  ASSERT_TRUE(c.reply(greedy(8)));
  ASSERT_GT(c.session().n_past(), 0);
  auto reader = DocumentReader::from_bytes(text, "rev.txt");
  ASSERT_TRUE(reader) << reader.message();
  auto r = c.summarize_document(**reader, "Summarize rev.txt", SummarizeOptions{});
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->summary, bare->summary);
  EXPECT_EQ(r->partials.size(), bare->partials.size());
  ASSERT_EQ(c.messages().size(), 4u);
  EXPECT_EQ(c.messages()[2].role, "user");
  EXPECT_EQ(c.messages()[2].content, "Summarize rev.txt");
  EXPECT_EQ(c.messages()[3].role, "assistant");
  EXPECT_EQ(c.messages()[3].content, bare->summary);
  EXPECT_EQ(c.session().n_past(), 0);

  // The next turn sees the summary: its prompt holds the whole conversation, all of it
  // evaluated (nothing of the pipeline's prompts left in the cache to reuse).
  c.add_user("And then?");
  auto ids = c.tokens();
  ASSERT_TRUE(ids);
  auto next = c.reply(greedy(4));
  ASSERT_TRUE(next) << next.message();
  EXPECT_EQ(next->prompt.prompt_tokens, static_cast<int32_t>(ids->size()));
  EXPECT_EQ(next->prompt.evaluated_tokens, next->prompt.prompt_tokens);

  // Cancelled after the first summary: no exchange; the partial comes back to resume with.
  auto again = DocumentReader::from_bytes(text, "rev.txt");
  ASSERT_TRUE(again);
  const size_t before = c.messages().size();
  int written = 0;
  SummarizeCallbacks cb;
  cb.on_summary = [&](const PartialSummary&) { ++written; };
  cb.cancelled = [&] { return written >= 1; };
  auto cancelled = c.summarize_document(**again, "Summarize rev.txt", SummarizeOptions{}, {}, cb);
  ASSERT_TRUE(cancelled) << cancelled.message();
  EXPECT_TRUE(cancelled->cancelled);
  EXPECT_EQ(cancelled->partials.size(), 1u);
  EXPECT_EQ(cancelled->partials[0].text, bare->partials[0].text);
  EXPECT_EQ(c.messages().size(), before);
}

TEST(Conversation, DescribeMemoryShowsTheFormulaWithThisModelsNumbers) {
  Conversation c = make_conversation();
  c.add_user(kPrompt);
  ASSERT_TRUE(c.reply(greedy(8)));
  const int n = c.session().n_past();
  const std::string text = describe_memory(c.session());
  // 2 (K and V) x 6 layers x n tokens x 2 KV heads x 32 head dim x 2 bytes (f16).
  const std::string formula =
      "2 x 6 layers x " + std::to_string(n) +
      " tokens x 2 KV heads x 32 head dim x 2 bytes = " + std::to_string(1536 * n) + " bytes";
  EXPECT_NE(text.find(formula), std::string::npos) << text;
  EXPECT_NE(text.find("policy stop"), std::string::npos) << text;
  EXPECT_NE(text.find("q4_0"), std::string::npos) << text;
}

}  // namespace
}  // namespace kvchat
