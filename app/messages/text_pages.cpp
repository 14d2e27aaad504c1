#include "messages/text_pages.h"

#include <algorithm>

namespace kvchat::app {

namespace {

// Where the page that nominally starts at `nominal` starts: after the last line break in
// the eighth of a page before it, else after the last space there, else at `nominal`
// (one unit earlier when that would split a surrogate pair).
qsizetype page_start(QStringView text, qsizetype nominal, qsizetype page_chars) {
  if (nominal <= 0) return 0;
  if (nominal >= text.size()) return text.size();
  const qsizetype from = nominal - std::max<qsizetype>(1, page_chars / 8);
  qsizetype space = -1;
  for (qsizetype i = nominal - 1; i >= from && i >= 0; --i) {
    if (text[i] == u'\n') return i + 1;
    if (space < 0 && text[i] == u' ') space = i + 1;
  }
  if (space > 0) return space;
  return text[nominal].isLowSurrogate() ? nominal - 1 : nominal;
}

}  // namespace

qsizetype page_count(qsizetype length, qsizetype page_chars) {
  return std::max<qsizetype>(1, (length + page_chars - 1) / page_chars);
}

TextPage text_page(QStringView text, qsizetype page, qsizetype page_chars) {
  const qsizetype pages = page_count(text.size(), page_chars);
  page = std::clamp<qsizetype>(page, 0, pages - 1);
  const qsizetype begin = page_start(text, page * page_chars, page_chars);
  const qsizetype end =
      page + 1 >= pages ? text.size() : page_start(text, (page + 1) * page_chars, page_chars);
  return {begin, end};
}

}  // namespace kvchat::app
