// generate: stream a continuation of a prompt.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/generate.h"
#include "kvchat/grammar.h"
#include "kvchat/sampling_config.h"

namespace kvchat::cli {

Status read_sampling_options(const Args& args, GenerateOptions& go) {
  auto n = args.get_int("-n", 128);
  if (!n) return n.error();
  if (*n < 0) return Error{"-n must be >= 0"};
  go.max_tokens = static_cast<int32_t>(*n);
  auto seed = args.get_int("--seed", 0);
  if (!seed) return seed.error();
  go.sampling.seed = resolve_seed(*seed);
  // Each flag and the sampling field it sets (kvchat/sampling_config.h checks the value).
  for (auto [flag, field] : {std::pair{"--temp", "temperature"},
                             {"--top-k", "top_k"},
                             {"--top-p", "top_p"},
                             {"--min-p", "min_p"},
                             {"--repeat-penalty", "repeat_penalty"},
                             {"--repeat-last-n", "repeat_last_n"}}) {
    if (!args.has(flag)) continue;
    auto v = args.get_double(flag, 0);
    if (!v) return v.error();
    if (auto e = set_sampling_field(go.sampling, field, *v)) {
      return Error{std::string(flag) + " " + e->problem};
    }
  }
  return read_grammar_options(args, go);
}

Status read_grammar_options(const Args& args, GenerateOptions& go) {
  if (args.has("--grammar") + args.has("--json-schema") + args.has("--json-object") > 1)
    return Error{"--grammar, --json-schema and --json-object: give one of them"};
  for (const char* flag : {"--grammar", "--json-schema"}) {
    if (!args.has(flag)) continue;
    const std::string path = args.get(flag);
    std::ifstream f(path, std::ios::binary);
    std::stringstream text;
    if (!(f && text << f.rdbuf())) return Error{std::string(flag) + ": cannot read " + path};
    auto g = std::string(flag) == "--grammar" ? compile_grammar(text.str())
                                              : compile_json_schema(text.str());
    if (!g) return Error{std::string(flag) + " " + path + ": " + g.message()};
    go.grammar = *g;
  }
  if (args.has("--json-object")) {
    auto g = compile_json_schema(kJsonObjectSchema);
    if (!g) return Error{"the JSON grammar: " + g.message()};  // a defect if ever seen
    go.grammar = *g;
  }
  return {};
}

int cmd_generate(const Argv& argv) {
  auto args =
      Args::parse(argv, with(with(kSessionOptions, kSamplingOptions), {"--prompt", "--stop"}),
                  {"--json", "--json-object", "--no-bos", "--no-kv-cache"});
  if (!args) return fail(args.message());
  auto prompt = args->require("--prompt");
  if (!prompt) return fail(prompt.message());

  GenerateOptions go;
  if (auto st = read_sampling_options(*args, go); !st) return fail(st.message());
  if (args->has("--stop")) go.stop_strings.push_back(args->get("--stop"));

  auto model = load_model(*args);
  if (!model) return fail(model.message());
  auto session = make_session(*args, *model);
  if (!session) return fail(session.message());
  const Tokenizer& tok = (*model)->tokenizer();
  std::vector<TokenId> ids =
      tok.encode(*prompt, !args->has("--no-bos") && tok.add_bos_by_default());
  if (ids.empty()) return fail("the prompt is empty");

  const bool json = args->has("--json");
  TextCallback stream;
  if (!json) {
    std::fwrite(prompt->data(), 1, prompt->size(), stdout);
    stream = [](std::string_view piece) {
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);
      return true;
    };
  }
  auto result = generate(**session, ids, go, stream);
  if (!result) return fail(result.message());
  const GenerateStats& st = result->stats;
  if (json) {
    nlohmann::json j = {
        {"ids", result->ids},
        {"text", result->text},
        {"stop_reason", stop_reason_name(result->stop_reason)},
        {"stats",
         {{"prompt_tokens", st.prompt_tokens},
          {"generated_tokens", st.generated_tokens},
          {"prefill_seconds", st.prefill_seconds},
          {"decode_seconds", st.decode_seconds},
          {"prefill_tokens_per_second", st.prefill_tokens_per_second()},
          {"decode_tokens_per_second", st.decode_tokens_per_second()}}},
    };
    // Invalid UTF-8 in generated text is replaced rather than failing the dump.
    std::printf("%s\n", json_text(j).c_str());
  } else {
    std::printf("\n");
    std::fprintf(stderr,
                 "\n[%d prompt tokens, %.1f tok/s prefill | %d generated, %.1f tok/s decode | "
                 "stop: %s]\n",
                 st.prompt_tokens, st.prefill_tokens_per_second(), st.generated_tokens,
                 st.decode_tokens_per_second(),
                 std::string(stop_reason_name(result->stop_reason)).c_str());
  }
  return 0;
}

}  // namespace kvchat::cli
