#include "models/message_segments.h"

#include <QStringList>
#include <QVariantMap>

namespace kvchat::app {

namespace {

// The fence a line opens or closes ("```", "~~~~", ...), or "" when it is no fence.
// *info gets what follows the fence on the line.
QString fence_of(const QString& line, QString* info) {
  int i = 0;
  while (i < line.size() && i < 3 && line[i] == QLatin1Char(' ')) ++i;
  if (i >= line.size() || (line[i] != QLatin1Char('`') && line[i] != QLatin1Char('~'))) return {};
  const QChar c = line[i];
  int n = i;
  while (n < line.size() && line[n] == c) ++n;
  if (n - i < 3) return {};
  if (info) *info = line.mid(n).trimmed();
  return line.mid(i, n - i);
}

void add_prose(QVector<MessageSegment>* out, QStringList* lines) {
  const QString text = lines->join(QLatin1Char('\n'));
  lines->clear();
  if (text.trimmed().isEmpty()) return;
  out->append(MessageSegment{false, text, {}, true});
}

}  // namespace

QVector<MessageSegment> split_message(const QString& content) {
  QVector<MessageSegment> out;
  QStringList lines;  // of the segment being read
  QString open;       // the fence of the code block being read ("" in prose)
  QString language;
  for (const QString& line : content.split(QLatin1Char('\n'))) {
    QString info;
    const QString fence = fence_of(line, &info);
    if (open.isEmpty()) {
      if (fence.isEmpty()) {
        lines.append(line);
        continue;
      }
      add_prose(&out, &lines);
      open = fence;
      language = info.section(QLatin1Char(' '), 0, 0);
    } else if (!fence.isEmpty() && info.isEmpty() && fence[0] == open[0] &&
               fence.size() >= open.size()) {
      out.append(MessageSegment{true, lines.join(QLatin1Char('\n')), language, true});
      lines.clear();
      open.clear();
    } else {
      lines.append(line);
    }
  }
  if (open.isEmpty()) {
    add_prose(&out, &lines);
  } else {
    out.append(MessageSegment{true, lines.join(QLatin1Char('\n')), language, false});
  }
  return out;
}

QVariantList message_segments(const QString& content) {
  QVariantList out;
  for (const MessageSegment& s : split_message(content)) {
    out.append(QVariantMap{
        {QStringLiteral("kind"), s.code ? QStringLiteral("code") : QStringLiteral("text")},
        {QStringLiteral("text"), s.text},
        {QStringLiteral("language"), s.language},
        {QStringLiteral("closed"), s.closed}});
  }
  return out;
}

}  // namespace kvchat::app
