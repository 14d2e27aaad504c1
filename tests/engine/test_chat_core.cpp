// The chat core every front end uses (kvchat/sampling_config.h, kvchat/chat_model.h,
// Conversation::prompt_for): each sampling field's range at and past its bounds, whole
// numbers, the seed policy; the thinking switch; the session settings checked against a
// model's shape (stories260K's head_dim 8 cannot hold q8_0's 32-value blocks); opening
// the demo model for chatting (a broken override falls back on the file's format with the
// reason, a cancelled prefetch is an error); the demo model found beside an executable; and
// an OpenAI-style message list rendered to exactly the ids a Conversation evaluates.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "kvchat/chat_model.h"
#include "kvchat/conversation.h"
#include "kvchat/sampling_config.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

const std::string kDemo = test::shared_path("models/kjv-demo-f16.gguf");

TEST(SamplingConfig, EachFieldTakesItsRangeAndRefusesPastIt) {
  struct Case {
    const char* field;
    double ok_lo, ok_hi, bad_lo, bad_hi;
  };
  for (const Case& c :
       {Case{"temperature", 0, 2, -0.01, 2.01}, Case{"top_p", 0.001, 1, 0, 1.01},
        Case{"min_p", 0, 1, -0.1, 1.5}, Case{"repeat_penalty", 0.01, 10, 0, 10.5},
        Case{"frequency_penalty", -2, 2, -2.5, 2.5}, Case{"presence_penalty", -2, 2, -3, 3},
        Case{"top_k", 0, 1e9, -1, 3e9}, Case{"repeat_last_n", 0, 4096, -1, 3e9}}) {
    SCOPED_TRACE(c.field);
    SamplingParams p;
    EXPECT_FALSE(set_sampling_field(p, c.field, c.ok_lo));
    EXPECT_DOUBLE_EQ(sampling_field_value(p, c.field), static_cast<float>(c.ok_lo));
    EXPECT_FALSE(set_sampling_field(p, c.field, c.ok_hi));
    for (double bad : {c.bad_lo, c.bad_hi}) {
      const SamplingParams before = p;
      auto e = set_sampling_field(p, c.field, bad);
      ASSERT_TRUE(e);
      EXPECT_EQ(e->field, c.field);
      EXPECT_EQ(e->problem.rfind("must be ", 0), 0u) << e->problem;  // no field name in it
      EXPECT_EQ(sampling_field_value(p, c.field), sampling_field_value(before, c.field));
    }
  }
}

TEST(SamplingConfig, ProblemsSayTheRangeAndWhatWasGiven) {
  SamplingParams p;
  auto e = set_sampling_field(p, "temperature", 5);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->problem, "must be between 0 and 2, got 5");
  e = set_sampling_field(p, "repeat_penalty", 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->problem, "must be greater than 0 and at most 10, got 0");
  e = set_sampling_field(p, "top_k", 2.5);  // a whole-number field
  ASSERT_TRUE(e);
  EXPECT_EQ(e->problem, "must be a whole number between 0 and 2147483647, got 2.5");
  e = set_sampling_field(p, "temperature", std::nan(""));
  ASSERT_TRUE(e);
  e = set_sampling_field(p, "warmth", 1);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->field, "warmth");
}

TEST(SamplingConfig, TheDefaultsPassAndEveryFieldIsChecked) {
  EXPECT_FALSE(check_sampling(SamplingParams{}));
  std::set<std::string> names;
  for (const SamplingField& f : sampling_fields()) names.insert(std::string(f.name));
  EXPECT_EQ(names.size(), 8u);
  SamplingParams p;
  p.min_p = 3;
  auto e = check_sampling(p);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->field, "min_p");
}

TEST(SamplingConfig, SeedPolicy) {
  EXPECT_EQ(resolve_seed(0), 0u);
  EXPECT_EQ(resolve_seed(123456789012345), 123456789012345u);
  std::set<uint64_t> drawn;
  for (int i = 0; i < 32; ++i) {
    for (std::optional<int64_t> s :
         {std::optional<int64_t>{}, std::optional<int64_t>{-1}, std::optional<int64_t>{-77}}) {
      const uint64_t seed = resolve_seed(s);
      EXPECT_LE(seed, static_cast<uint64_t>(kMaxRandomSeed));
      drawn.insert(seed);
    }
  }
  EXPECT_GT(drawn.size(), 90u);  // 96 draws from 2^31 values: collisions are ~0
}

TEST(ChatModel, ThinkingSwitch) {
  EXPECT_EQ(*parse_thinking_switch("on"), std::optional<bool>(true));
  EXPECT_EQ(*parse_thinking_switch("off"), std::optional<bool>(false));
  EXPECT_EQ(*parse_thinking_switch(""), std::optional<bool>());
  auto bad = parse_thinking_switch("maybe");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), "must be on or off, got 'maybe'");
  EXPECT_EQ(thinking_switch_name(true), "on");
  EXPECT_EQ(thinking_switch_name(false), "off");
  EXPECT_EQ(thinking_switch_name(std::nullopt), "");
}

TEST(ChatModel, SessionSettingsAgainstTheModelsShape) {
  using Kind = SettingProblem::Kind;
  const ModelShape stories{8, 512}, demo{32, 512};
  auto p = check_session_settings("q8_0", 0, stories);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].kind, Kind::KvTypeBlock);
  EXPECT_TRUE(p[0].blocking);
  EXPECT_EQ(p[0].block, 32);
  EXPECT_EQ(p[0].error.field, "kv_type");
  EXPECT_TRUE(check_session_settings("q8_0", 0, demo).empty());
  EXPECT_TRUE(check_session_settings("f16", 512, stories).empty());
  p = check_session_settings("q5_k", -1, demo);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].kind, Kind::UnknownKvType);
  EXPECT_EQ(p[1].kind, Kind::NegativeContext);
  p = check_session_settings("f16", 4096, demo);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].kind, Kind::ContextBeyondTraining);
  EXPECT_FALSE(p[0].blocking);
  EXPECT_TRUE(check_session_settings("q4_0", 4096, ModelShape{}).empty());  // not known
}

TEST(ChatModel, OpensTheDemoModelForChatting) {
  ChatModelOptions o;
  o.path = kDemo;
  std::vector<double> progress;
  o.progress = [&](double f) {
    progress.push_back(f);
    return true;
  };
  std::string seen;
  auto m = open_chat_model(o, [&](const Model& model) { seen = model.info().path; });
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(seen, kDemo);
  EXPECT_TRUE(m->format_error.empty());
  EXPECT_TRUE(m->warnings.empty());
  EXPECT_EQ(m->format.source(), ChatFormatSource::BuiltIn);  // the demo has no template
  ASSERT_FALSE(progress.empty());
  EXPECT_DOUBLE_EQ(progress.back(), 1.0);

  o.chat_template = "{% for m in messages %}";  // does not parse
  o.enable_thinking = false;
  auto fallback = open_chat_model(o);
  ASSERT_TRUE(fallback) << fallback.message();
  EXPECT_FALSE(fallback->format_error.empty());
  EXPECT_EQ(fallback->format.description(), m->format.description());
  EXPECT_EQ(fallback->format.enable_thinking(), std::optional<bool>(false));

  o.chat_template.clear();
  o.n_ctx = 4096;  // past the trained 512: a warning, not an error
  auto long_ctx = open_chat_model(o);
  ASSERT_TRUE(long_ctx);
  ASSERT_EQ(long_ctx->warnings.size(), 1u);
  EXPECT_EQ(long_ctx->warnings[0].error.field, "ctx");
}

TEST(ChatModel, RefusesWhatTheModelCannotTakeAndACancelledPrefetch) {
  ChatModelOptions o;
  o.path = test::shared_path("models/stories260K.gguf");
  o.kv_type = "q8_0";
  bool loaded = false;
  auto m = open_chat_model(o, [&](const Model&) { loaded = true; });
  ASSERT_FALSE(m);
  EXPECT_TRUE(loaded);  // the caller saw what the model is before the refusal
  EXPECT_EQ(m.message().rfind("kv_type: q8_0 stores keys in blocks of 32 values", 0), 0u)
      << m.message();
  o.path = kDemo;
  o.kv_type = "f16";
  o.progress = [](double) { return false; };
  EXPECT_FALSE(open_chat_model(o));
  o.path = test::shared_path("models/no-such-model.gguf");
  EXPECT_FALSE(open_chat_model(o));
}

TEST(ChatModel, FindsTheDemoModelBesideAnExecutable) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/bin");
  std::filesystem::create_directories(dir.path() + "/share/kvchat/models");
  EXPECT_EQ(demo_model_path(dir.path() + "/bin/kvchat"), "");
  const std::string model = dir.path() + "/share/kvchat/models/kjv-demo-f16.gguf";
  std::ofstream(model) << "x";
  EXPECT_EQ(demo_model_path(dir.path() + "/bin/kvchat"),
            std::filesystem::weakly_canonical(model).string());
}

TEST(ChatCore, AMessageListRendersAsAConversationEvaluatesIt) {
  auto model = Model::load(kDemo);
  ASSERT_TRUE(model) << model.message();
  auto format = ChatFormat::for_model(**model, "builtin:chatml");
  ASSERT_TRUE(format);
  const std::vector<ChatMessage> request = {{"system", "Be brief."},
                                            {"user", "Genesis 1"},
                                            {"assistant", "1 In the beginning"},
                                            {"system", "Quote the King James Bible."},
                                            {"user", "And then?"}};
  const SystemAndTurns split = split_system_turns(request);
  EXPECT_EQ(split.system, "Be brief.\n\nQuote the King James Bible.");
  ASSERT_EQ(split.turns.size(), 3u);
  EXPECT_EQ(split.turns[2].content, "And then?");

  auto prompt = Conversation::prompt_for(*format, split.system, split.turns);
  ASSERT_TRUE(prompt) << prompt.message();
  SessionOptions so;
  so.n_threads = 1;
  auto session = Session::create(*model, so);
  ASSERT_TRUE(session);
  Conversation conversation(std::move(session).value(), *format);
  auto ids = conversation.tokens_for(split.system, split.turns);
  ASSERT_TRUE(ids);
  EXPECT_EQ(prompt->ids, *ids);
  EXPECT_EQ(prompt->ids, format->tokenize(prompt->text));
  EXPECT_FALSE(prompt->opens_reasoning);
  EXPECT_FALSE(Conversation::prompt_for(*format, split.system, {}));
}

}  // namespace
}  // namespace kvchat
