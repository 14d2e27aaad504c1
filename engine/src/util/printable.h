// Text from a file or a peer (a repository id, a model's general.name, a token, a
// template's raise_exception message) made safe to print on a terminal or in a log:
// control characters escaped, invalid UTF-8 shown as bytes, long values cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kvchat {

// The default cut: long enough for any real name or message, short enough for one line.
inline constexpr std::size_t kPrintableMaxBytes = 200;

// `text` with C0 controls, DEL and the C1 controls (U+0080-U+009F, which terminals read
// as escape sequences) written as \n, \t, \r, \e or \xNN / \u{NN}, bytes that are not
// UTF-8 as \xNN, and backslashes doubled; then, if what remains is longer than
// `max_bytes`, cut at a character boundary and followed by "… (N bytes)", N being the
// size of the original. Printable UTF-8 (Korean, emoji) passes through unchanged.
std::string printable(std::string_view text, std::size_t max_bytes = kPrintableMaxBytes);

// A count for a message, its thousands apart: 21344 -> "21,344".
std::string with_commas(long long n);

}  // namespace kvchat
