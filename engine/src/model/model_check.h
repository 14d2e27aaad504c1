// Everything Model::load checks before it builds a model, on a parsed GGUF: the
// architecture and hyper-parameters (ModelHParams::from_gguf), every tensor's presence,
// type and shape (ModelWeights::from_gguf), and the tokenizer. Works on a mapped file and
// on a header-only one (GgufFile::parse_header: only metadata and tensor infos are read),
// so a file can be judged before it is downloaded with the loader's own rules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/model_hparams.h"
#include "model/model_weights.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}

struct ModelCheck {
  std::unique_ptr<ModelHParams> hparams;  // never null; as far as the metadata allowed
  bool shape_known = false;               // hparams read without a problem
  std::unique_ptr<ModelWeights> weights;  // never null; views of the tensors found
  std::unique_ptr<Tokenizer> tokenizer;   // null when it could not be built
  // Every reason the file cannot run, without the file name; empty when it can.
  std::vector<std::string> problems;
};

ModelCheck check_model_file(const gguf::GgufFile& file);

// The message of a failed load: "<path>: <problem>", or "<path>: cannot run this model
// (N problems):" and one "\n  - <problem>" line each.
std::string model_problems_message(const std::string& path,
                                   const std::vector<std::string>& problems);

}  // namespace kvchat
