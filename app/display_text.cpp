#include "display_text.h"

namespace kvchat::app {

QString cut_for_display(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return QString::fromStdString(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // a character boundary
  return QString::fromUtf8(text.data(), qsizetype(end)) + QStringLiteral("… (%1 bytes)").arg(text.size());
}

}  // namespace kvchat::app
