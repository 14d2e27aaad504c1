// The grammar of one reply (GenerateOptions::grammar): applied from the first token, or
// lazily from the first trigger in the reply's text (a tool call's marker), with the
// special tokens the options list seen as their text.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "grammar/token_mask.h"
#include "kvchat/generate.h"
#include "kvchat/result.h"
#include "kvchat/sampler.h"

namespace kvchat {

class ReplyGrammar {
 public:
  // Null when the options give no grammar.
  static Result<std::unique_ptr<ReplyGrammar>> create(const GenerateOptions& options,
                                                      const Model& model);

  // The sampler's filter for the next token: null while a lazy grammar waits.
  TokenFilter* filter() { return active_ ? &filter_ : nullptr; }
  // After `id` was sampled: the grammar advanced (or a trigger looked for); the bytes the
  // token adds to the reply (a listed special token's text included).
  Result<std::string> accept(TokenId id);

 private:
  // The grammar as the sampler sees it; the first error is kept for accept() to report.
  class Filter final : public TokenFilter {
   public:
    explicit Filter(grammar::GrammarConstraint& c) : c_(c) {}
    bool allows(TokenId id) override;
    void mask(std::span<float> logits) override;
    Status error;

   private:
    grammar::GrammarConstraint& c_;
  };

  ReplyGrammar(grammar::GrammarConstraint c, const GenerateOptions& options,
               std::vector<std::pair<TokenId, std::string>> specials, const Tokenizer& tok);
  void look_for_trigger();

  grammar::GrammarConstraint constraint_;
  Filter filter_;
  std::vector<GrammarTrigger> triggers_;
  std::vector<std::pair<TokenId, std::string>> specials_;
  const Tokenizer& tok_;
  bool active_ = false;     // the grammar constrains the next token
  std::string reply_;       // the reply so far, while a lazy grammar waits
  size_t search_from_ = 0;  // triggers before this offset were tried and did not fit
};

}  // namespace kvchat
