// Lexing: the text between tags, the tags' whitespace control, and the expression
// tokens inside {{ }} and {% %}.
#include "chat/jinja/lexer.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "chat/jinja/value.h"
#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat::jinja {

std::string at_position(int line, int column, const std::string& what) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// jinja2 normalises newlines to "\n" and drops one trailing newline.
std::string normalize_source(std::string_view src) {
  std::string out;
  out.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\r') {
      out += '\n';
      if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
    } else {
      out += src[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string src) : s_(std::move(src)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < s_.size(); ++i)
      if (s_[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::vector<Token> run() {
    bool line_starting = true;
    while (pos_ < s_.size()) {
      const size_t tag = find_tag(pos_);
      std::string text = s_.substr(pos_, tag - pos_);
      if (tag == s_.size()) {
        emit_text(std::move(text), pos_);
        pos_ = tag;
        break;
      }
      const char kind = s_[tag + 1];  // '{', '%' or '#'
      const char modifier = tag + 2 < s_.size() ? s_[tag + 2] : '\0';
      if (modifier == '-') {
        while (!text.empty() && is_space(text.back())) text.pop_back();
      } else if (modifier != '+' && kind != '{') {
        lstrip_line(text, line_starting);
      }
      emit_text(std::move(text), pos_);
      const size_t body = tag + 2 + (modifier == '-' || (modifier == '+' && kind != '{') ? 1 : 0);
      size_t end = 0;
      if (kind == '#') {
        end = lex_comment(tag, body);
      } else if (kind == '%' && is_raw_start(body)) {
        end = lex_raw(tag, body);
      } else {
        end = lex_tag(tag, body, kind == '{');
      }
      line_starting = end > 0 && s_[end - 1] == '\n';
      pos_ = end;
    }
    Token eof;
    eof.type = TokenType::End;
    position(s_.size(), eof);
    tokens_.push_back(eof);
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    Token t;
    position(at, t);
    throw SyntaxError(at_position(t.line, t.column, what));
  }

  void position(size_t at, Token& t) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), at);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());
    t.line = static_cast<int>(line);
    t.column = static_cast<int>(at - line_starts_[line - 1] + 1);
  }

  size_t find_tag(size_t from) const {
    for (size_t i = from; i + 1 < s_.size(); ++i) {
      if (s_[i] == '{' && (s_[i + 1] == '{' || s_[i + 1] == '%' || s_[i + 1] == '#')) return i;
    }
    return s_.size();
  }

  // lstrip_blocks: spaces and tabs between the start of a line and a block tag go.
  static void lstrip_line(std::string& text, bool line_starting) {
    const size_t nl = text.rfind('\n');
    const size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
    if (l_pos == 0 && !line_starting) return;
    for (size_t i = l_pos; i < text.size(); ++i)
      if (!is_space(text[i])) return;
    text.resize(l_pos);
  }

  void emit_text(std::string text, size_t at) {
    if (text.empty()) return;
    Token t;
    t.type = TokenType::Text;
    t.text = std::move(text);
    position(at, t);
    tokens_.push_back(std::move(t));
  }

  void emit(TokenType type, size_t at, std::string text = {}) {
    Token t;
    t.type = type;
    t.text = std::move(text);
    position(at, t);
    tokens_.push_back(std::move(t));
  }

  // After a block or comment end: `-` strips all following whitespace, otherwise
  // trim_blocks removes one newline.
  size_t after_block_end(size_t end, bool strip) const {
    if (strip) {
      while (end < s_.size() && is_space(s_[end])) ++end;
    } else if (end < s_.size() && s_[end] == '\n') {
      ++end;
    }
    return end;
  }

  size_t lex_comment(size_t tag, size_t body) {
    const size_t close = s_.find("#}", body);
    if (close == std::string::npos) fail(tag, "unterminated comment");
    const bool strip = close > body && s_[close - 1] == '-';
    return after_block_end(close + 2, strip);
  }

  // {% raw %} with optional modifiers.
  bool is_raw_start(size_t body) const {
    size_t i = body;
    while (i < s_.size() && is_space(s_[i])) ++i;
    if (s_.compare(i, 3, "raw") != 0) return false;
    i += 3;
    if (i < s_.size() && is_name_char(s_[i])) return false;
    while (i < s_.size() && is_space(s_[i])) ++i;
    if (i < s_.size() && (s_[i] == '-' || s_[i] == '+')) ++i;
    return s_.compare(i, 2, "%}") == 0;
  }

  size_t lex_raw(size_t tag, size_t body) {
    size_t i = s_.find("%}", body);
    const bool strip_after_start = s_[i - 1] == '-';
    size_t content = after_block_end(i + 2, strip_after_start);
    // Find {% endraw %}.
    for (size_t j = content; j + 1 < s_.size(); ++j) {
      if (s_[j] != '{' || s_[j + 1] != '%') continue;
      size_t k = j + 2;
      const char modifier = k < s_.size() ? s_[k] : '\0';
      if (modifier == '-' || modifier == '+') ++k;
      while (k < s_.size() && is_space(s_[k])) ++k;
      if (s_.compare(k, 6, "endraw") != 0) continue;
      k += 6;
      while (k < s_.size() && is_space(s_[k])) ++k;
      bool strip_after = false;
      if (k < s_.size() && (s_[k] == '-' || s_[k] == '+')) {
        strip_after = s_[k] == '-';
        ++k;
      }
      if (s_.compare(k, 2, "%}") != 0) continue;
      std::string text = s_.substr(content, j - content);
      if (modifier == '-') {
        while (!text.empty() && is_space(text.back())) text.pop_back();
      } else if (modifier != '+') {
        lstrip_line(text, false);
      }
      emit_text(std::move(text), content);
      return after_block_end(k + 2, strip_after);
    }
    fail(tag, "unterminated raw block");
  }

  size_t lex_tag(size_t tag, size_t body, bool is_var) {
    emit(is_var ? TokenType::VarBegin : TokenType::BlockBegin, tag);
    int depth = 0;
    size_t i = body;
    const char close = is_var ? '}' : '%';
    while (true) {
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size())
        fail(tag, is_var ? "unexpected end of template, expected '}}'"
                         : "unexpected end of template, expected '%}'");
      const char c = s_[i];
      if (depth == 0) {
        const std::string end_mark{close, '}'};
        const bool strip =
            (c == '-' || (c == '+' && !is_var)) && s_.compare(i + 1, 2, end_mark) == 0;
        if (strip || s_.compare(i, 2, end_mark) == 0) {
          emit(is_var ? TokenType::VarEnd : TokenType::BlockEnd, i);
          const size_t end = i + (strip ? 3 : 2);
          if (is_var) {
            size_t e = end;
            if (strip && c == '-')
              while (e < s_.size() && is_space(s_[e])) ++e;
            return e;
          }
          if (strip && c == '+') return end;  // `+%}` keeps the newline (no trim_blocks)
          return after_block_end(end, strip);
        }
      }
      if (is_name_start(c)) {
        size_t j = i;
        while (j < s_.size() && is_name_char(s_[j])) ++j;
        emit(TokenType::Name, i, s_.substr(i, j - i));
        i = j;
      } else if (is_digit(c)) {
        i = lex_number(i);
      } else if (c == '\'' || c == '"') {
        i = lex_string(i);
      } else {
        static const char* kOps2[] = {"**", "//", "==", "!=", "<=", ">="};
        bool matched = false;
        for (const char* op : kOps2) {
          if (s_.compare(i, 2, op) == 0) {
            emit(TokenType::Op, i, op);
            i += 2;
            matched = true;
            break;
          }
        }
        if (matched) continue;
        if (std::string_view("+-*/%~()[]{},.:|=<>").find(c) == std::string_view::npos)
          fail(i, "unexpected character '" + printable(std::string_view(&c, 1)) + "'");
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
          if (depth == 0) fail(i, "unexpected '" + printable(std::string_view(&c, 1)) + "'");
          --depth;
        }
        emit(TokenType::Op, i, std::string(1, c));
        ++i;
      }
    }
  }

  size_t lex_number(size_t i) {
    const size_t start = i;
    std::string digits;
    auto take_digits = [&] {
      while (i < s_.size() &&
             (is_digit(s_[i]) || (s_[i] == '_' && i + 1 < s_.size() && is_digit(s_[i + 1])))) {
        if (s_[i] != '_') digits += s_[i];
        ++i;
      }
    };
    take_digits();
    bool is_float = false;
    // After a '.', digits are an index (`items.0.1`), never a float (as jinja2's lexer).
    const bool after_dot = start > 0 && s_[start - 1] == '.';
    if (!after_dot && i + 1 < s_.size() && s_[i] == '.' && is_digit(s_[i + 1])) {
      is_float = true;
      digits += '.';
      ++i;
      take_digits();
    }
    if (!after_dot && i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
      size_t j = i + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && is_digit(s_[j])) {
        is_float = true;
        digits += 'e';
        digits.append(s_, i + 1, j - i - 1);
        i = j;
        take_digits();
      }
    }
    Token t;
    position(start, t);
    t.text = s_.substr(start, i - start);
    if (is_float) {
      t.type = TokenType::Float;
      t.float_value = std::strtod(digits.c_str(), nullptr);
    } else {
      t.type = TokenType::Int;
      errno = 0;
      t.int_value = std::strtoll(digits.c_str(), nullptr, 10);
      if (errno != 0) {
        t.type = TokenType::Float;  // beyond int64: kept as a float
        t.float_value = std::strtod(digits.c_str(), nullptr);
      }
    }
    tokens_.push_back(std::move(t));
    return i;
  }

  static int hex_value(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  }

  // A Python string literal with its escapes (\n \t \\ \' \xhh \uXXXX, ...); unknown
  // escapes keep their backslash, as Python does.
  size_t lex_string(size_t start) {
    const char quote = s_[start];
    std::string out;
    size_t i = start + 1;
    while (true) {
      if (i >= s_.size()) fail(start, "unterminated string");
      const char c = s_[i];
      if (c == quote) break;
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      if (i + 1 >= s_.size()) fail(start, "unterminated string");
      const char e = s_[i + 1];
      i += 2;
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '\n': break;  // line continuation
        case 'x':
        case 'u':
        case 'U': {
          const int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          char32_t cp = 0;
          for (int k = 0; k < n; ++k) {
            const int h = i < s_.size() ? hex_value(s_[i]) : -1;
            if (h < 0) fail(start, "truncated \\" + std::string(1, e) + " escape");
            cp = (cp << 4) | static_cast<char32_t>(h);
            ++i;
          }
          utf8::append_code_point(out, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            char32_t cp = static_cast<char32_t>(e - '0');
            for (int k = 0; k < 2 && i < s_.size() && s_[i] >= '0' && s_[i] <= '7'; ++k, ++i)
              cp = cp * 8 + static_cast<char32_t>(s_[i] - '0');
            utf8::append_code_point(out, cp);
          } else {
            out += '\\';
            out += e;
          }
      }
    }
    emit(TokenType::String, start, std::move(out));
    return i + 1;
  }

  std::string s_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  return Lexer(normalize_source(source)).run();
}

}  // namespace kvchat::jinja
