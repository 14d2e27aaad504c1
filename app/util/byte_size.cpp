#include "util/byte_size.h"

#include <QLocale>

namespace kvchat::util {

QString format_bytes(double bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  const QLocale locale;
  if (u == 0) return QStringLiteral("%1 B").arg(locale.toString(bytes, 'f', 0));
  return QStringLiteral("%1 %2").arg(
      locale.toString(bytes, 'f', bytes < 10 ? 2 : (bytes < 100 ? 1 : 0)), QLatin1String(units[u]));
}

}  // namespace kvchat::util
