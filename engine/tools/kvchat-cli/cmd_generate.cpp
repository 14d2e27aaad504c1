// generate: stream a continuation of a prompt.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "kvchat/generate.h"

namespace kvchat::cli {

int cmd_generate(const Argv& argv) {
  auto args = Args::parse(argv,
                          with(kSessionOptions, {"--prompt", "-n", "--temp", "--seed", "--top-k",
                                                 "--top-p", "--min-p", "--repeat-penalty",
                                                 "--repeat-last-n", "--stop"}),
                          {"--json", "--no-bos"});
  if (!args) return fail(args.message());
  auto prompt = args->require("--prompt");
  if (!prompt) return fail(prompt.message());

  GenerateOptions go;
  SamplingParams& sp = go.sampling;
  auto n = args->get_int("-n", 128);
  auto temp = args->get_double("--temp", sp.temperature);
  auto seed = args->get_int("--seed", 0);
  auto top_k = args->get_int("--top-k", sp.top_k);
  auto top_p = args->get_double("--top-p", sp.top_p);
  auto min_p = args->get_double("--min-p", sp.min_p);
  auto rp = args->get_double("--repeat-penalty", sp.repeat_penalty);
  auto rn = args->get_int("--repeat-last-n", sp.repeat_last_n);
  for (const std::string* e : {n ? nullptr : &n.message(), temp ? nullptr : &temp.message(),
                               seed ? nullptr : &seed.message(), top_k ? nullptr : &top_k.message(),
                               top_p ? nullptr : &top_p.message(), min_p ? nullptr : &min_p.message(),
                               rp ? nullptr : &rp.message(), rn ? nullptr : &rn.message()}) {
    if (e) return fail(*e);
  }
  if (*n < 0) return fail("-n must be >= 0");
  if (*rp <= 0) return fail("--repeat-penalty must be > 0");
  go.max_tokens = static_cast<int32_t>(*n);
  sp.temperature = static_cast<float>(*temp);
  sp.seed = static_cast<uint64_t>(*seed);
  sp.top_k = static_cast<int32_t>(*top_k);
  sp.top_p = static_cast<float>(*top_p);
  sp.min_p = static_cast<float>(*min_p);
  sp.repeat_penalty = static_cast<float>(*rp);
  sp.repeat_last_n = static_cast<int32_t>(*rn);
  if (args->has("--stop")) go.stop_strings.push_back(args->get("--stop"));

  auto model = load_model(*args);
  if (!model) return fail(model.message());
  auto session = make_session(*args, *model);
  if (!session) return fail(session.message());
  const Tokenizer& tok = (*model)->tokenizer();
  std::vector<TokenId> ids = tok.encode(*prompt, !args->has("--no-bos") && tok.add_bos_by_default());
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
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("\n");
    std::fprintf(stderr,
                 "\n[%d prompt tokens, %.1f tok/s prefill | %d generated, %.1f tok/s decode | "
                 "stop: %s]\n",
                 st.prompt_tokens, st.prefill_tokens_per_second(), st.generated_tokens,
                 st.decode_tokens_per_second(), std::string(stop_reason_name(result->stop_reason)).c_str());
  }
  return 0;
}

}  // namespace kvchat::cli
