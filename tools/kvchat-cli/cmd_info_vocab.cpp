// info on a vocab-only GGUF (metadata and tokenizer, no tensors, like llama.cpp's
// ggml-vocab-*.gguf): what the tokenizer is, instead of a missing-tensor error.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "args.h"
#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"
#include "util/printable.h"

namespace kvchat::cli {

int info_vocab_only(const Args& args, const std::string& load_error) {
  const std::string path = args.get("--model");
  auto file = gguf::GgufFile::open(path);
  if (!file || !(*file)->tensors().empty()) return fail(load_error);
  auto tok = load_tokenizer(**file);
  if (!tok) return fail(tok.message());
  auto text_of = [&](const char* key) {
    const gguf::Value* v = (*file)->find(key);
    return v && v->as_string() ? *v->as_string() : std::string();
  };
  const std::string model = text_of("tokenizer.ggml.model");
  const std::string pre = text_of("tokenizer.ggml.pre");
  const std::vector<TokenId> eog((*tok)->eog_ids().begin(), (*tok)->eog_ids().end());
  if (args.has("--json")) {
    nlohmann::json j = {{"path", path},
                        {"vocab_only", true},
                        {"tokenizer",
                         {{"model", model},
                          {"pre", pre},
                          {"n_vocab", (*tok)->n_vocab()},
                          {"bos", (*tok)->bos()},
                          {"eos", (*tok)->eos()},
                          {"eog", eog},
                          {"add_bos", (*tok)->add_bos_by_default()},
                          {"warning", std::string((*tok)->warning())}}}};
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::string eog_text;
  for (const TokenId id : eog) eog_text += (eog_text.empty() ? "" : " ") + std::to_string(id);
  std::printf("vocab-only GGUF (no tensors): %s\n", path.c_str());
  std::printf("vocab         %s%s%s, %d tokens, bos %d, eos %d, add_bos %s\n",
              printable(model).c_str(), pre.empty() ? "" : ", pre ", printable(pre).c_str(),
              (*tok)->n_vocab(), (*tok)->bos(), (*tok)->eos(),
              (*tok)->add_bos_by_default() ? "yes" : "no");
  std::printf("end of gen    %s\n", eog_text.c_str());
  if (!(*tok)->warning().empty()) {
    std::printf("warning       %s\n", terminal_lines((*tok)->warning()).c_str());
  }
  return 0;
}

}  // namespace kvchat::cli
