// Session: one conversation's state on one backend — the token sequence, its KV
// cache, and the logits of the last evaluated token.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

class Backend;
class KvCache;

struct SessionOptions {
  std::string backend = "cpu";  // "cpu", "cpu-reference" or "cuda"
  int32_t n_threads = 0;        // <= 0: all hardware threads
  int32_t n_ctx = 0;            // <= 0: the model's training context
  int32_t kv_block_tokens = 16;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options);
  ~Session();

  // Appends `tokens` to the sequence and evaluates them. Afterwards last_logits() holds
  // the next-token logits after the whole sequence. With all_logits, *all_logits gets
  // (tokens.size(), n_vocab) row-major. On error (context full, out of memory) the
  // session is unchanged.
  Status eval(std::span<const TokenId> tokens, std::vector<float>* all_logits = nullptr);
  // Keeps the first n tokens (and their cached K/V); the rest is forgotten.
  void truncate(int32_t n);

  std::span<const float> last_logits() const { return last_logits_; }
  const std::vector<TokenId>& tokens() const { return tokens_; }
  int32_t n_past() const { return static_cast<int32_t>(tokens_.size()); }
  int32_t n_ctx() const { return n_ctx_; }
  const Model& model() const { return *model_; }
  std::string_view backend_name() const;

  MemoryReport memory_report() const;

 private:
  Session() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<KvCache> kv_;
  std::vector<TokenId> tokens_;
  std::vector<float> last_logits_;
  int32_t n_ctx_ = 0;
};

}  // namespace kvchat
