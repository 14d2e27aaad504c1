// The engine's text (UTF-8 in std::string and std::string_view) as the window's QString:
// one conversion for every file that hands engine strings to Qt.
#pragma once

#include <QString>
#include <string_view>

namespace kvchat::app {

inline QString qstr(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace kvchat::app
