// TextStream: turns the byte pieces of generated tokens into text that is safe to
// show: complete UTF-8 characters only, and never a prefix of a stop string that
// might still complete. Once a stop string appears, the text ends before it.
#pragma once

#include <string>
#include <vector>

namespace kvchat {

class TextStream {
 public:
  explicit TextStream(std::vector<std::string> stop_strings) : stops_(std::move(stop_strings)) {}

  // Adds bytes; returns the text that became safe to show.
  std::string push(const std::string& bytes);
  // End of generation: returns whatever is still held back (an incomplete UTF-8 tail is dropped).
  std::string finish();

  bool stopped() const { return stopped_; }
  const std::string& text() const { return text_; }  // everything shown so far

 private:
  std::string take_safe(bool final);

  std::vector<std::string> stops_;
  std::string pending_;  // received but not yet shown
  std::string text_;
  bool stopped_ = false;
};

}  // namespace kvchat
