// The Jinja lexer: template text and tags into tokens, with jinja2's whitespace rules
// as transformers configures them (trim_blocks=True, lstrip_blocks=True,
// keep_trailing_newline=False) and the `-`/`+` modifiers on tags.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvchat::jinja {

// A template that cannot be parsed; the message starts with "line L, column C: ".
struct SyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TokenType {
  Text,        // literal template text (already whitespace-controlled)
  VarBegin,    // {{
  VarEnd,      // }}
  BlockBegin,  // {%
  BlockEnd,    // %}
  Name,
  String,  // text holds the unescaped value
  Int,
  Float,
  Op,   // operators and punctuation: + - * / // % ** ~ == != < <= > >= ( ) [ ] { } , . : | =
  End,  // end of input
};

struct Token {
  TokenType type = TokenType::End;
  std::string text;
  std::int64_t int_value = 0;
  double float_value = 0;
  int line = 1, column = 1;
};

std::vector<Token> tokenize(std::string_view source);

// "line L, column C: <what>"
std::string at_position(int line, int column, const std::string& what);

}  // namespace kvchat::jinja
