// Real chat templates rendered exactly as Hugging Face renders them: every case of
// shared/templates/cases.json (14 published templates x conversations, expected text
// produced by jinja2 3.1 with transformers' settings) through ChatTemplate, and a few
// through `kvchat-cli template` byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>

#include "kvchat/chat_template.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

// The cases were rendered with strftime_now() on 2026-01-02.
constexpr std::int64_t kCaseTime = 1767355200;  // 2026-01-02 12:00:00 UTC

ChatRenderOptions options_of(const nlohmann::json& c) {
  ChatRenderOptions o;
  o.add_generation_prompt = c["add_generation_prompt"].get<bool>();
  o.bos_token = c["bos_token"].get<std::string>();
  o.eos_token = c["eos_token"].get<std::string>();
  o.now_unix_seconds = kCaseTime;
  return o;
}

std::string case_name(const nlohmann::json& c) {
  return c["template"].get<std::string>() + " / " + c["conversation"].get<std::string>() +
         (c["add_generation_prompt"].get<bool>() ? " / generation prompt" : "");
}

class ChatTemplateCases : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
    doc_ = test::load_json(test::shared_path("templates/cases.json"));
  }
  nlohmann::json doc_;
};

TEST_F(ChatTemplateCases, EveryCaseRendersExactly) {
  const auto& cases = doc_["cases"];
  ASSERT_EQ(cases.size(), 112u);
  size_t passed = 0;
  for (const auto& c : cases) {
    const std::string source =
        doc_["templates"][c["template"].get<std::string>()].get<std::string>();
    auto tpl = ChatTemplate::parse(source);
    ASSERT_TRUE(tpl.ok()) << case_name(c) << ": " << tpl.message();
    auto text = tpl->render_json(c["messages"].dump(), options_of(c));
    if (c["expected"].is_null()) {
      // The template raises: our error carries its message.
      const std::string want = c["error"].get<std::string>();
      EXPECT_FALSE(text.ok()) << case_name(c);
      if (!text.ok()) {
        EXPECT_NE(text.message().find(want), std::string::npos)
            << case_name(c) << ": " << text.message();
        passed += text.message().find(want) != std::string::npos;
      }
      continue;
    }
    ASSERT_TRUE(text.ok()) << case_name(c) << ": " << text.message();
    EXPECT_EQ(*text, c["expected"].get<std::string>()) << case_name(c);
    passed += *text == c["expected"].get<std::string>();
  }
  EXPECT_EQ(passed, cases.size());
  std::printf("conformance: %zu/%zu cases\n", passed, cases.size());
}

TEST_F(ChatTemplateCases, MessagesAsChatMessagesRenderTheSame) {
  // role+content messages through render() give what render_json() gives.
  for (const auto& c : doc_["cases"]) {
    if (c["expected"].is_null()) continue;
    std::vector<ChatMessage> messages;
    for (const auto& m : c["messages"])
      messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
    auto tpl =
        ChatTemplate::parse(doc_["templates"][c["template"].get<std::string>()].get<std::string>());
    ASSERT_TRUE(tpl.ok());
    auto text = tpl->render(messages, options_of(c));
    ASSERT_TRUE(text.ok()) << case_name(c) << ": " << text.message();
    EXPECT_EQ(*text, c["expected"].get<std::string>()) << case_name(c);
  }
}

// Writes the case's template and messages and runs `kvchat-cli template` on them.
test::CommandResult run_case_cli(const nlohmann::json& doc, const nlohmann::json& c,
                                 const test::TempDir& dir, bool wrap_messages) {
  const std::string tpl = dir.file("t.jinja"), msgs = dir.file("m.json");
  std::ofstream(tpl, std::ios::binary)
      << doc["templates"][c["template"].get<std::string>()].get<std::string>();
  const nlohmann::json messages =
      wrap_messages ? nlohmann::json{{"messages", c["messages"]}} : c["messages"];
  std::ofstream(msgs, std::ios::binary) << messages.dump();
  std::string args =
      "template --template-file " + test::sh_quote(tpl) + " --messages " + test::sh_quote(msgs) +
      " --bos " + test::sh_quote(c["bos_token"].get<std::string>()) + " --eos " +
      test::sh_quote(c["eos_token"].get<std::string>()) + " --now " + std::to_string(kCaseTime);
  if (c["add_generation_prompt"].get<bool>()) args += " --add-generation-prompt";
  return test::run_cli(args);
}

TEST_F(ChatTemplateCases, CliPrintsTheRenderingByteForByte) {
  test::TempDir dir;
  size_t checked = 0, errors = 0;
  const auto& cases = doc_["cases"];
  for (size_t i = 0; i < cases.size(); i += 7) {  // a spread over templates and conversations
    const auto& c = cases[i];
    const auto r = run_case_cli(doc_, c, dir, i % 2 == 1);
    ASSERT_EQ(r.exit_code, 0) << case_name(c) << ": " << r.err;
    EXPECT_EQ(r.out, c["expected"].get<std::string>()) << case_name(c);
    ++checked;
  }
  for (const auto& c : cases) {
    if (!c["expected"].is_null()) continue;
    const auto r = run_case_cli(doc_, c, dir, false);
    EXPECT_EQ(r.exit_code, 1) << case_name(c);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(c["error"].get<std::string>()), std::string::npos) << r.err;
    ++errors;
  }
  EXPECT_GE(checked, 16u);
  EXPECT_EQ(errors, 2u);
}

TEST(ChatTemplateCli, SyntaxAndUsageErrors) {
  test::TempDir dir;
  std::ofstream(dir.file("bad.jinja")) << "{% if %}";
  std::ofstream(dir.file("m.json")) << "[]";
  auto r = test::run_cli("template --template-file " + test::sh_quote(dir.file("bad.jinja")) +
                         " --messages " + test::sh_quote(dir.file("m.json")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 1, column"), std::string::npos) << r.err;
  r = test::run_cli("template --messages " + test::sh_quote(dir.file("m.json")));
  EXPECT_NE(r.exit_code, 0);
  std::ofstream(dir.file("ok.jinja"))
      << "{{ messages|length }}{% if add_generation_prompt %}+{% endif %}";
  r = test::run_cli("template --template-file " + test::sh_quote(dir.file("ok.jinja")) +
                    " --messages " + test::sh_quote(dir.file("m.json")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0");  // no generation prompt unless asked, no newline added
}

}  // namespace
}  // namespace kvchat
