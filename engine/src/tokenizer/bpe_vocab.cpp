// Byte-level BPE tokenizer ("gpt2" vocab): validation, encode, decode.
// from_gguf() lives in bpe_vocab_gguf.cpp, the word splitting in pre_tokenizer.cpp.
//
// Behaviour shared with llama.cpp (checked in the tests):
// - each ill-formed UTF-8 byte of text outside special tokens becomes U+FFFD
//   before splitting, so such text does not survive decode(encode(s));
// - a word's bytes start as the one-character tokens of GPT-2's byte alphabet
//   and merge by rank; a final symbol that is not a token is dropped;
// - with ignore_merges (llama3 family), a word that is a token is that token;
// - decode() drops control and unknown tokens, writes user-defined tokens as
//   their text, and byte-decodes the rest; clean_up_tokenization_spaces is not
//   applied, so decode(encode(s)) == s.
#include "tokenizer/bpe_vocab.h"

#include <algorithm>
#include <limits>

#include "tokenizer/byte_level.h"
#include "tokenizer/eog_set.h"
#include "tokenizer/encode_memo.h"
#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat {
namespace {

Status validate(const BpeVocabData& d) {
  const size_t n = d.tokens.size();
  const std::string where = "BPE vocab: ";
  if (n == 0) return Error{where + "no tokens"};
  if (n > static_cast<size_t>(std::numeric_limits<TokenId>::max())) {
    return Error{where + std::to_string(n) + " tokens is too many"};
  }
  if (d.types.size() != n) {
    return Error{where + std::to_string(d.types.size()) + " token types for " + std::to_string(n) +
                 " tokens"};
  }
  const std::pair<const char*, TokenId> special[] = {
      {"bos", d.bos}, {"eos", d.eos}, {"unk", d.unk}, {"eot", d.eot}, {"eom", d.eom}};
  for (const auto& [name, id] : special) {
    if (id < -1 || (id >= 0 && static_cast<size_t>(id) >= n)) {
      return Error{where + name + " id " + std::to_string(id) + " is out of range (" +
                   std::to_string(n) + " tokens)"};
    }
  }
  if (d.add_bos && d.bos < 0) return Error{where + "add_bos is set but there is no bos token"};
  size_t total_bytes = 0;
  for (const std::string& t : d.tokens) total_bytes += t.size();
  if (total_bytes > std::numeric_limits<uint32_t>::max()) {
    return Error{where + "tokens total " + std::to_string(total_bytes) + " bytes, too many"};
  }
  return Status::Ok();
}

void add_special(PieceTable& table, bool (&first_byte)[256], std::vector<size_t>& lengths,
                 std::string_view text, TokenId id) {
  if (!table.insert(text, id)) return;
  first_byte[static_cast<uint8_t>(text[0])] = true;
  if (std::find(lengths.begin(), lengths.end(), text.size()) == lengths.end()) {
    lengths.push_back(text.size());
  }
}

// The special token that is the longest prefix of `text`: {length, id}, or {0, -1}.
std::pair<size_t, TokenId> match_prefix(std::string_view text, const PieceTable& table,
                                        const bool (&first_byte)[256],
                                        const std::vector<size_t>& lengths) {
  if (!first_byte[static_cast<uint8_t>(text[0])]) return {0, -1};
  for (const size_t len : lengths) {
    if (len > text.size()) continue;
    if (const TokenId id = table.find(text.substr(0, len)); id >= 0) return {len, id};
  }
  return {0, -1};
}

}  // namespace

// ---------------------------------------------------------------------------
// Encoder: the merge loop over one word.
//
// Symbols form a doubly linked list over the word's bytes, each holding its
// token id; a min-heap holds candidate merges of adjacent symbols keyed by
// (rank, left index), as llama.cpp and Hugging Face order them. A popped
// candidate is stale when either symbol changed since it was pushed (its id
// differs, or the right one was absorbed), and is skipped. Each merge pushes
// at most two candidates, so a word of n bytes costs O(n log n) however long.
//
// Memo: a word's ids depend on its bytes alone, and text repeats its words, so
// the ids of short words are remembered for the call.
class BpeVocab::Encoder {
 public:
  Encoder(const BpeVocab& vocab, std::vector<TokenId>& out) : vocab_(vocab), out_(out) {}

  void encode_word(std::string_view word) {
    const bool memoizable = word.size() <= kMemoMaxWordBytes;
    if (memoizable && memo_.recall(word, out_)) return;
    const size_t first_id = out_.size();
    if (!vocab_.pre_.spec().ignore_merges || !emit_whole(word)) merge_and_emit(word);
    if (memoizable) memo_.remember(word, out_, first_id);
  }

 private:
  struct Symbol {
    TokenId id;  // -1: a byte without a token; kGone: absorbed by its left neighbour
    int32_t prev;
    int32_t next;
  };
  struct Candidate {
    int32_t rank;
    int32_t left;
    int32_t right;
    TokenId left_id;
    TokenId right_id;
    TokenId result;
  };
  // Heap order: lower rank first; on equal ranks the leftmost pair first.
  static bool lower_priority(const Candidate& a, const Candidate& b) {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
  static constexpr TokenId kGone = -2;
  static constexpr size_t kMemoMaxWordBytes = 64;

  // ignore_merges: the word as one token, if the vocab has it.
  bool emit_whole(std::string_view word) {
    mapped_.clear();
    byte_level::encode(word, mapped_);
    const TokenId id = vocab_.token_to_id_.find(mapped_);
    if (id < 0) return false;
    out_.push_back(id);
    return true;
  }

  void maybe_add_pair(int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const TokenId l = symbols_[left].id;
    const TokenId r = symbols_[right].id;
    if (l < 0 || r < 0) return;
    const Merge m = vocab_.merges_.find(l, r);
    if (m.rank < 0) return;
    heap_.push_back(Candidate{m.rank, left, right, l, r, m.result});
    std::push_heap(heap_.begin(), heap_.end(), lower_priority);
  }

  void merge_and_emit(std::string_view word) {
    symbols_.clear();
    heap_.clear();
    const auto n = static_cast<int32_t>(word.size());
    for (int32_t i = 0; i < n; ++i) {
      symbols_.push_back(
          Symbol{vocab_.byte_token_[static_cast<uint8_t>(word[i])], i - 1, i + 1 < n ? i + 1 : -1});
    }
    for (int32_t i = 1; i < n; ++i) maybe_add_pair(i - 1, i);
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), lower_priority);
      const Candidate top = heap_.back();
      heap_.pop_back();
      Symbol& l = symbols_[top.left];
      Symbol& r = symbols_[top.right];
      if (l.id != top.left_id || r.id != top.right_id || l.next != top.right) continue;  // stale
      l.id = top.result;
      l.next = r.next;
      if (r.next >= 0) symbols_[r.next].prev = top.left;
      r.id = kGone;
      maybe_add_pair(l.prev, top.left);
      maybe_add_pair(top.left, l.next);
    }
    for (int32_t i = 0; i >= 0 && i < n; i = symbols_[i].next) {
      if (symbols_[i].id >= 0) out_.push_back(symbols_[i].id);
    }
  }

  const BpeVocab& vocab_;
  std::vector<TokenId>& out_;
  std::vector<Symbol> symbols_;
  std::vector<Candidate> heap_;
  std::string mapped_;
  EncodeMemo memo_;  // this call's words already encoded
};

// ---------------------------------------------------------------------------

Result<std::unique_ptr<BpeVocab>> BpeVocab::create(BpeVocabData data) {
  if (Status s = validate(data); !s.ok()) return Error{s.message()};
  std::string warning;
  std::optional<PreTokenizerSpec> spec = pre_tokenizer_spec(data.pre);
  if (!spec) {
    warning = data.pre.empty() ? "tokenizer.ggml.pre is missing: using the default pre-tokenizer; "
                                 "tokens may differ from the model's own tokenizer"
                               : "tokenizer.ggml.pre '" + printable(data.pre) +
                                     "' is not known to kvchat: using the default pre-tokenizer; "
                                     "tokens may differ from the model's own tokenizer";
    spec = default_pre_tokenizer_spec();
  }
  std::unique_ptr<BpeVocab> vocab(
      new BpeVocab(std::move(data), std::move(*spec), std::move(warning)));
  if (Status s = vocab->index_tokens(); !s.ok()) return Error{s.message()};
  return vocab;
}

BpeVocab::BpeVocab(BpeVocabData data, PreTokenizerSpec spec, std::string warning)
    : data_(std::move(data)), pre_(std::move(spec)), warning_(std::move(warning)) {}

// Builds the lookup tables. A token text that occurs twice keeps its first id;
// a merge whose parts or result are not tokens can never apply and is left out.
Status BpeVocab::index_tokens() {
  const size_t n = data_.tokens.size();
  bytes_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string& text = data_.tokens[i];
    const auto id = static_cast<TokenId>(i);
    if (text.empty()) continue;
    token_to_id_.insert(text, id);
    switch (data_.types[i]) {
      case PieceType::CONTROL:
        add_special(special_, special_first_byte_, special_lengths_, text, id);
        break;
      case PieceType::USER_DEFINED:
        add_special(special_, special_first_byte_, special_lengths_, text, id);
        add_special(user_defined_, user_defined_first_byte_, user_defined_lengths_, text, id);
        bytes_[i] = text;
        break;
      case PieceType::UNKNOWN:
      case PieceType::UNUSED: break;
      case PieceType::BYTE:
        if (const int b = parse_byte_token(text, /*lowercase_ok=*/true); b >= 0)
          bytes_[i] = std::string(1, static_cast<char>(b));
        break;
      case PieceType::NORMAL: byte_level::decode(text, bytes_[i]); break;
    }
  }
  std::sort(special_lengths_.rbegin(), special_lengths_.rend());
  std::sort(user_defined_lengths_.rbegin(), user_defined_lengths_.rend());
  for (int b = 0; b < 256; ++b) {
    byte_token_[b] = token_to_id_.find(byte_level::encode_byte(static_cast<uint8_t>(b)));
  }

  std::string joined;
  for (size_t rank = 0; rank < data_.merges.size(); ++rank) {
    const std::string& m = data_.merges[rank];
    const size_t space = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
    if (space == std::string::npos) {
      return Error{"BPE vocab: merge " + std::to_string(rank) + " \"" + printable(m) +
                   "\" is not of the form \"left right\""};
    }
    const std::string_view left = std::string_view(m).substr(0, space);
    const std::string_view right = std::string_view(m).substr(space + 1);
    joined.assign(left);
    joined.append(right);
    const TokenId l = token_to_id_.find(left);
    const TokenId r = token_to_id_.find(right);
    const TokenId result = token_to_id_.find(joined);
    if (l < 0 || r < 0 || result < 0) continue;
    merges_.insert(l, r, Merge{static_cast<int32_t>(rank), result});
  }
  eog_ids_ = build_eog_ids(data_.tokens, data_.types, data_.eos, data_.eot, data_.eom);
  for (const TokenId id : eog_ids_) bytes_[id].clear();  // control tokens to llama.cpp: never shown
  return Status::Ok();
}

std::vector<TokenId> BpeVocab::encode(std::string_view text, bool add_bos) const {
  std::vector<TokenId> ids;
  if (add_bos && data_.bos >= 0) ids.push_back(data_.bos);
  encode_segments(text, user_defined_, user_defined_first_byte_, user_defined_lengths_, ids);
  return ids;
}

std::vector<TokenId> BpeVocab::encode_with_special(std::string_view text, bool add_bos) const {
  std::vector<TokenId> ids;
  if (add_bos && data_.bos >= 0) ids.push_back(data_.bos);
  encode_segments(text, special_, special_first_byte_, special_lengths_, ids);
  return ids;
}

std::vector<TokenId> BpeVocab::encode_continuation(std::string_view text) const {
  return encode_with_special(text, false);
}

void BpeVocab::encode_segments(std::string_view text, const PieceTable& specials,
                               const bool (&first_byte)[256], const std::vector<size_t>& lengths,
                               std::vector<TokenId>& ids) const {
  ids.reserve(ids.size() + text.size() / 4 + 1);
  Encoder encoder(*this, ids);
  const auto emit = [&](std::string_view word) { encoder.encode_word(word); };
  std::string sanitized;
  auto encode_text = [&](std::string_view segment) {
    if (!utf8::is_well_formed(segment)) {
      sanitized.clear();
      utf8::append_replacing_invalid(segment, sanitized);
      segment = sanitized;
    }
    pre_.split(segment, emit);
  };
  size_t segment_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto [len, id] = lengths.empty()
                               ? std::pair<size_t, TokenId>{0, -1}
                               : match_prefix(text.substr(pos), specials, first_byte, lengths);
    if (len == 0) {
      ++pos;
      continue;
    }
    if (pos > segment_start) encode_text(text.substr(segment_start, pos - segment_start));
    ids.push_back(id);
    pos += len;
    segment_start = pos;
  }
  if (pos > segment_start) encode_text(text.substr(segment_start));
}

std::string BpeVocab::decode(std::span<const TokenId> ids) const {
  std::string bytes;
  for (const TokenId id : ids) {
    if (id >= 0 && id < n_vocab()) bytes += bytes_[id];
  }
  if (utf8::is_well_formed(bytes)) return bytes;
  std::string text;
  utf8::append_replacing_invalid(bytes, text);
  return text;
}

std::string BpeVocab::token_bytes(TokenId id) const {
  if (id < 0 || id >= n_vocab()) return {};
  return bytes_[id];
}

std::string BpeVocab::token_text(TokenId id) const {
  if (id < 0 || id >= n_vocab()) return {};
  const PieceType t = data_.types[id];
  return t == PieceType::CONTROL || t == PieceType::USER_DEFINED ? data_.tokens[id] : bytes_[id];
}

bool BpeVocab::is_control(TokenId id) const {
  return id >= 0 && id < n_vocab() && data_.types[id] == PieceType::CONTROL;
}

bool BpeVocab::is_eog(TokenId id) const {
  return std::binary_search(eog_ids_.begin(), eog_ids_.end(), id);
}

}  // namespace kvchat
