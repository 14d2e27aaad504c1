// ReasoningSplitter (kvchat/reasoning.h): a reply's streamed text split into reasoning and
// answer. Every case is fed whole, byte by byte and cut at every pair of byte boundaries
// (so each marker is split across pieces in every possible way) and must come out the
// same; the held-back bytes are only a possible partial marker; the reasoning's byte spans;
// prompt_opens_reasoning on the real Qwen 3 and DeepSeek-R1 templates' prompts, and
// ChatFormat's enable_thinking switch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/model.h"
#include "kvchat/reasoning.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

struct Case {
  std::string name;
  std::string text;
  bool starts_in_thinking = false;
  std::string thinking, answer;
  bool saw = false, closed = false;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"thinking then answer", "<think>\nLet me see.\n</think>\n\nThe answer.", false,
       "Let me see.", "The answer.", true, true},
      {"whitespace before the open marker", " \n <think>a b</think>c", false, "a b", "c", true,
       true},
      {"no thinking", "Just an answer.\n", false, "", "Just an answer.\n", false, false},
      {"no thinking, leading whitespace kept", "\n  Hi", false, "", "\n  Hi", false, false},
      {"a < that is no marker", "<b>bold</b> <think>x</think>", false, "",
       "<b>bold</b> <think>x</think>", false, false},
      {"a marker-like word", "<thinking>no</thinking>", false, "", "<thinking>no</thinking>", false,
       false},
      {"< inside the reasoning", "<think>a < b, a </b> </thin c</think>ok", false,
       "a < b, a </b> </thin c", "ok", true, true},
      {"unclosed at a length stop", "<think>\nstep one\nstep two\n", false, "step one\nstep two",
       "", true, false},
      {"unclosed, a close marker cut short", "<think>abc </thi", false, "abc </thi", "", true,
       false},
      {"starts in thinking", "reasoning\n</think>\n\nanswer", true, "reasoning", "answer", true,
       true},
      {"starts in thinking, the marker repeated", "<think>\nr</think>a", true, "r", "a", true,
       true},
      {"starts in thinking, never closed", "all of it is reasoning ", true,
       "all of it is reasoning", "", true, false},
      {"starts in thinking, empty", "", true, "", "", true, false},
      {"an empty reasoning", "<think>\n\n</think>\n\nHello", false, "", "Hello", true, true},
      {"text after the close marker keeps its markers", "<think>x</think>\ny <think>z</think>",
       false, "x", "y <think>z</think>", true, true},
      {"two blocks before the answer", "<think>a</think>\n<think>b</think>\nc", false, "ab", "c",
       true, true},
      {"only a partial open marker", "<thi", false, "", "<thi", false, false},
      {"whitespace only", "  \n", false, "", "  \n", false, false},
      {"UTF-8 in both parts", "<think>\xc3\xa9t\xc3\xa9</think>\xe2\x82\xac", false,
       "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", true, true},
  };
  return c;
}

struct Outcome {
  ReasoningParts parts;
  bool saw = false, closed = false;
};

Outcome run(const Case& c, const std::vector<size_t>& cuts) {
  ReasoningSplitter s({}, c.starts_in_thinking);
  Outcome out;
  size_t at = 0;
  auto take = [&](const ReasoningParts& d) {
    out.parts.thinking += d.thinking;
    out.parts.answer += d.answer;
  };
  for (size_t cut : cuts) {
    take(s.feed(std::string_view(c.text).substr(at, cut - at)));
    at = cut;
  }
  take(s.feed(std::string_view(c.text).substr(at)));
  take(s.finish());
  out.saw = s.saw_thinking();
  out.closed = s.thinking_closed();
  return out;
}

void expect_case(const Case& c, const Outcome& o, const std::string& how) {
  EXPECT_EQ(o.parts.thinking, c.thinking) << c.name << " (" << how << ")";
  EXPECT_EQ(o.parts.answer, c.answer) << c.name << " (" << how << ")";
  EXPECT_EQ(o.saw, c.saw) << c.name << " (" << how << ")";
  EXPECT_EQ(o.closed, c.closed) << c.name << " (" << how << ")";
}

TEST(ReasoningSplitter, EveryCaseWholeAndOneShot) {
  for (const Case& c : cases()) {
    expect_case(c, run(c, {}), "whole");
    const ReasoningParts p = split_reasoning(c.text, {}, c.starts_in_thinking);
    EXPECT_EQ(p.thinking, c.thinking) << c.name;
    EXPECT_EQ(p.answer, c.answer) << c.name;
  }
}

TEST(ReasoningSplitter, ByteByByte) {
  for (const Case& c : cases()) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < c.text.size(); ++i) cuts.push_back(i);
    expect_case(c, run(c, cuts), "byte by byte");
  }
}

// Markers split across pieces at every boundary: every pair of cuts (one cut included).
TEST(ReasoningSplitter, EveryPairOfByteBoundaries) {
  for (const Case& c : cases()) {
    for (size_t i = 0; i <= c.text.size(); ++i) {
      for (size_t j = i; j <= c.text.size(); ++j) {
        const Outcome o = run(c, {i, j});
        if (o.parts.thinking != c.thinking || o.parts.answer != c.answer || o.saw != c.saw ||
            o.closed != c.closed) {
          expect_case(c, o, "cut at " + std::to_string(i) + " and " + std::to_string(j));
          return;
        }
      }
    }
  }
}

// Only a possible partial marker (and whitespace that may end the part) waits.
TEST(ReasoningSplitter, HoldsBackOnlyAPossibleMarker) {
  ReasoningSplitter s;
  EXPECT_EQ(s.feed("<th").thinking, "");  // may become <think>
  EXPECT_FALSE(s.in_thinking());
  ReasoningParts d = s.feed("ink>Fir");
  EXPECT_TRUE(s.in_thinking());
  EXPECT_TRUE(s.saw_thinking());
  EXPECT_EQ(d.thinking, "Fir");
  EXPECT_EQ(s.feed("st, x <").thinking, "st, x");  // " <" may begin the close marker
  EXPECT_EQ(s.feed("y").thinking, " <y");
  EXPECT_EQ(s.feed("\n</thi").thinking, "");
  d = s.feed("nk>\n\nThe ");
  EXPECT_EQ(d.thinking, "");
  EXPECT_EQ(d.answer, "The ");
  EXPECT_FALSE(s.in_thinking());
  EXPECT_TRUE(s.thinking_closed());
  // In the answer nothing waits: a marker there is text.
  EXPECT_EQ(s.feed("end <").answer, "end <");
  EXPECT_EQ(s.feed("think>").answer, "think>");
  d = s.finish();
  EXPECT_EQ(d.thinking + d.answer, "");
}

TEST(ReasoningSplitter, AnAnswerThatCannotBeAMarkerPassesAtOnce) {
  ReasoningSplitter s;
  EXPECT_EQ(s.feed("  ").answer, "");  // whitespace at the start: reasoning may follow
  EXPECT_EQ(s.feed("Hello").answer, "  Hello");
  EXPECT_FALSE(s.saw_thinking());
}

TEST(ReasoningSplitter, OtherMarkers) {
  const ReasoningMarkers m{"<|thought|>", "<|/thought|>"};
  const ReasoningParts p = split_reasoning("<|thought|>hmm<|/thought|>yes", m);
  EXPECT_EQ(p.thinking, "hmm");
  EXPECT_EQ(p.answer, "yes");
}

TEST(ReasoningSpans, MarkersAndLeadingWhitespaceIncluded) {
  auto spans = reasoning_spans("<think>ab</think>cd");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, 0u);
  EXPECT_EQ(spans[0].end, 17u);
  spans = reasoning_spans("  <think>a</think>b");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, 0u);
  EXPECT_EQ(spans[0].end, 18u);
  spans = reasoning_spans("ab</think>c", {}, /*starts_in_thinking=*/true);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].end, 10u);
  spans = reasoning_spans("abc", {}, true);  // never closed: to the end
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].end, 3u);
  EXPECT_TRUE(reasoning_spans("no <think>x</think>").empty());
  spans = reasoning_spans("<think>a</think> <think>b</think>c");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].begin, 17u);
  EXPECT_EQ(spans[1].end, 33u);
}

// ---- adversarial streams: linear work ------------------------------------------------------

// A stream that makes the splitter hold bytes back piece after piece: `prefix` once, then
// `piece` `count` times, then `suffix`.
struct Stream {
  std::string name, prefix, piece, suffix;
  bool starts_in_thinking = false;
  size_t count = 200000;
};

const std::vector<Stream>& hostile_streams() {
  static const std::vector<Stream> s = {
      {"whitespace at the reply's start", "", " ", "", false},
      {"newlines at the reply's start, then a partial open marker", "", "\n", "<thi", false},
      {"whitespace at the start, then reasoning", "", " \n", "<think>x</think>y", false},
      {"whitespace inside reasoning", "<think>x", " ", "", false},
      {"whitespace inside reasoning, then the close marker", "<think>x", "\n", "</think>a", false},
      {"whitespace inside reasoning the prompt opened", "x", "\t", "", true},
      {"whitespace at a block's start", "<think>", " ", "y</think>", false},
      {"whitespace after the close marker", "<think>x</think>", " ", "z", false},
      {"partial open markers at the start", "", "<thi", "", false},
      {"partial close markers inside reasoning", "<think>", "</thin", "", false},
      {"close marker prefixes and whitespace", "<think>a", " </think", "", false},
      {"whitespace and a partial close marker", "<think>a", "\n</thi", "</think>b", false},
      {"one block after another", "", "<think>a</think>\n", "b", false},
  };
  return s;
}

// Every byte is looked at a bounded number of times: the work stays within a small constant
// of the bytes fed (the old splitter rescanned held-back whitespace on every piece, ~n^2/2,
// 200k whitespace pieces took 22-24 s). Streamed and whole agree.
TEST(ReasoningSplitter, WorkIsLinearInTheBytesFed) {
  for (const Stream& st : hostile_streams()) {
    ReasoningSplitter s({}, st.starts_in_thinking);
    ReasoningParts streamed;
    std::string whole;
    size_t fed = 0;
    auto feed = [&](std::string_view piece) {
      const ReasoningParts d = s.feed(piece);
      streamed.thinking += d.thinking;
      streamed.answer += d.answer;
      whole.append(piece);
      fed += piece.size();
    };
    feed(st.prefix);
    for (size_t i = 0; i < st.count; ++i) feed(st.piece);
    feed(st.suffix);
    const ReasoningParts rest = s.finish();
    streamed.thinking += rest.thinking;
    streamed.answer += rest.answer;
    EXPECT_LE(s.work(), 8 * fed) << st.name << ": " << s.work() << " for " << fed << " bytes";
    const ReasoningParts one = split_reasoning(whole, {}, st.starts_in_thinking);
    EXPECT_EQ(streamed.thinking, one.thinking) << st.name;
    EXPECT_EQ(streamed.answer, one.answer) << st.name;
  }
}

// The same streams, short, against a plain reference of the rules: what the old splitter
// did (whole text at once) must not change.
TEST(ReasoningSplitter, HostileStreamsCutEveryWay) {
  for (Stream st : hostile_streams()) {
    st.count = 6;
    std::string text = st.prefix;
    for (size_t i = 0; i < st.count; ++i) text += st.piece;
    text += st.suffix;
    const ReasoningParts want = split_reasoning(text, {}, st.starts_in_thinking);
    const Case c{st.name, text, st.starts_in_thinking, want.thinking, want.answer};
    std::vector<size_t> cuts;
    for (size_t i = 1; i < text.size(); ++i) cuts.push_back(i);
    const Outcome o = run(c, cuts);
    EXPECT_EQ(o.parts.thinking, want.thinking) << st.name << " (byte by byte)";
    EXPECT_EQ(o.parts.answer, want.answer) << st.name << " (byte by byte)";
  }
}

// ---- prompts of real templates -----------------------------------------------------------

std::string real_template(const std::string& name) {
  static const nlohmann::json doc = test::load_json(test::shared_path("templates/cases.json"));
  return doc["templates"][name].get<std::string>();
}

const Tokenizer& demo_tokenizer() {
  static auto model = Model::load(test::shared_path("models/kjv-demo-f32.gguf"));
  EXPECT_TRUE(model) << model.message();
  return (*model)->tokenizer();
}

TEST(PromptOpensReasoning, Markers) {
  EXPECT_TRUE(prompt_opens_reasoning("<|User|>hi<|Assistant|><think>\n"));
  EXPECT_TRUE(prompt_opens_reasoning("x<think>"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n"));
  EXPECT_FALSE(prompt_opens_reasoning("<think>\nalready going"));
  EXPECT_FALSE(prompt_opens_reasoning(""));
}

TEST(PromptOpensReasoning, DeepSeekR1OpensQwen3DoesNotAndEnableThinkingSwitchesQwen3) {
  const std::vector<ChatMessage> messages = {{"user", "Hello"}};
  auto deepseek = ChatFormat::create(
      "", demo_tokenizer(), real_template("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja"));
  ASSERT_TRUE(deepseek) << deepseek.message();
  EXPECT_TRUE(deepseek->declares_thinking());
  auto text = deepseek->render("", messages);
  ASSERT_TRUE(text) << text.message();
  EXPECT_TRUE(prompt_opens_reasoning(*text, deepseek->reasoning_markers())) << *text;

  auto qwen = ChatFormat::create("", demo_tokenizer(), real_template("Qwen-Qwen3-0.6B.jinja"));
  ASSERT_TRUE(qwen) << qwen.message();
  EXPECT_TRUE(qwen->declares_thinking());
  EXPECT_FALSE(qwen->enable_thinking().has_value());
  text = qwen->render("", messages);
  ASSERT_TRUE(text) << text.message();
  EXPECT_TRUE(text->ends_with("<|im_start|>assistant\n")) << *text;  // the model opens it
  EXPECT_FALSE(prompt_opens_reasoning(*text));

  qwen->set_enable_thinking(false);
  text = qwen->render("", messages);
  ASSERT_TRUE(text) << text.message();
  EXPECT_TRUE(text->ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n")) << *text;
  EXPECT_FALSE(prompt_opens_reasoning(*text));  // closed: the reply is all answer

  qwen->set_enable_thinking(true);  // passed, and the template's default is the same
  auto on = qwen->render("", messages);
  ASSERT_TRUE(on) << on.message();
  qwen->set_enable_thinking(std::nullopt);
  auto unset = qwen->render("", messages);
  ASSERT_TRUE(unset) << unset.message();
  EXPECT_EQ(*on, *unset);

  // Qwen 3 drops the reasoning of a reply that is no longer the last turn.
  text =
      qwen->render("", {{"user", "a"}, {"assistant", "<think>\nx\n</think>\n\ny"}, {"user", "b"}});
  ASSERT_TRUE(text) << text.message();
  EXPECT_EQ(text->find("<think>"), std::string::npos) << *text;
}

TEST(ChatFormatThinking, TemplatesWithoutReasoningDoNotDeclareIt) {
  auto llama = ChatFormat::create("", demo_tokenizer(),
                                  real_template("meta-llama-Llama-3.2-3B-Instruct.jinja"));
  ASSERT_TRUE(llama) << llama.message();
  EXPECT_FALSE(llama->declares_thinking());
  EXPECT_FALSE(
      ChatFormat::built_in(ChatTemplateKind::ChatML, demo_tokenizer()).declares_thinking());
  // The switch does not disturb a template that does not read it.
  auto before = llama->render("", {{"user", "Hi"}});
  llama->set_enable_thinking(false);
  auto after = llama->render("", {{"user", "Hi"}});
  ASSERT_TRUE(before && after);
  EXPECT_EQ(*before, *after);
}

}  // namespace
}  // namespace kvchat
