// A message's text split at its fenced code blocks, for the bubble: prose (shown as
// Markdown in a reply) and code blocks (shown on their own background with the fence's
// language and a copy button). A fence is a line starting (after up to three spaces)
// with ``` or ~~~; the info text after it names the language; a block still open at the
// end (a reply being written) runs to the end.
#pragma once

#include <QString>
#include <QStringView>
#include <QVector>

namespace kvchat::app {

// Where a segment lies in the text: [begin, end) in UTF-16 units. Prose runs from its
// first line's start to its last line's end; code from the line after its opening fence to
// the end of the line before its closing one (no final newline). One pass, no copies of
// the text: linear in its length, whatever its lines.
struct SegmentRange {
  bool code = false;
  qsizetype begin = 0, end = 0;
  QString language;    // code: the fence's first word ("" when none)
  bool closed = true;  // code: its closing fence was there
};
QVector<SegmentRange> segment_ranges(QStringView content);

struct MessageSegment {
  bool code = false;
  QString text;        // prose, or the code without its fences (no final newline)
  QString language;    // code: the fence's first word ("" when none)
  bool closed = true;  // code: its closing fence was there
};
QVector<MessageSegment> split_message(const QString& content);

}  // namespace kvchat::app
