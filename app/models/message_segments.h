// A message's text split at its fenced code blocks, for the bubble: prose (shown as
// Markdown in a reply) and code blocks (shown on their own background with the fence's
// language and a copy button). A fence is a line starting (after up to three spaces)
// with ``` or ~~~; the info text after it names the language; a block still open at the
// end (a reply being written) runs to the end.
#pragma once

#include <QString>
#include <QVariantList>
#include <QVector>

namespace kvchat::app {

struct MessageSegment {
  bool code = false;
  QString text;        // prose, or the code without its fences (no final newline)
  QString language;    // code: the fence's first word ("" when none)
  bool closed = true;  // code: its closing fence was there
};

QVector<MessageSegment> split_message(const QString& content);
// The same as a list of maps for QML: {kind: "text"|"code", text, language, closed}.
QVariantList message_segments(const QString& content);

}  // namespace kvchat::app
