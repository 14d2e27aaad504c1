// kvchat-cli summarize as a script uses it: the --json object (summary, plan, chunks,
// tokens evaluated, peak KV, document), the plain summary on stdout, resuming from a
// --resume file after a crash, and a non-zero exit with a message for bad input.
#include <gtest/gtest.h>

#include <fstream>

#include "support/document_text.h"
#include "support/run_command.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;

std::string summarize_args(const std::string& file, const std::string& extra = "") {
  return "summarize --model " + sh_quote(test::shared_path("models/kjv-demo-f16.gguf")) +
         " --file " + sh_quote(file) + " --ctx 512 " + extra;
}

TEST(CliSummarize, JsonHasThePlanEveryChunkAndTheMeasuredNumbers) {
  test::TempDir dir;
  test::write_file(dir.file("rev.txt"), test::revelation());
  auto r = run_cli(summarize_args(dir.file("rev.txt"), "--json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& plan = j.at("plan");
  EXPECT_EQ(plan.at("n_ctx").get<int>(), 512);
  EXPECT_EQ(plan.at("kv_type").get<std::string>(), "f16");
  EXPECT_FALSE(plan.at("fits_whole").get<bool>());
  EXPECT_GT(plan.at("document_tokens").get<int64_t>(), 1000);
  EXPECT_GT(plan.at("estimated_seconds").get<double>(), 0);
  const std::string description = plan.at("description").get<std::string>();
  EXPECT_NE(description.find(std::to_string(plan.at("n_chunks").get<int>()) + " chunks of about"),
            std::string::npos)
      << description;
  EXPECT_NE(description.find("at the measured speed"), std::string::npos) << description;

  int level0 = 0;
  int64_t token = 0;
  for (const auto& c : j.at("chunks")) {
    for (const char* key :
         {"level", "index", "token_begin", "token_end", "source_begin", "source_end", "summary"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    if (c.at("level").get<int>() != 0) continue;
    ++level0;
    EXPECT_EQ(c.at("token_begin").get<int64_t>(), token);
    token = c.at("token_end").get<int64_t>();
  }
  EXPECT_EQ(level0, plan.at("n_chunks").get<int>());
  EXPECT_EQ(token, plan.at("document_tokens").get<int64_t>());
  EXPECT_EQ(j.at("summary"), j.at("chunks").back().at("summary"));
  EXPECT_GT(j.at("tokens_evaluated").get<uint64_t>(), 0u);
  const auto peak = j.at("peak_kv_bytes").get<uint64_t>();
  EXPECT_GT(peak, 0u);
  EXPECT_LE(peak, plan.at("peak_kv_bytes").get<uint64_t>());
  EXPECT_LE(peak, 512 * plan.at("kv_bytes_per_token").get<uint64_t>());
  EXPECT_EQ(j.at("document").at("encoding"), "utf-8");
  EXPECT_EQ(j.at("document").at("bytes").get<uint64_t>(), test::revelation().size());
  EXPECT_NE(r.err.find("plan at context 512"), std::string::npos) << r.err;
}

TEST(CliSummarize, PlainOutputIsTheSummaryAndLatin1IsNoted) {
  test::TempDir dir;
  test::write_file(
      dir.file("l1.txt"),
      "And the city had no need of the sun, caf\xE9. And there shall be no night there.\n");
  auto r = run_cli(summarize_args(dir.file("l1.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("fits — sent whole"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("read as Latin-1"), std::string::npos) << r.err;
  EXPECT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.find('{'), std::string::npos) << "not JSON without --json";
}

TEST(CliSummarize, ResumeFileContinuesACrashedRun) {
  test::TempDir dir;
  test::write_file(dir.file("rev.txt"), test::revelation());
  const std::string log = dir.file("rev.resume");
  auto first = run_cli(summarize_args(dir.file("rev.txt"), "--json --resume " + sh_quote(log)));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto full = nlohmann::json::parse(first.out);
  // As if the run had crashed after two summaries, in the middle of writing the third.
  std::string content = test::read_file(log);
  size_t cut = 0;
  for (int line = 0; line < 3; ++line) cut = content.find('\n', cut) + 1;
  test::write_file(log, content.substr(0, cut) + "{\"level\": 0, \"ind");
  auto resumed = run_cli(summarize_args(dir.file("rev.txt"), "--json --resume " + sh_quote(log)));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: 2 summaries"), std::string::npos) << resumed.err;
  const auto again = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(again.at("summary"), full.at("summary"));
  EXPECT_EQ(again.at("chunks"), full.at("chunks"));
  EXPECT_LT(again.at("tokens_evaluated").get<uint64_t>(),
            full.at("tokens_evaluated").get<uint64_t>());
  // Every summary is in the file once: the header and one line each.
  const std::string done = test::read_file(log);
  EXPECT_EQ(static_cast<size_t>(std::count(done.begin(), done.end(), '\n')),
            full.at("chunks").size() + 1);

  auto other =
      run_cli(summarize_args(dir.file("rev.txt"), "--summary-tokens 64 --resume " + sh_quote(log)));
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("another run"), std::string::npos) << other.err;
}

TEST(CliSummarize, BadInputExitsNonZeroWithAMessage) {
  test::TempDir dir;
  test::write_file(dir.file("bin.dat"), std::string("\x7F"
                                                    "ELF\x02\x01\x01\0\0\0",
                                                    10));
  test::write_file(dir.file("doc.pdf"), "%PDF-1.4\n1 0 obj\n");
  test::write_file(dir.file("empty.txt"), "");
  test::write_file(dir.file("ok.txt"), test::revelation());
  const std::pair<std::string, std::string> cases[] = {
      {summarize_args(dir.file("bin.dat")), "binary"},
      {summarize_args(dir.file("doc.pdf")), "pdftotext"},
      {summarize_args(dir.file("empty.txt")), "empty"},
      {summarize_args(dir.file("missing.txt")), "cannot open"},
      {summarize_args(dir.path()), "directory"},
      {summarize_args(dir.file("ok.txt")) + " --ctx 160", "too small"},
      {summarize_args(dir.file("ok.txt")) + " --summary-tokens 0", "--summary-tokens"},
      {"summarize --model " + sh_quote(test::shared_path("models/kjv-demo-f16.gguf")), "--file"},
  };
  for (const auto& [args, why] : cases) {
    auto r = run_cli(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

}  // namespace
}  // namespace kvchat
