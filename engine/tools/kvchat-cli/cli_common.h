// Helpers shared by subcommands: loading the model, making a session, parsing ids.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "kvchat/model.h"
#include "kvchat/session.h"

namespace kvchat::cli {

// Options every model-using command accepts.
inline const std::set<std::string> kSessionOptions = {"--model", "--backend", "--threads", "--ctx"};

Result<std::shared_ptr<const Model>> load_model(const Args& args);
// Without --ctx the session uses the trained context, or `default_ctx` when that is larger.
Result<std::unique_ptr<Session>> make_session(const Args& args, std::shared_ptr<const Model> model,
                                              int32_t default_ctx = 0);
// "1 2 3" (spaces or commas) -> ids, each checked against n_vocab.
Result<std::vector<TokenId>> parse_ids(const std::string& text, int32_t n_vocab);
Result<std::string> read_file(const std::string& path);

std::set<std::string> with(std::set<std::string> a, const std::set<std::string>& b);

}  // namespace kvchat::cli
