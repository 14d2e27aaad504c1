// Issue 40 point 8: a long message reaches the bubble a page at a time. The pages cover
// the text exactly once, in order, each at most kPageChars (an eighth more when it starts
// early, at a break), cut after a line break or a
// space near the nominal cut where there is one and never inside a surrogate pair; the
// model follows a streaming reply onto its new pages, keeps a page chosen by hand, gives
// each page its own code-block segments, and copies (textOf) whole texts and whole code
// blocks. The window's stall with giant messages is measured by app_e2e_long_messages.
#include <QtTest>

#include "messages/message_list_model.h"
#include "messages/text_pages.h"

using namespace kvchat::app;

namespace {

StoredMessage message(const QString& role, const QString& content) {
  StoredMessage m;
  m.role = role;
  m.content = content;
  m.state = MessageState::Complete;
  return m;
}

// Every page of `text` concatenated, each checked against the page size (a page that
// starts early, at a break, is up to an eighth longer).
QString pages_joined(const QString& text, qsizetype page_chars) {
  QString out;
  const qsizetype pages = page_count(text.size(), page_chars);
  qsizetype at = 0;
  for (qsizetype p = 0; p < pages; ++p) {
    const TextPage page = text_page(text, p, page_chars);
    if (page.begin != at || page.end <= page.begin ||
        page.end - page.begin > page_chars + page_chars / 8)
      return QStringLiteral("page %1 is [%2, %3) after %4")
          .arg(p)
          .arg(page.begin)
          .arg(page.end)
          .arg(at);
    out += text.mid(page.begin, page.end - page.begin);
    at = page.end;
  }
  return out;
}

}  // namespace

class TestLongMessages : public QObject {
  Q_OBJECT
 private slots:
  void pagesCoverTheTextOnceInOrder() {
    QCOMPARE(page_count(0), qsizetype(1));
    QCOMPARE(page_count(kPageChars), qsizetype(1));
    QCOMPARE(page_count(kPageChars + 1), qsizetype(2));
    const QString unbroken(100000, QLatin1Char('x'));
    QCOMPARE(pages_joined(unbroken, 1000), unbroken);
    // No break in reach: cut at the nominal place.
    QCOMPARE(text_page(unbroken, 1, 1000).begin, qsizetype(1000));
    QString words;
    while (words.size() < 50000) words += QStringLiteral("the word ");
    QCOMPARE(pages_joined(words, 1000), words);
    // A space within the last eighth: the page starts after it.
    const TextPage second = text_page(words, 1, 1000);
    QCOMPARE(words[second.begin - 1], QLatin1Char(' '));
    QVERIFY(second.begin <= 1000 && second.begin > 1000 - 125);
    // A line break is preferred to a later space.
    QString lines = QString(990, QLatin1Char('a')) + QLatin1Char('\n') + QStringLiteral("b c") +
                    QString(3000, QLatin1Char('d'));
    QCOMPARE(text_page(lines, 1, 1000).begin, qsizetype(991));
    QCOMPARE(pages_joined(lines, 1000), lines);
  }

  void pagesNeverSplitASurrogatePair() {
    QString emoji;
    while (emoji.size() < 30001) emoji += QString::fromUtf8("\xF0\x9F\x98\x80");  // U+1F600
    emoji.prepend(QLatin1Char('a'));  // odd offsets: pairs straddle every nominal cut
    QCOMPARE(pages_joined(emoji, 1000), emoji);
    for (qsizetype p = 1; p < page_count(emoji.size(), 1000); ++p)
      QVERIFY(!emoji[text_page(emoji, p, 1000).begin].isLowSurrogate());
  }

  void aLongMessageIsShownAPageAtATime() {
    MessageListModel model;
    const QString long_text(5 * kPageChars + 7, QLatin1Char('z'));
    model.append(message(QStringLiteral("user"), long_text));
    const QModelIndex row = model.index(0);
    QCOMPARE(model.data(row, MessageListModel::PageCountRole).toInt(), 6);
    QCOMPARE(model.data(row, MessageListModel::ShownTextRole).toString().size(), kPageChars);
    QCOMPARE(model.data(row, MessageListModel::AnswerLengthRole).toLongLong(), long_text.size());
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.showPage(0, 5);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.data(row, MessageListModel::PageRole).toInt(), 5);
    QCOMPARE(model.data(row, MessageListModel::ShownTextRole).toString().size(), qsizetype(7));
    model.showPage(0, 99);  // clamped: no change
    QCOMPARE(changed.count(), 1);
    // Copy takes the whole text, not the page.
    QCOMPARE(model.textOf(0, QStringLiteral("content")), long_text);
    QCOMPARE(model.textOf(3, QStringLiteral("content")), QString());
  }

  void aStreamingReplyIsFollowedUnlessAPageWasChosen() {
    MessageListModel model;
    StoredMessage m = message(QStringLiteral("assistant"), QString());
    m.state = MessageState::Streaming;
    model.append(m);
    const QModelIndex row = model.index(0);
    for (int i = 0; i < 3; ++i) model.append_to_last(QString(kPageChars, QLatin1Char('w')));
    QCOMPARE(model.data(row, MessageListModel::PageCountRole).toInt(), 3);
    QCOMPARE(model.data(row, MessageListModel::PageRole).toInt(), 2);  // followed
    model.showPage(0, 0);
    model.append_to_last(QString(kPageChars, QLatin1Char('w')));
    QCOMPARE(model.data(row, MessageListModel::PageCountRole).toInt(), 4);
    QCOMPARE(model.data(row, MessageListModel::PageRole).toInt(), 0);  // the reader's choice
  }

  void codeBlocksArePagedAndCopiedWhole() {
    QString code;
    for (int i = 0; code.size() < 3 * kPageChars; ++i) code += QStringLiteral("x = %1;\n").arg(i);
    code.chop(1);
    const QString reply =
        QStringLiteral("Here:\n```python\n") + code + QStringLiteral("\n```\nDone.");
    MessageListModel model;
    model.append(message(QStringLiteral("assistant"), reply));
    const QModelIndex row = model.index(0);
    const int pages = model.data(row, MessageListModel::PageCountRole).toInt();
    QCOMPARE(pages, 4);
    QString shown_code;
    for (int p = 0; p < pages; ++p) {
      model.showPage(0, p);
      for (const QVariant& v : model.data(row, MessageListModel::SegmentsRole).toList()) {
        const QVariantMap s = v.toMap();
        if (s.value(QStringLiteral("kind")) != QLatin1String("code")) continue;
        QCOMPARE(s.value(QStringLiteral("index")).toInt(), 1);
        QCOMPARE(s.value(QStringLiteral("language")).toString(), QStringLiteral("python"));
        QCOMPARE(s.value(QStringLiteral("continued")).toBool(), p > 0);
        shown_code += s.value(QStringLiteral("text")).toString();
      }
    }
    // The block's pages together are the block (the page cuts fall after its line breaks).
    QCOMPARE(shown_code, code);
    QCOMPARE(model.textOf(0, QStringLiteral("answer")), reply);
  }

  void segmentRangesAreLinearInTheText() {
    // 8 MiB in one line and in 8-byte lines: each one pass (no quadratic rescans).
    const QString one_line(8 << 20, QLatin1Char('q'));
    QString many_lines;
    while (many_lines.size() < (8 << 20)) many_lines += QStringLiteral("abcdefg\n");
    QElapsedTimer t;
    t.start();
    const auto a = segment_ranges(one_line);
    const auto b = segment_ranges(many_lines);
    QCOMPARE(a.size(), 1);
    QCOMPARE(b.size(), 1);
    QCOMPARE(b[0].end, many_lines.size());  // prose runs to the end of its last line
    qInfo("segment_ranges of 2 x 8 Mi characters: %lld ms", static_cast<long long>(t.elapsed()));
  }
};

QTEST_GUILESS_MAIN(TestLongMessages)
#include "test_long_messages.moc"
