// SentencePiece BPE tokenizer ("llama" vocab): validation, encode, decode.
// encode() reproduces libsentencepiece (bpe_model.cc Encode after the identity
// normalizer, then byte fallback); decode() reproduces SentencePieceProcessor's
// Decode. from_gguf() lives in sentencepiece_vocab_gguf.cpp.
//
// Behaviour shared with libsentencepiece (checked in the tests):
// - each ill-formed UTF-8 byte of the input becomes U+FFFD before encoding, so
//   such text does not survive decode(encode(s));
// - a literal U+2581 in the input is an escaped space: it decodes as ' ';
// - decode() renders <unk> as " U+2047 ", drops control pieces, turns byte
//   pieces that do not form UTF-8 into U+FFFD (one per byte), and removes the
//   U+2581 that starts the first piece, unless visible text came before it;
// - without byte pieces (no byte fallback) a run of unknown characters is one <unk>.
// Where a GGUF file could hold what a SentencePiece model cannot: a repeated
// piece string keeps its first id, and empty pieces are never matched.
#include "tokenizer/sentencepiece_vocab.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>

#include "tokenizer/encode_memo.h"
#include "tokenizer/eog_set.h"
#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";       // U+2581, escapes ' '
constexpr std::string_view kUnknownSurface = " \xE2\x81\x87 ";  // " U+2047 ", as sentencepiece

bool is_mergeable(PieceType t) {
  return t == PieceType::NORMAL || t == PieceType::USER_DEFINED || t == PieceType::UNUSED;
}

// "<0xXX>" (uppercase hex, as sentencepiece writes byte pieces) -> 0..255, else -1.
int parse_byte_piece(std::string_view piece) { return parse_byte_token(piece, false); }

// Up to 4 bytes of one character, packed big-endian (a set key, not a code point).
uint32_t pack_char(std::string_view c) {
  uint32_t v = 0;
  for (const char b : c) v = (v << 8) | static_cast<uint8_t>(b);
  return v;
}

uint64_t pair_key(std::string_view left_char, std::string_view right_char) {
  return (static_cast<uint64_t>(pack_char(left_char)) << 32) | pack_char(right_char);
}

// Length of the character at the start of `s` as sentencepiece splits text.
size_t char_length(std::string_view s) {
  return std::min(s.size(), utf8::lead_length(static_cast<uint8_t>(s[0])));
}

// The identity normalizer with escaped whitespace: an optional dummy-prefix
// U+2581, every ' ' replaced by U+2581, every ill-formed byte by U+FFFD.
std::string normalize(std::string_view text, bool dummy_prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 4 + kSpaceSymbol.size());
  if (dummy_prefix) out.append(kSpaceSymbol);
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      if (c == ' ') {
        out.append(kSpaceSymbol);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const size_t n = utf8::valid_char_length(text.substr(i));
    if (n == 0) {
      out.append(utf8::kReplacement);
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Appends `piece` with every U+2581 turned back into ' '.
void append_unescaped(std::string_view piece, std::string& out) {
  size_t pos = 0;
  while (true) {
    const size_t hit = piece.find(kSpaceSymbol, pos);
    if (hit == std::string_view::npos) break;
    out.append(piece.substr(pos, hit - pos));
    out.push_back(' ');
    pos = hit + kSpaceSymbol.size();
  }
  out.append(piece.substr(pos));
}

Status validate(const SentencePieceVocabData& d) {
  const size_t n = d.pieces.size();
  const std::string where = "SentencePiece vocab: ";
  if (n == 0) return Error{where + "no pieces"};
  if (n > static_cast<size_t>(std::numeric_limits<TokenId>::max())) {
    return Error{where + std::to_string(n) + " pieces is too many"};
  }
  if (d.scores.size() != n) {
    return Error{where + std::to_string(d.scores.size()) + " scores for " + std::to_string(n) +
                 " pieces"};
  }
  if (d.types.size() != n) {
    return Error{where + std::to_string(d.types.size()) + " piece types for " + std::to_string(n) +
                 " pieces"};
  }
  const std::pair<const char*, TokenId> special[] = {
      {"bos", d.bos}, {"eos", d.eos}, {"unk", d.unk}};
  for (const auto& [name, id] : special) {
    if (id < 0 || static_cast<size_t>(id) >= n) {
      return Error{where + name + " id " + std::to_string(id) + " is out of range (" +
                   std::to_string(n) + " pieces)"};
    }
  }
  size_t total_bytes = 0;
  for (const std::string& p : d.pieces) total_bytes += p.size();
  if (total_bytes > std::numeric_limits<uint32_t>::max()) {
    return Error{where + "pieces total " + std::to_string(total_bytes) + " bytes, too many"};
  }
  for (size_t i = 0; i < n; ++i) {
    const auto t = static_cast<int32_t>(d.types[i]);
    if (t < static_cast<int32_t>(PieceType::NORMAL) || t > static_cast<int32_t>(PieceType::BYTE)) {
      return Error{where + "piece " + std::to_string(i) + " has type " + std::to_string(t) +
                   ", not a SentencePiece piece type (1..6)"};
    }
    if (d.types[i] == PieceType::BYTE && parse_byte_piece(d.pieces[i]) < 0) {
      return Error{where + "byte piece " + std::to_string(i) + " is \"" + printable(d.pieces[i]) +
                   "\", not of the form <0xXX>"};
    }
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------
// Encoder: the BPE merge loop over one chunk of normalized text.
//
// Symbols form a doubly linked list over the chunk; a max-heap holds candidate
// merges of adjacent symbols keyed by (piece score desc, left index asc), as in
// sentencepiece. A popped candidate is stale when either symbol has changed
// since it was pushed (its lengths no longer add up), and is skipped. Symbols
// are (offset, length) views of the normalized text, so merging allocates nothing.
//
// Chunks: a boundary between two characters that never appear next to each
// other inside any mergeable piece (or beside a frozen user-defined symbol) can
// never be merged across. The merges on its two sides do not interact, and the
// heap order restricted to one side is the order that side would see alone, so
// merging the sides separately gives exactly the whole-text result. encode()
// therefore merges chunk by chunk, cutting at every such boundary (with
// SentencePiece vocabs, before nearly every word): heaps stay tiny and memory
// stays bounded whatever the text size. The one exception is UNUSED pieces:
// sentencepiece resegments them with a table that is global to the text (last
// writer wins), so vocabs that have them merge the whole text as one chunk.
//
// Memo: a chunk's ids depend on its text alone (with byte fallback; without it
// a run of unknowns spanning chunks collapses into one <unk>), and natural text
// repeats its words, so the ids of short chunks are remembered for the call.
class SentencePieceVocab::Encoder {
 public:
  Encoder(const SentencePieceVocab& vocab, std::string_view normalized, std::vector<TokenId>& out)
      : vocab_(vocab),
        text_(normalized),
        out_(out),
        memo_enabled_(vocab.byte_fallback_ && !vocab.has_unused_) {
    symbols_.reserve(64);
    heap_.reserve(64);
  }

  void add_symbol(size_t start, size_t len, bool frozen) {
    const auto index = static_cast<int32_t>(symbols_.size());
    symbols_.push_back(Symbol{start, static_cast<uint32_t>(len), index - 1, index + 1, frozen});
  }

  // Merges the pending symbols and appends their ids.
  void flush() {
    if (symbols_.empty()) return;
    const Symbol& last = symbols_.back();
    const std::string_view chunk =
        text_.substr(symbols_[0].start, last.start + last.len - symbols_[0].start);
    const bool memoizable = memo_enabled_ && chunk.size() <= kMemoMaxChunkBytes;
    if (memoizable && memo_.recall(chunk, out_)) {
      symbols_.clear();
      return;
    }
    const size_t first_id = out_.size();
    symbols_.back().next = -1;
    merge_all();
    for (int32_t i = 0; i >= 0; i = symbols_[i].next) emit(view(symbols_[i]));
    symbols_.clear();
    heap_.clear();
    rev_merge_.clear();
    if (memoizable) memo_.remember(chunk, out_, first_id);
  }

 private:
  struct Symbol {
    size_t start;  // offset in the normalized text
    uint32_t len;  // 0 once merged into its left neighbour
    int32_t prev;
    int32_t next;
    bool frozen;  // a user-defined piece: never merged
  };
  struct Candidate {
    float score;
    int32_t left;
    int32_t right;
    uint32_t size;  // bytes of the merged piece when pushed
  };
  // Heap order: higher score first; on equal scores the leftmost pair first.
  static bool lower_priority(const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }

  static constexpr size_t kMemoMaxChunkBytes = 64;

  std::string_view view(const Symbol& s) const { return text_.substr(s.start, s.len); }

  void maybe_add_pair(int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols_[left];
    const Symbol& r = symbols_[right];
    if (l.frozen || r.frozen) return;
    const size_t size = size_t{l.len} + r.len;
    if (size > vocab_.max_piece_bytes_) return;
    const TokenId id = vocab_.piece_to_id_.find(text_.substr(l.start, size));
    if (id < 0) return;
    heap_.push_back(Candidate{vocab_.data_.scores[id], left, right, static_cast<uint32_t>(size)});
    std::push_heap(heap_.begin(), heap_.end(), lower_priority);
    if (vocab_.data_.types[id] == PieceType::UNUSED) rev_merge_[id] = {view(l), view(r)};
  }

  void merge_all() {
    for (size_t i = 1; i < symbols_.size(); ++i) {
      maybe_add_pair(static_cast<int32_t>(i - 1), static_cast<int32_t>(i));
    }
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), lower_priority);
      const Candidate top = heap_.back();
      heap_.pop_back();
      Symbol& l = symbols_[top.left];
      Symbol& r = symbols_[top.right];
      if (l.len == 0 || r.len == 0 || size_t{l.len} + r.len != top.size) continue;  // stale
      l.len += r.len;
      l.next = r.next;
      if (r.next >= 0) symbols_[r.next].prev = top.left;
      r.len = 0;
      maybe_add_pair(l.prev, top.left);
      maybe_add_pair(top.left, l.next);
    }
  }

  // Id of a final symbol as sentencepiece's PieceToId: reserved pieces first,
  // then mergeable ones; -1 when the vocab has no such piece.
  TokenId lookup(std::string_view piece) const {
    const TokenId id = vocab_.reserved_to_id_.find(piece);
    return id >= 0 ? id : vocab_.piece_to_id_.find(piece);
  }

  // Appends the ids of one final symbol: UNUSED pieces split back into the
  // two parts they were merged from; unknown text falls back to byte pieces.
  void emit(std::string_view piece) {
    const TokenId id = lookup(piece);
    if (id >= 0 && vocab_.data_.types[id] == PieceType::UNUSED) {
      if (const auto it = rev_merge_.find(id); it != rev_merge_.end()) {
        const auto [left, right] = it->second;
        emit(left);
        emit(right);
        return;
      }
    }
    if (id >= 0) {
      out_.push_back(id);
      prev_unknown_ = false;
    } else if (vocab_.byte_fallback_) {
      for (const char c : piece) {
        const TokenId b = vocab_.byte_token_[static_cast<uint8_t>(c)];
        out_.push_back(b >= 0 ? b : vocab_.data_.unk);
      }
      prev_unknown_ = false;
    } else if (!prev_unknown_) {  // without byte fallback a run of unknowns is one <unk>
      out_.push_back(vocab_.data_.unk);
      prev_unknown_ = true;
    }
  }

  const SentencePieceVocab& vocab_;
  std::string_view text_;
  std::vector<TokenId>& out_;
  std::vector<Symbol> symbols_;
  std::vector<Candidate> heap_;
  std::unordered_map<TokenId, std::pair<std::string_view, std::string_view>> rev_merge_;
  bool prev_unknown_ = false;
  const bool memo_enabled_;
  EncodeMemo memo_;  // this call's words already encoded
};

// ---------------------------------------------------------------------------

Result<std::unique_ptr<SentencePieceVocab>> SentencePieceVocab::create(
    SentencePieceVocabData data) {
  if (Status s = validate(data); !s.ok()) return Error{s.message()};
  return std::unique_ptr<SentencePieceVocab>(new SentencePieceVocab(std::move(data)));
}

SentencePieceVocab::SentencePieceVocab(SentencePieceVocabData data) : data_(std::move(data)) {
  index_pieces();
  eog_ids_ = build_eog_ids(data_.pieces, data_.types, data_.eos, data_.eot, data_.eom);
}

// Builds the lookup tables. A piece string that occurs twice keeps its first
// id (sentencepiece refuses such models; GGUF files could hold them). Empty
// pieces can never be formed or matched and are left out.
void SentencePieceVocab::index_pieces() {
  std::fill(std::begin(byte_token_), std::end(byte_token_), -1);
  for (size_t i = 0; i < data_.pieces.size(); ++i) {
    const std::string& piece = data_.pieces[i];
    const PieceType type = data_.types[i];
    const auto id = static_cast<TokenId>(i);
    if (piece.empty()) continue;
    if ((type == PieceType::CONTROL || type == PieceType::USER_DEFINED) &&
        special_.insert(piece, id)) {
      special_first_byte_[static_cast<uint8_t>(piece[0])] = true;
      if (std::find(special_lengths_.begin(), special_lengths_.end(), piece.size()) ==
          special_lengths_.end()) {
        special_lengths_.push_back(piece.size());
      }
    }
    if (!is_mergeable(type)) {
      reserved_to_id_.insert(piece, id);
      if (type == PieceType::BYTE) {
        TokenId& slot = byte_token_[parse_byte_piece(piece)];
        if (slot < 0) slot = id;
        byte_fallback_ = true;
      }
      continue;
    }
    if (!piece_to_id_.insert(piece, id)) continue;
    max_piece_bytes_ = std::max(max_piece_bytes_, piece.size());
    if (type == PieceType::UNUSED) has_unused_ = true;
    if (type == PieceType::USER_DEFINED) {
      user_defined_first_byte_[static_cast<uint8_t>(piece[0])] = true;
      user_defined_.insert(piece, id);
      if (std::find(user_defined_lengths_.begin(), user_defined_lengths_.end(), piece.size()) ==
          user_defined_lengths_.end()) {
        user_defined_lengths_.push_back(piece.size());
      }
    }
    std::string_view rest = piece;
    std::string_view prev_char;
    while (!rest.empty()) {
      const std::string_view c = rest.substr(0, char_length(rest));
      if (!prev_char.empty()) inner_pairs_.insert(pair_key(prev_char, c));
      prev_char = c;
      rest.remove_prefix(c.size());
    }
  }
  std::sort(user_defined_lengths_.rbegin(), user_defined_lengths_.rend());
  std::sort(special_lengths_.rbegin(), special_lengths_.rend());
}

size_t SentencePieceVocab::match_user_defined(std::string_view text) const {
  if (!user_defined_first_byte_[static_cast<uint8_t>(text[0])]) return 0;
  for (const size_t len : user_defined_lengths_) {
    if (len <= text.size() && user_defined_.contains(text.substr(0, len))) return len;
  }
  return 0;
}

bool SentencePieceVocab::is_hard_boundary(std::string_view left_char,
                                          std::string_view right_char) const {
  return !inner_pairs_.contains(pair_key(left_char, right_char));
}

std::vector<TokenId> SentencePieceVocab::encode(std::string_view text, bool add_bos) const {
  std::vector<TokenId> ids;
  if (add_bos) ids.push_back(data_.bos);
  encode_segment(text, data_.add_space_prefix, ids);
  return ids;
}

// Special pieces split the text; each piece of text between them is encoded on its
// own. As llama.cpp's llama_tokenize_impl (SPM, parse_special = true): a segment
// that starts the text or follows a special piece gets the dummy-prefix space when
// the vocab has add_space_prefix. Because two text segments are never adjacent, in
// practice every segment gets it: "<s>[INST] hi" -> <s> "▁[INST]▁hi", which is
// also what the Hugging Face Llama tokenizer (legacy mode) gives. (llama.cpp before
// mid-2024 added it to the first fragment only.) llama.cpp also splits on UNKNOWN
// pieces ("<unk>"); here only CONTROL and USER_DEFINED pieces are special.
std::vector<TokenId> SentencePieceVocab::encode_with_special(std::string_view text,
                                                             bool add_bos) const {
  return encode_special_segments(text, add_bos, data_.add_space_prefix);
}

std::vector<TokenId> SentencePieceVocab::encode_continuation(std::string_view text) const {
  return encode_special_segments(text, false, false);
}

std::vector<TokenId> SentencePieceVocab::encode_special_segments(std::string_view text,
                                                                 bool add_bos,
                                                                 bool first_prefix) const {
  std::vector<TokenId> ids;
  bool prefix = first_prefix;
  if (add_bos) ids.push_back(data_.bos);
  size_t segment_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto [len, id] = match_special(text.substr(pos));
    if (len == 0) {
      ++pos;
      continue;
    }
    if (pos > segment_start) {
      encode_segment(text.substr(segment_start, pos - segment_start), prefix, ids);
    }
    prefix = data_.add_space_prefix;  // segments after a special piece (llama.cpp rule)
    ids.push_back(id);
    pos += len;
    segment_start = pos;
  }
  if (pos > segment_start) {
    encode_segment(text.substr(segment_start), prefix, ids);
  }
  return ids;
}

std::pair<size_t, TokenId> SentencePieceVocab::match_special(std::string_view text) const {
  if (!special_first_byte_[static_cast<uint8_t>(text[0])]) return {0, -1};
  for (const size_t len : special_lengths_) {
    if (len > text.size()) continue;
    if (const TokenId id = special_.find(text.substr(0, len)); id >= 0) return {len, id};
  }
  return {0, -1};
}

void SentencePieceVocab::encode_segment(std::string_view text, bool dummy_prefix,
                                        std::vector<TokenId>& ids) const {
  if (text.empty()) return;
  const std::string normalized = normalize(text, dummy_prefix);
  const std::string_view norm = normalized;
  const size_t wanted = ids.size() + norm.size() / 3 + 1;
  if (ids.capacity() < wanted) ids.reserve(std::max(wanted, 2 * ids.capacity()));

  Encoder encoder(*this, norm, ids);
  std::string_view prev_char;  // empty after a frozen symbol
  size_t pos = 0;
  while (pos < norm.size()) {
    const std::string_view rest = norm.substr(pos);
    size_t len = user_defined_lengths_.empty() ? 0 : match_user_defined(rest);
    const bool frozen = len > 0;
    if (!frozen) len = char_length(rest);
    const std::string_view cur = rest.substr(0, len);
    if (!has_unused_ && (frozen || prev_char.empty() || is_hard_boundary(prev_char, cur))) {
      encoder.flush();
    }
    encoder.add_symbol(pos, len, frozen);
    prev_char = frozen ? std::string_view() : cur;
    pos += len;
  }
  encoder.flush();
}

std::string SentencePieceVocab::decode(std::span<const TokenId> ids) const {
  std::string text;
  std::string bytes;  // a run of byte pieces, decoded together
  // As sentencepiece: the leading U+2581 of the first piece that has one is the
  // dummy prefix, unless visible text came first.
  bool is_bos_ws = data_.add_space_prefix;
  bool bos_ws_seen = false;
  for (const TokenId id : ids) {
    if (id < 0 || id >= n_vocab()) continue;  // not a token: contributes nothing
    const PieceType type = data_.types[id];
    if (type == PieceType::BYTE) {
      bytes.push_back(static_cast<char>(parse_byte_piece(data_.pieces[id])));
      continue;
    }
    utf8::append_replacing_invalid(bytes, text);
    bytes.clear();
    if (bos_ws_seen || !text.empty()) is_bos_ws = false;
    bos_ws_seen = false;
    if (type == PieceType::CONTROL) continue;
    if (type == PieceType::UNKNOWN) {
      text.append(kUnknownSurface);
      continue;
    }
    std::string_view piece = data_.pieces[id];
    if (is_bos_ws && piece.starts_with(kSpaceSymbol)) {
      piece.remove_prefix(kSpaceSymbol.size());
      bos_ws_seen = true;
    }
    append_unescaped(piece, text);
  }
  utf8::append_replacing_invalid(bytes, text);
  return text;
}

std::string SentencePieceVocab::token_text(TokenId id) const {
  return id >= 0 && id < n_vocab() ? data_.pieces[id] : std::string();
}

std::string SentencePieceVocab::token_bytes(TokenId id) const {
  if (id < 0 || id >= n_vocab()) return {};
  switch (data_.types[id]) {
    case PieceType::CONTROL: return {};
    case PieceType::UNKNOWN: return std::string(kUnknownSurface);
    case PieceType::BYTE:
      return std::string(1, static_cast<char>(parse_byte_piece(data_.pieces[id])));
    default: {
      std::string out;
      append_unescaped(data_.pieces[id], out);
      return out;
    }
  }
}

bool SentencePieceVocab::is_eog(TokenId id) const {
  return std::binary_search(eog_ids_.begin(), eog_ids_.end(), id);
}

bool SentencePieceVocab::is_control(TokenId id) const {
  return id >= 0 && id < n_vocab() && data_.types[id] == PieceType::CONTROL;
}

}  // namespace kvchat
