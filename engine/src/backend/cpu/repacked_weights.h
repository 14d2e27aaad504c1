// The CPU backend's weights: the model's views, with every matrix that the x8 kernels read
// repacked (repack.h) into memory of its own, and the model file's pages that each
// repacked matrix replaces given back (gguf::MappedFile::release_pages), so the resident
// weights stay the file's size. Built once per model and shared by all its CPU sessions.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/model_weights.h"

namespace kvchat {
class Model;
}

namespace kvchat::cpu {

class RepackedWeights {
 public:
  // The model's shared repacked weights for layers [from_layer, n_layers) (made on first
  // use for each from_layer). Matrices of those layers, and the output when from_layer <
  // n_layers, are repacked when the SIMD kernels run (use_avx2_kernels()), their type has
  // an x8 layout, their rows are whole groups of 8 and (q, k, v) each head is too; the
  // rest stay views of the file.
  static std::shared_ptr<const RepackedWeights> for_model(const Model& model,
                                                          int32_t from_layer = 0);

  const ModelWeights& weights() const { return weights_; }
  uint64_t repacked_bytes() const { return repacked_bytes_; }
  int repacked_matrices() const { return repacked_matrices_; }

  // token's embedding row (n_embd values) into out: from the file's view, or from the
  // repacked output matrix when the embeddings are tied to it (the file's pages of the
  // shared matrix were given back).
  void embedding(int32_t token, float* out) const;

 private:
  struct Buffer {
    void operator()(uint8_t* p) const;
  };
  ModelWeights weights_;
  std::vector<std::unique_ptr<uint8_t, Buffer>> buffers_;  // one per repacked matrix
  uint64_t repacked_bytes_ = 0;
  int repacked_matrices_ = 0;
};

}  // namespace kvchat::cpu
