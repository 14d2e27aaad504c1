// A conversation's title (issue 43 point 11): the first words of its first user message,
// following that message when it is edited or another branch of it is shown (the window's
// ChatController on the demo model, the real SQLite store), unless the user named the
// conversation (a rename in the sidebar), across a restart; files of schema 7 (before the
// flag) open, their renamed titles kept and the others following again.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

#include "chat/chat_controller.h"
#include "demo_chat.h"
#include "conversations/conversation_list_model.h"
#include "messages/message_list_model.h"
#include "store/conversation_store.h"

using namespace kvchat::app;
using kvchat::app::testing::load_demo;

namespace {

const QString kGenesis = QStringLiteral("Genesis 1 1 In the beginning");
const QString kPsalm = QStringLiteral("Psalm 23 The Lord is my shepherd");

// Greedy and short: the replies take little time.
void short_greedy(ChatController& chat) {
  QVariantMap s = chat.models()->sampling();
  s.insert("temperature", 0.0);
  s.insert("max_tokens", 4);
  chat.models()->set_sampling(s);
}

// Runs `action` (a send or an edit) and waits for its reply.
bool reply_to(ChatController& chat, const std::function<void()>& action) {
  QSignalSpy finished(&chat, &ChatController::replyFinished);
  action();
  if (!chat.generating()) return false;
  return finished.wait(60000) || finished.count() > 0;
}

// The open conversation's title as the store has it and as the sidebar lists it.
QString stored_title(ChatController& chat) {
  return chat.conversation_list()->conversationTitle(chat.current_conversation());
}
QString listed_title(ChatController& chat) {
  ConversationListModel* list = chat.conversation_list()->list_model();
  for (int row = 0; row < list->rowCount(); ++row) {
    const QModelIndex i = list->index(row);
    if (list->data(i, ConversationListModel::IdRole).toLongLong() == chat.current_conversation())
      return list->data(i, ConversationListModel::TitleRole).toString();
  }
  return {};
}

const MessageListModel& rows(ChatController& chat) {
  return *static_cast<MessageListModel*>(chat.messages());
}

}  // namespace

class TestConversationTitles : public QObject {
  Q_OBJECT
 private slots:
  // One function names a conversation by a message, bounded for a long one.
  void theTitleIsTheFirstWordsOfTheMessage() {
    QCOMPARE(conversation_title_from_message(QStringLiteral("  \n Genesis 1:1\n\tIn the   "
                                                            "beginning God created the heaven")),
             QStringLiteral("Genesis 1:1 In the beginning God created"));
    QCOMPARE(conversation_title_from_message(QStringLiteral("Psalm 23")),
             QStringLiteral("Psalm 23"));
    QCOMPARE(conversation_title_from_message(QStringLiteral(" \n\t ")), QString());
    const QString huge = QStringLiteral("word ").repeated(2'000'000);  // 10 M characters
    QCOMPARE(conversation_title_from_message(huge), QStringLiteral("word ").repeated(8));
  }

  // The first message edited: the title follows it; ‹ back to the first branch: the title
  // is the first message's again; an edit further down leaves the title alone.
  void editingTheFirstMessageRetitles() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    short_greedy(chat);
    QVERIFY(reply_to(chat, [&] { chat.send(kGenesis); }));
    QCOMPARE(stored_title(chat), kGenesis);
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Exodus 2")); }));

    QVERIFY(reply_to(chat, [&] { chat.editMessage(0, kPsalm); }));
    QCOMPARE(rows(chat).items()[0].content, kPsalm);
    QCOMPARE(stored_title(chat), kPsalm);
    QCOMPARE(listed_title(chat), kPsalm);  // the sidebar was refreshed

    chat.selectVersion(0, 0);  // the Genesis branch shown again
    QCOMPARE(rows(chat).items()[0].content, kGenesis);
    QCOMPARE(stored_title(chat), kGenesis);
    QCOMPARE(listed_title(chat), kGenesis);

    QVERIFY(reply_to(chat, [&] { chat.editMessage(2, QStringLiteral("Leviticus 3")); }));
    QCOMPARE(stored_title(chat), kGenesis);
  }

  // A name the user gave it stays through edits and branch switches, and after a restart.
  void aNameTheUserGaveStays() {
    QTemporaryDir dir;
    qint64 id = 0;
    {
      ChatController chat(dir.path());
      QVERIFY(load_demo(chat));
      short_greedy(chat);
      QVERIFY(reply_to(chat, [&] { chat.send(kGenesis); }));
      id = chat.current_conversation();
      chat.conversation_list()->renameConversation(id, QStringLiteral("My reading"));
      QCOMPARE(listed_title(chat), QStringLiteral("My reading"));
      QVERIFY(reply_to(chat, [&] { chat.editMessage(0, kPsalm); }));
      QCOMPARE(stored_title(chat), QStringLiteral("My reading"));
      chat.selectVersion(0, 0);
      QCOMPARE(stored_title(chat), QStringLiteral("My reading"));
      QCOMPARE(listed_title(chat), QStringLiteral("My reading"));
    }
    ChatController again(dir.path());
    QCOMPARE(again.current_conversation(), id);
    QCOMPARE(rows(again).items()[0].content, kGenesis);
    again.selectVersion(0, 1);  // the Psalm branch
    QCOMPARE(rows(again).items()[0].content, kPsalm);
    QCOMPARE(stored_title(again), QStringLiteral("My reading"));
    QCOMPARE(listed_title(again), QStringLiteral("My reading"));
  }

  // A file of schema 7 (no title_named) opens: a title that is none of the first words of
  // the conversation's first messages was the user's and is kept; titles kvchat gave (of
  // the first message shown, or of another branch of it: an edit the old title did not
  // follow) and conversations without messages follow their first message from now on.
  void aVersionSevenFileOpensWithItsNamesKept() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("v7.sqlite"));
    const QString multi_line =
        QStringLiteral("Genesis 1:1\n\tIn the   beginning God created the heaven and the earth.");
    const QString auto_title = conversation_title_from_message(multi_line);
    QCOMPARE(auto_title, QStringLiteral("Genesis 1:1 In the beginning God created"));
    QString error;
    qint64 given = 0, named = 0, empty = 0, edited = 0;
    {
      auto v7 = ConversationStore::open(path, ConversationStore::migrations().mid(0, 7), &error);
      QVERIFY2(v7, qPrintable(error));
      QCOMPARE(v7->schema_version(), 7);
      given = v7->create_conversation(auto_title, {}, &error);
      named = v7->create_conversation(QStringLiteral("My psalms"), {}, &error);
      empty = v7->create_conversation(QStringLiteral("New chat"), {}, &error);
      edited = v7->create_conversation(QStringLiteral("Genesis 1"), {}, &error);
      QVERIFY2(given && named && empty && edited, qPrintable(error));
      const QString user = QStringLiteral("user");
      QVERIFY(v7->append_message(given, user, multi_line, MessageState::Complete, &error));
      QVERIFY(v7->append_message(named, user, kPsalm, MessageState::Complete, &error));
      const qint64 first = v7->append_message(edited, user, QStringLiteral("Genesis 1"),
                                              MessageState::Complete, &error);
      QVERIFY2(first, qPrintable(error));
      QVERIFY(v7->add_branch(first, kPsalm, MessageState::Complete, &error));
    }
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->schema_version(), ConversationStore::kSchemaVersion);
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    QCOMPARE(store->conversations().size(), 4);
    QVERIFY(!store->conversation(given)->title_named);
    QVERIFY(store->conversation(named)->title_named);
    QVERIFY(!store->conversation(empty)->title_named);
    QVERIFY(!store->conversation(edited)->title_named);
    QCOMPARE(store->conversation(named)->title, QStringLiteral("My psalms"));

    bool changed = false;
    QVERIFY(store->retitle_from_first_message(edited, kPsalm, &error, &changed));
    QVERIFY(changed);
    QCOMPARE(store->conversation(edited)->title, kPsalm);
    QVERIFY(store->retitle_from_first_message(named, QStringLiteral("Psalm 24"), &error, &changed));
    QVERIFY(!changed);
    QCOMPARE(store->conversation(named)->title, QStringLiteral("My psalms"));
    // A rename now names it.
    QVERIFY(store->rename_conversation(given, QStringLiteral("Creation"), &error));
    QVERIFY(store->conversation(given)->title_named);
    QVERIFY(store->retitle_from_first_message(given, kPsalm, &error, &changed));
    QVERIFY(!changed);
    QCOMPARE(store->conversation(given)->title, QStringLiteral("Creation"));
  }
};

QTEST_GUILESS_MAIN(TestConversationTitles)
#include "test_conversation_titles.moc"
