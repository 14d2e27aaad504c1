// A one-layer F32 synthetic llama (128 wide, 4 query heads, 2 KV heads of 32): every
// cached K/V depends only on its token and position, so what a context policy leaves in
// the cache can be checked exactly against a fresh evaluation of the tokens it kept.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "kvchat/model.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat::test {

inline std::shared_ptr<const Model> one_layer_model(const TempDir& dir, int32_t n_ctx) {
  SyntheticModelSpec spec;
  spec.name = "one-layer";
  spec.n_layers = 1;
  spec.n_embd = 128;
  spec.n_heads = 4;
  spec.n_kv_heads = 2;
  spec.n_ctx = n_ctx;
  spec.type = gguf::TensorType::F32;
  EXPECT_TRUE(write_synthetic_model(dir.file("one-layer.gguf"), spec));
  auto model = Model::load(dir.file("one-layer.gguf"));
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

}  // namespace kvchat::test
