// bench --json-schema FILE | --tools FILE: what a grammar costs. The schema (or the
// tools' call grammar, tool_choice required, in the generic format) is compiled --repeat
// times (the best time said); then constrained and free decodes of --tg tokens alternate
// --repeat times from the same --pp-token prompt, sampled (temperature 0.8) so that both
// run the sampler, and the best decode speed of each is compared. A constrained reply that
// ends (its grammar complete) before --tg tokens is measured over the tokens it has.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/generate.h"
#include "kvchat/grammar.h"
#include "kvchat/tool_calls.h"

namespace kvchat::cli {

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// An OpenAI tools array (JSON text) as definitions.
Result<std::vector<ToolDefinition>> tools_of(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return Error{"--tools: a JSON array of OpenAI tools is expected"};
  std::vector<ToolDefinition> tools;
  for (const auto& t : j) {
    const auto f = t.is_object() ? t.value("function", nlohmann::json()) : nlohmann::json();
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string())
      return Error{"--tools: each tool needs function.name"};
    tools.push_back({f["name"].get<std::string>(), f.value("description", ""),
                     f.value("parameters", nlohmann::json::object()).dump(), true});
  }
  return tools;
}

// The constraint the bench measures, and its best compile time.
Result<ReplyConstraint> compiled(const Args& args, int repeat, double& best_ms) {
  const bool tools = args.has("--tools");
  auto text = read_file(args.get(tools ? "--tools" : "--json-schema"));
  if (!text) return text.error();
  ReplyConstraint c;
  best_ms = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = now_ms();
    if (tools) {
      auto defs = tools_of(*text);
      if (!defs) return defs.error();
      auto r = tool_call_constraint({*defs, {ToolChoiceMode::Required, ""}, true},
                                    ToolCallFormat::Generic);
      if (!r) return r.error();
      c = std::move(*r);
    } else {
      auto g = compile_json_schema(*text);
      if (!g) return Error{"--json-schema: " + g.message()};
      c.grammar = *g;
    }
    best_ms = std::min(best_ms, now_ms() - t0);
  }
  return c;
}

struct Decode {
  double best_tps = 0;
  int32_t tokens = 0;  // of the best run
};

}  // namespace

int bench_grammar(const Args& args) {
  const auto repeat = args.get_int("--repeat", 3);
  const auto tg = args.get_int("--tg", 128);
  const auto pp = args.get_int("--pp", 64);
  if (!repeat || !tg || !pp) return fail("--repeat, --tg and --pp take integers");
  if (*repeat < 1 || *tg < 1 || *pp < 1) return fail("--repeat, --tg and --pp must be positive");
  double compile_ms = 0;
  auto constraint = compiled(args, static_cast<int>(*repeat), compile_ms);
  if (!constraint) return fail(constraint.message());
  auto model = load_model(args);
  if (!model) return fail(model.message());
  auto session = make_session(args, *model, {static_cast<int32_t>(*pp + *tg + 8), "f16"});
  if (!session) return fail(session.message());
  Session& s = **session;
  std::vector<TokenId> prompt = (*model)->tokenizer().encode(
      "And it came to pass, when the king heard the words of the book of the law,", true);
  while (static_cast<int64_t>(prompt.size()) < *pp) prompt.push_back(prompt[prompt.size() % 8 + 1]);
  prompt.resize(static_cast<size_t>(*pp));
  Decode free_run, constrained_run;
  for (int64_t i = 0; i < 2 * *repeat; ++i) {
    const bool constrained = i % 2 == 1;
    GenerateOptions go;
    go.max_tokens = static_cast<int32_t>(*tg);
    go.sampling.temperature = 0.8f;
    go.sampling.seed = static_cast<uint64_t>(i / 2 + 1);
    if (constrained) apply_constraint(*constraint, go);
    s.truncate(0);
    auto reply = generate(s, prompt, go);
    if (!reply) return fail(reply.message());
    Decode& d = constrained ? constrained_run : free_run;
    const double tps = reply->stats.decode_tokens_per_second();
    if (tps > d.best_tps) d = {tps, reply->stats.generated_tokens};
  }
  const double ratio = free_run.best_tps > 0 ? constrained_run.best_tps / free_run.best_tps : 0;
  if (args.has("--json")) {
    nlohmann::json j = {{"compile_ms", compile_ms},
                        {"free_decode_tps", free_run.best_tps},
                        {"constrained_decode_tps", constrained_run.best_tps},
                        {"constrained_tokens", constrained_run.tokens},
                        {"ratio", ratio},
                        {"repeat", *repeat}};
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::printf("grammar compile  %.2f ms (best of %lld)\n", compile_ms,
              static_cast<long long>(*repeat));
  std::printf("decode free      %.2f t/s (%d tokens)\n", free_run.best_tps, free_run.tokens);
  std::printf("decode grammar   %.2f t/s (%d tokens)\n", constrained_run.best_tps,
              constrained_run.tokens);
  std::printf("ratio            %.3f (best against best, %lld alternated runs each)\n", ratio,
              static_cast<long long>(*repeat));
  return 0;
}

}  // namespace kvchat::cli
