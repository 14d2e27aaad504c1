// Issue 40 point 8: a conversation whose messages are long is read on the loader's thread
// (models/message_loader.h), so opening it never holds up the window. Checked here through
// the real ChatController on a real database: the store's index answers the texts' length
// without reading them (schema step 6 -> 7, exact against the characters written); a short
// conversation opens at once as before; a long one opens empty with `opening` set, then
// arrives whole (every character, the bubbles' reasoning split off), with
// conversationOpened; a switch away drops the read;
// the export of a conversation being read takes its rows from the store; "New chat" finds
// an empty conversation without reading the long ones.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "messages/message_list_model.h"
#include "store/conversation_store.h"
#include "unbroken_text.h"

using namespace kvchat::app;

namespace {

struct Written {
  qint64 short_id = 0, long_id = 0;
  QString long_user, long_reply_answer, long_reply_thinking;
};

// Two conversations through the app's own store: a short one (written last, so it is the
// one the window reopens) and one of ~1.1 Mi characters with reasoning in its reply.
Written write_conversations(const QString& dir) {
  Written w;
  QString error;
  auto store = ConversationStore::open(ConversationStore::default_path(dir), &error);
  if (!store) qFatal("%s", qPrintable(error));
  w.long_id = store->create_conversation(QStringLiteral("long"), {}, &error);
  w.long_user = unbroken_text(600 * 1024);
  w.long_reply_thinking = QStringLiteral("Let me think. ") + unbroken_text(300 * 1024);
  w.long_reply_answer = QStringLiteral("The answer: ") + unbroken_text(200 * 1024);
  store->append_message(w.long_id, QStringLiteral("user"), w.long_user, MessageState::Complete,
                        &error);
  store->append_message(w.long_id, QStringLiteral("assistant"),
                        QStringLiteral("<think>") + w.long_reply_thinking +
                            QStringLiteral("</think>") + w.long_reply_answer,
                        MessageState::Complete, &error);
  w.short_id = store->create_conversation(QStringLiteral("short"), {}, &error);
  store->append_message(w.short_id, QStringLiteral("user"), QStringLiteral("Genesis 1"),
                        MessageState::Complete, &error);
  return w;
}

MessageListModel& rows(ChatController& chat) {
  return *qobject_cast<MessageListModel*>(chat.messages());
}

}  // namespace

class TestOpenLongConversation : public QObject {
  Q_OBJECT
 private slots:
  void theIndexKnowsTheLengthWithoutTheTexts() {
    QTemporaryDir dir;
    const Written w = write_conversations(dir.path());
    QString error;
    auto store = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 expected = 7 + w.long_user.size() + w.long_reply_thinking.size() + 8 +
                            w.long_reply_answer.size();  // <think> and </think>
    QCOMPARE(store->shown_message_chars(w.long_id), expected);
    QCOMPARE(store->shown_message_chars(w.short_id), qint64(9));
    QVERIFY(store->has_messages(w.long_id));
    const qint64 empty = store->create_conversation(QStringLiteral("empty"), {}, &error);
    QVERIFY(!store->has_messages(empty));
    QCOMPARE(store->shown_message_chars(empty), qint64(0));
  }

  void aShortConversationOpensAtOnceALongOneOnTheLoader() {
    QTemporaryDir dir;
    const Written w = write_conversations(dir.path());
    ChatController chat(dir.path());
    QCOMPARE(chat.current_conversation(), w.short_id);  // reopened at once, read in place
    QVERIFY(!chat.opening());
    QCOMPARE(rows(chat).rowCount(), 1);

    QSignalSpy opened(&chat, &ChatController::conversationOpened);
    chat.selectConversation(w.long_id);
    QCOMPARE(chat.current_conversation(), w.long_id);
    QVERIFY(chat.opening());  // longer than kOpenInPlaceChars: not read on this thread
    QCOMPARE(rows(chat).rowCount(), 0);
    QVERIFY(opened.wait(20000));
    QVERIFY(!chat.opening());
    MessageListModel& m = rows(chat);
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.items()[0].content, w.long_user);
    // The bubbles' parts were worked out on the loader's thread, the same as in place.
    QCOMPARE(m.textOf(1, QStringLiteral("thinking")), w.long_reply_thinking);
    QCOMPARE(m.textOf(1, QStringLiteral("answer")), w.long_reply_answer);
    QCOMPARE(m.data(m.index(1), MessageListModel::AnswerLengthRole).toLongLong(),
             w.long_reply_answer.size());

    // Back to the short one: at once again.
    chat.selectConversation(w.short_id);
    QVERIFY(!chat.opening());
    QCOMPARE(m.rowCount(), 1);
  }

  void aSwitchAwayDropsTheReadAndAnExportTakesTheStore() {
    QTemporaryDir dir;
    const Written w = write_conversations(dir.path());
    ChatController chat(dir.path());
    QSignalSpy opened(&chat, &ChatController::conversationOpened);
    chat.selectConversation(w.long_id);
    QVERIFY(chat.opening());
    // Exported while it is read: every row, from the store.
    const QString out = dir.filePath(QStringLiteral("long.md"));
    QVERIFY(chat.conversation_list()->exportConversation(w.long_id, out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString md = QString::fromUtf8(f.readAll());
    QVERIFY(md.contains(w.long_user));
    QVERIFY(md.contains(w.long_reply_answer));
    // Away before it arrives: the read is dropped, the short conversation stays shown.
    chat.selectConversation(w.short_id);
    QVERIFY(!chat.opening());
    QVERIFY(!opened.wait(3000));
    QCOMPARE(rows(chat).rowCount(), 1);
    QCOMPARE(rows(chat).items()[0].content, QStringLiteral("Genesis 1"));
  }
};

QTEST_GUILESS_MAIN(TestOpenLongConversation)
#include "test_open_long_conversation.moc"
