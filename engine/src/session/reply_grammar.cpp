#include "session/reply_grammar.h"

#include <algorithm>

#include "kvchat/model.h"

namespace kvchat {

namespace {

// The vocabulary's token trie, built on first use and kept with the model.
std::shared_ptr<const grammar::TokenTrie> token_trie(const Model& model) {
  return std::static_pointer_cast<const grammar::TokenTrie>(
      model.backend_state("grammar.token_trie", [&model] {
        return std::shared_ptr<const void>(
            std::make_shared<const grammar::TokenTrie>(model.tokenizer()));
      }));
}

// The control token whose text is `text` (-1: none), looked up once per model.
TokenId special_token(const Model& model, const std::string& text) {
  auto found = model.backend_state("grammar.special_token:" + text, [&model, &text] {
    const Tokenizer& tok = model.tokenizer();
    auto id = std::make_shared<TokenId>(-1);
    for (TokenId i = 0; i < tok.n_vocab() && *id < 0; ++i)
      if (tok.is_control(i) && tok.token_text(i) == text) *id = i;
    return std::shared_ptr<const void>(std::move(id));
  });
  return *std::static_pointer_cast<const TokenId>(found);
}

}  // namespace

bool ReplyGrammar::Filter::allows(TokenId id) {
  auto ok = c_.allows(id);
  if (!ok && error.ok()) error = ok.error();
  return ok && *ok;
}

void ReplyGrammar::Filter::mask(std::span<float> logits) {
  if (Status s = c_.mask(logits); !s && error.ok()) error = s;
}

ReplyGrammar::ReplyGrammar(grammar::GrammarConstraint c, const GenerateOptions& options,
                           std::vector<std::pair<TokenId, std::string>> specials,
                           const Tokenizer& tok)
    : constraint_(std::move(c)),
      filter_(constraint_),
      triggers_(options.grammar_triggers),
      specials_(std::move(specials)),
      tok_(tok),
      active_(options.grammar_triggers.empty()) {}

Result<std::unique_ptr<ReplyGrammar>> ReplyGrammar::create(const GenerateOptions& options,
                                                           const Model& model) {
  if (!options.grammar) return std::unique_ptr<ReplyGrammar>();
  const Tokenizer& tok = model.tokenizer();
  auto c = grammar::GrammarConstraint::create(options.grammar, token_trie(model), tok);
  if (!c) return Error{"grammar: " + c.message()};
  std::vector<std::pair<TokenId, std::string>> specials;
  for (const std::string& text : options.grammar_special_tokens)
    if (const TokenId id = special_token(model, text); id >= 0) specials.emplace_back(id, text);
  c->set_special_texts(specials);
  return std::unique_ptr<ReplyGrammar>(
      new ReplyGrammar(std::move(*c), options, std::move(specials), tok));
}

Result<std::string> ReplyGrammar::accept(TokenId id) {
  if (active_) {
    if (!filter_.error) return Error{"grammar: " + filter_.error.message()};
    if (Status s = constraint_.accept(id); !s) return Error{"grammar: " + s.message()};
  }
  std::string bytes;
  const auto special = std::find_if(specials_.begin(), specials_.end(),
                                    [id](const auto& s) { return s.first == id; });
  if (special != specials_.end()) {
    bytes = special->second;
  } else if (!tok_.is_eog(id)) {
    bytes = tok_.token_bytes(id);
  }
  if (!active_) {
    reply_ += bytes;
    look_for_trigger();
  }
  return bytes;
}

void ReplyGrammar::look_for_trigger() {
  // Each occurrence of a trigger from search_from_ on, the first one first, until the text
  // from one continues the grammar (" then" holds the trigger " the" but need not).
  const size_t lead = reply_.find_first_not_of(" \t\r\n");
  while (true) {
    size_t first = std::string::npos, skip = 0;  // skip: the trigger's text, for `after`
    for (const GrammarTrigger& t : triggers_) {
      size_t at = std::string::npos;
      if (t.at_start) {
        if (lead != std::string::npos && lead >= search_from_ &&
            reply_.compare(lead, t.text.size(), t.text) == 0)
          at = lead;
      } else {
        at = reply_.find(t.text, search_from_);
      }
      if (at < first) first = at, skip = t.after ? t.text.size() : 0;
    }
    if (first == std::string::npos) return;
    if (constraint_.accept_text(std::string_view(reply_).substr(first + skip))) {
      active_ = true;
      reply_.clear();
      return;
    }
    search_from_ = first + 1;
  }
}

}  // namespace kvchat
