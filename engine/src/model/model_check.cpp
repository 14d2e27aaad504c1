#include "model/model_check.h"

#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat {

namespace {

// Strips "<file name>: " from a message that a reader prefixed with it.
std::string without_file_name(const std::string& message, const std::string& name) {
  const std::string prefix = name + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

}  // namespace

ModelCheck check_model_file(const gguf::GgufFile& f) {
  ModelCheck c;
  std::vector<std::string> unsupported_names;
  for (const auto& t : f.unsupported_tensors()) {
    c.problems.push_back("tensor '" + t.name + "': tensor type " +
                         std::string(gguf::ggml_type_name(t.ggml_type_id)) + " (id " +
                         std::to_string(t.ggml_type_id) + ") is not supported (kvchat reads " +
                         gguf::supported_tensor_type_names() + ")");
    unsupported_names.push_back(t.name);
  }
  c.hparams = std::make_unique<ModelHParams>();
  c.weights = std::make_unique<ModelWeights>();
  c.shape_known = ModelHParams::from_gguf(f, *c.hparams, c.problems);
  if (c.shape_known) {
    ModelWeights::from_gguf(f, *c.hparams, *c.weights, c.problems, unsupported_names);
  }
  // The one place the tokenizer is built from a GGUF.
  auto tokenizer = load_tokenizer(f);
  if (!tokenizer) {
    c.problems.push_back(without_file_name(tokenizer.message(), f.name()));
  } else if (c.hparams->n_vocab > 0 && (*tokenizer)->n_vocab() != c.hparams->n_vocab) {
    c.problems.push_back("the tokenizer has " + std::to_string((*tokenizer)->n_vocab()) +
                         " tokens but token_embd.weight has " + std::to_string(c.hparams->n_vocab) +
                         " rows");
  } else {
    c.tokenizer = std::move(tokenizer.value());
  }
  return c;
}

std::string model_problems_message(const std::string& path,
                                   const std::vector<std::string>& problems) {
  if (problems.size() == 1) return path + ": " + problems.front();
  std::string message =
      path + ": cannot run this model (" + std::to_string(problems.size()) + " problems):";
  for (const std::string& p : problems) message += "\n  - " + p;
  return message;
}

}  // namespace kvchat
