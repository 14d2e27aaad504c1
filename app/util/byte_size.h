// A byte count as kvchat writes it everywhere (the memory panel, the Models page, the
// downloads' messages): SI units, about three significant digits, the digits of the
// window's locale (QLocale's default, which UiLanguage sets): "512 B", "5.52 MB", "2.20 GB".
#pragma once

#include <QString>

namespace kvchat::util {

QString format_bytes(double bytes);

}  // namespace kvchat::util
