// A long text shown a page at a time: a bubble lays out at most kPageChars (an eighth more
// for a page that starts early, at a break) of a message, however long it is (a 50 MiB paste
// without a space, a runaway reply), so no message can hold up the window's thread. Pages are cut
// near multiples of kPageChars, after a line break or a space in the last eighth of the page where
// there is one (else between two characters, never inside a surrogate pair): where page k starts
// depends only on the text around k × kPageChars, so any page is found without reading those before
// it.
#pragma once

#include <QStringView>

namespace kvchat::app {

inline constexpr qsizetype kPageChars = 4096;  // UTF-16 units

struct TextPage {
  qsizetype begin = 0, end = 0;  // [begin, end) of the text
};

// How many pages `length` units of text take: at least 1 (an empty text has one, empty).
qsizetype page_count(qsizetype length, qsizetype page_chars = kPageChars);
// Page `page` (clamped to the pages there are) of `text`.
TextPage text_page(QStringView text, qsizetype page, qsizetype page_chars = kPageChars);

}  // namespace kvchat::app
