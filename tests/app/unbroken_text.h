// A text a user can paste that no layout can break at a space: `chars` letters one after
// another (a b c ... z a b ...), no space, no line break. For the giant-message tests.
#pragma once

#include <QString>

inline QString unbroken_text(qsizetype chars) {
  QString s(chars, Qt::Uninitialized);
  for (qsizetype i = 0; i < chars; ++i) s[i] = QChar(char16_t(u'a' + i % 26));
  return s;
}
