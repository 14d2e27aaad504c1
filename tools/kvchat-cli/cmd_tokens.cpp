// tokenize, detokenize: they read only the GGUF metadata and the tokenizer, so
// they also work on vocab-only files (no tensors, like llama.cpp's ggml-vocab-*.gguf).
#include <cstdio>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat::cli {
namespace {

Result<std::unique_ptr<Tokenizer>> load_vocab(const Args& args) {
  auto path = args.require("--model");
  if (!path) return path.error();
  auto file = gguf::GgufFile::open(*path);
  if (!file) return file.error();
  auto tok = load_tokenizer(**file);
  if (!tok) return tok.error();
  if (const std::string_view w = (*tok)->warning(); !w.empty()) {
    std::fprintf(stderr, "warning: %s\n", terminal_lines(w).c_str());
  }
  return tok;
}

}  // namespace

int cmd_tokenize(const Argv& argv) {
  auto args = Args::parse(argv, {"--model", "--text", "--file"}, {"--no-bos"});
  if (!args) return fail(args.message());
  if (args->has("--text") == args->has("--file"))
    return fail("give exactly one of --text or --file");
  auto vocab = load_vocab(*args);
  if (!vocab) return fail(vocab.message());
  std::string text = args->get("--text");
  if (args->has("--file")) {
    auto content = read_file(args->get("--file"));
    if (!content) return fail(content.message());
    text = std::move(*content);
  }
  const Tokenizer& tok = **vocab;
  const bool bos = !args->has("--no-bos") && tok.add_bos_by_default();
  std::vector<TokenId> ids = tok.encode(text, bos);
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) line += ' ';
    line += std::to_string(ids[i]);
  }
  std::printf("%s\n", line.c_str());
  return 0;
}

int cmd_detokenize(const Argv& argv) {
  auto args = Args::parse(argv, {"--model", "--ids"}, {});
  if (!args) return fail(args.message());
  auto ids_text = args->require("--ids");
  if (!ids_text) return fail(ids_text.message());
  auto vocab = load_vocab(*args);
  if (!vocab) return fail(vocab.message());
  auto ids = parse_ids(*ids_text, (*vocab)->n_vocab());
  if (!ids) return fail(ids.message());
  std::string text = (*vocab)->decode(*ids);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
  return 0;
}

}  // namespace kvchat::cli
