#include "messages/message_segments.h"

namespace kvchat::app {

namespace {

// The fence a line opens or closes ("```", "~~~~", ...), or an empty view when it is no
// fence. *info gets what follows the fence on the line.
QStringView fence_of(QStringView line, QStringView* info) {
  qsizetype i = 0;
  while (i < line.size() && i < 3 && line[i] == u' ') ++i;
  if (i >= line.size() || (line[i] != u'`' && line[i] != u'~')) return {};
  const QChar c = line[i];
  qsizetype n = i;
  while (n < line.size() && line[n] == c) ++n;
  if (n - i < 3) return {};
  *info = line.mid(n).trimmed();
  return line.mid(i, n - i);
}

bool blank(QStringView text) {
  for (const QChar c : text) {
    if (!c.isSpace()) return false;
  }
  return true;
}

}  // namespace

QVector<SegmentRange> segment_ranges(QStringView content) {
  QVector<SegmentRange> out;
  const qsizetype none = -1;
  qsizetype first = 0, last_end = none;  // the segment being read: its first line, last line's end
  QStringView open;                      // the fence of the code block being read (empty: prose)
  QString language;
  auto add_prose = [&] {
    if (last_end != none && !blank(content.mid(first, last_end - first)))
      out.append(SegmentRange{false, first, last_end, {}, true});
  };
  qsizetype start = 0;
  while (start <= content.size()) {
    qsizetype end = content.indexOf(u'\n', start);
    if (end < 0) end = content.size();
    const QStringView line = content.mid(start, end - start);
    const qsizetype next = end + 1;
    QStringView info;
    const QStringView fence = fence_of(line, &info);
    if (open.isEmpty()) {
      if (fence.isEmpty()) {
        if (last_end == none) first = start;
        last_end = end;
      } else {
        add_prose();
        open = fence;
        language = info.toString().section(QLatin1Char(' '), 0, 0);
        first = next;
        last_end = none;
      }
    } else if (!fence.isEmpty() && info.isEmpty() && fence[0] == open[0] &&
               fence.size() >= open.size()) {
      const qsizetype body_end = last_end == none ? first : last_end;
      out.append(SegmentRange{true, first, body_end, language, true});
      open = {};
      last_end = none;
    } else {
      last_end = end;
    }
    start = next;
  }
  if (open.isEmpty()) {
    add_prose();
  } else {
    const qsizetype begin = std::min(first, content.size());
    out.append(SegmentRange{true, begin, last_end == none ? begin : last_end, language, false});
  }
  return out;
}

QVector<MessageSegment> split_message(const QString& content) {
  QVector<MessageSegment> out;
  for (const SegmentRange& r : segment_ranges(content))
    out.append(MessageSegment{r.code, content.mid(r.begin, r.end - r.begin), r.language, r.closed});
  return out;
}

}  // namespace kvchat::app
