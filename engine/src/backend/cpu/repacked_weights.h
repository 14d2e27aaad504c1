// The CPU backend's weights: the model's views, with every matrix that the x8 kernels read
// repacked (repack.h), and every F16/BF16/F32 matrix of a file not read in copied as it is
// (a read-in file is on huge pages already: gguf::MappedFile::read_in), into one block of
// memory of its own on transparent huge pages; the model file's pages that each copy
// replaces are given back (gguf::MappedFile::release_pages), so the resident weights stay
// the file's size. Built once per model and shared by all its CPU sessions.
#pragma once

#include <cstdint>
#include <memory>

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
  // an x8 layout, their rows are whole groups of 8 and (q, k, v) each head is too; float
  // matrices are then copied as they are; the rest stay views of the file.
  static std::shared_ptr<const RepackedWeights> for_model(const Model& model,
                                                          int32_t from_layer = 0);

  const ModelWeights& weights() const { return weights_; }
  uint64_t repacked_bytes() const { return repacked_bytes_; }
  uint64_t copied_bytes() const { return copied_bytes_; }  // repacked or copied as they are
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
  std::unique_ptr<uint8_t, Buffer> buffer_;  // every copied matrix, one after the other
  uint64_t repacked_bytes_ = 0;
  uint64_t copied_bytes_ = 0;
  int repacked_matrices_ = 0;
};

}  // namespace kvchat::cpu
