// tokenize, detokenize
#include <cstdio>

#include "cli_common.h"
#include "commands.h"

namespace kvchat::cli {

int cmd_tokenize(const Argv& argv) {
  auto args = Args::parse(argv, {"--model", "--text", "--file"}, {"--no-bos"});
  if (!args) return fail(args.message());
  if (args->has("--text") == args->has("--file")) return fail("give exactly one of --text or --file");
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  std::string text = args->get("--text");
  if (args->has("--file")) {
    auto content = read_file(args->get("--file"));
    if (!content) return fail(content.message());
    text = std::move(*content);
  }
  const Tokenizer& tok = (*model)->tokenizer();
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
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  auto ids = parse_ids(*ids_text, (*model)->info().n_vocab);
  if (!ids) return fail(ids.message());
  std::string text = (*model)->tokenizer().decode(*ids);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
  return 0;
}

}  // namespace kvchat::cli
