// The kvchat-cli subcommands. Each returns the process exit code; errors go to stderr.
#pragma once

#include <string>
#include <vector>

namespace kvchat {
class Session;
}

namespace kvchat::cli {

using Argv = std::vector<std::string>;

int cmd_info(const Argv& args);
// info when the model does not load: a vocab-only GGUF shows its tokenizer, else the error.
int info_vocab_only(const class Args& args, const std::string& load_error);
int cmd_tokenize(const Argv& args);
int cmd_detokenize(const Argv& args);
int cmd_logits(const Argv& args);
int cmd_generate(const Argv& args);
int cmd_chat(const Argv& args);
// chat --remote URL: a model served elsewhere (cmd_chat_remote.cpp; where kvchat_remote is
// not built, cmd_chat_remote_unavailable.cpp says so).
int cmd_chat_remote(const Argv& args);
// serve: the OpenAI-compatible HTTP server (kvchat/server.h) until SIGINT/SIGTERM.
int cmd_serve(const Argv& args);
int cmd_bench(const Argv& args);
int cmd_bench_tokenize(const Argv& args);
int cmd_bench_serve(const Argv& args);
int cmd_bench_switch(const Argv& args);
int cmd_mkmodel(const Argv& args);
int cmd_memory(const Argv& args);
int cmd_perplexity(const Argv& args);
// perplexity --stream: `ids` (BOS + the text) as one stream through `sess`'s context policy.
int perplexity_stream(const class Args& args, Session& sess, const std::string& model_path,
                      const std::string& file, const std::vector<int32_t>& ids);
int cmd_summarize(const Argv& args);
int cmd_template(const Argv& args);
int cmd_mcp(const Argv& args);
// models search|fit: the Hugging Face Hub (hub/cmd_models.cpp when kvchat_hub is built).
int cmd_models(const Argv& args);

// bench --compare-no-cache: decode speed with and without the KV cache per context length.
int bench_compare_no_cache(const class Args& args);
// bench --snapshot: bytes each KV snapshot save writes (journal append vs whole file).
int bench_snapshot(const class Args& args);
// bench --json-schema F | --tools F: grammar compile time, constrained vs free decode.
int bench_grammar(const class Args& args);

// models pull REPO FILE: the app's download manager (hub/cmd_models_pull.cpp when
// kvchat_hub is built; argv starts with REPO).
int cmd_models_pull(const Argv& args);

// Prints "kvchat-cli: <message>" to stderr and returns 1 (or `code`).
int fail(const std::string& message, int code = 1);

}  // namespace kvchat::cli
