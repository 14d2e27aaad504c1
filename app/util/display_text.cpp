#include "util/display_text.h"

#include <QFileInfo>
#include <QLocale>

namespace kvchat::app {

QString cut_for_display(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return QString::fromStdString(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;  // a character boundary
  return QString::fromUtf8(text.data(), qsizetype(end)) +
         QStringLiteral("… (%1 bytes)").arg(text.size());
}

namespace {
QString letters_and_digits(const QString& s) {
  QString out;
  for (const QChar c : s) {
    if (c.isLetterOrNumber()) out.append(c.toLower());
  }
  return out;
}
}  // namespace

QString model_display_name(const QString& path, const std::string& general_name,
                           const std::string& architecture) {
  QString file = QFileInfo(path).fileName();
  if (file.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) file.chop(5);
  const QString base = cut_for_display(file.toStdString());
  const QString name = cut_for_display(general_name).trimmed();
  const QString name_key = letters_and_digits(name);
  if (base.isEmpty()) return name;
  if (name_key.isEmpty() || name_key == letters_and_digits(QString::fromStdString(architecture)) ||
      letters_and_digits(base).contains(name_key)) {
    return base;
  }
  return base + QStringLiteral(" — ") + name;
}

QString count_text(qint64 n) {
  QLocale locale;  // the window's language (the C locale leaves groups out: not here)
  locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
  return locale.toString(n);
}

}  // namespace kvchat::app
