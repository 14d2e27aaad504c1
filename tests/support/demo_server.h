// The demo model served by kvchat::Server for the server's gtests (header only): the model
// loaded once per test binary, and a server on a port the OS chooses.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "kvchat/model.h"
#include "kvchat/server.h"
#include "support/test_paths.h"

namespace kvchat::test {

inline std::shared_ptr<const Model> demo_model() {
  static auto model = Model::load(shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

// A server of the demo model on a free port; a context of default_ctx tokens unless `o`
// sets one. Null (and a test failure) when it does not start.
inline std::unique_ptr<Server> start_demo_server(ServerOptions o, int32_t default_ctx) {
  o.port = 0;
  if (o.session.n_ctx == 0) o.session.n_ctx = default_ctx;
  auto s = Server::start(demo_model(), o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s).value() : nullptr;
}

}  // namespace kvchat::test
