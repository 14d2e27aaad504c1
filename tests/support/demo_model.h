// The demo model (kjv-demo, F32) loaded once per test binary and shared by its tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "kvchat/model.h"
#include "support/test_paths.h"

namespace kvchat::test {

inline std::shared_ptr<const Model> demo_model() {
  static std::shared_ptr<const Model> model = [] {
    auto m = Model::load(shared_path("models/kjv-demo-f32.gguf"));
    EXPECT_TRUE(m) << m.message();
    return m ? *m : nullptr;
  }();
  return model;
}

}  // namespace kvchat::test
