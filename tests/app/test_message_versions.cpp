// Reply versions in the store (issue 13 point 2): a regenerated reply keeps its earlier
// texts, states and stats; switching shows another one in the message's row (the one
// the next turn continues from); everything survives closing and reopening the file and
// follows the message when it is deleted; a file of the previous schema (v2, no versions)
// migrates with its messages intact, each one version of one.
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include "store/conversation_store.h"

using kvchat::app::ConversationStore;
using kvchat::app::MessageState;
using kvchat::app::StoredMessage;

namespace {

// How many rows `sql` counts in the file, read by a connection of its own.
int count_rows(const QString& path, const QString& sql) {
  int n = -1;
  {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
    db.setDatabaseName(path);
    if (db.open()) {
      QSqlQuery q(db);
      if (q.exec(sql) && q.next()) n = q.value(0).toInt();
    }
    db.close();
  }
  QSqlDatabase::removeDatabase(QStringLiteral("raw"));
  return n;
}

QStringList texts(const QVector<StoredMessage>& messages) {
  QStringList out;
  for (const StoredMessage& m : messages) out << m.content;
  return out;
}

}  // namespace

class TestMessageVersions : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void versionsRoundTripAndSwitch() {
    const QString path = dir_.filePath(QStringLiteral("versions.sqlite"));
    QString error;
    qint64 conversation = 0, user = 0, reply = 0;
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      conversation = store->create_conversation(QStringLiteral("t"), {}, &error);
      user = store->append_message(conversation, QStringLiteral("user"),
                                   QStringLiteral("Genesis 1"), MessageState::Complete, &error);
      reply = store->append_message(conversation, QStringLiteral("assistant"), {},
                                    MessageState::Streaming, &error);
      QVERIFY2(user && reply, qPrintable(error));
      QVERIFY(store->update_message(reply, QStringLiteral("first"), MessageState::Interrupted,
                                    {{"seed", 11}}, &error));
      // Regenerate twice: each time the shown text is kept and a new empty one streams.
      QCOMPARE(store->add_message_version(reply, &error), 1);
      QVector<StoredMessage> shown = store->messages(conversation);
      QCOMPARE(shown.size(), 2);
      QCOMPARE(shown[1].id, reply);  // the same message: the id the window holds stays
      QCOMPARE(shown[1].content, QString());
      QCOMPARE(shown[1].state, MessageState::Streaming);
      QCOMPARE(shown[1].version, 1);
      QCOMPARE(shown[1].version_count, 2);
      QVERIFY(store->update_message(reply, QStringLiteral("second"), MessageState::Complete,
                                    {{"seed", 22}}, &error));
      QCOMPARE(store->add_message_version(reply, &error), 2);
      QVERIFY(store->update_message(reply, QStringLiteral("third"), MessageState::Complete,
                                    {{"seed", 33}}, &error));
      // Back to the first: its text, state and stats in the row; the user message untouched.
      QVERIFY2(store->select_message_version(reply, 0, &error), qPrintable(error));
      shown = store->messages(conversation);
      QCOMPARE(shown[0].content, QStringLiteral("Genesis 1"));
      QCOMPARE(shown[0].version_count, 1);
      QCOMPARE(shown[1].content, QStringLiteral("first"));
      QCOMPARE(shown[1].state, MessageState::Interrupted);
      QCOMPARE(shown[1].stats.value("seed").toInt(), 11);
      QCOMPARE(shown[1].version, 0);
      QCOMPARE(shown[1].version_count, 3);
      // A version that does not exist is refused and changes nothing.
      QVERIFY(!store->select_message_version(reply, 3, &error));
      QVERIFY(error.contains(QStringLiteral("no version 4")));
      QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("first"));
    }
    // Reopened: the versions and which one is shown are in the file.
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QVector<StoredMessage> all = store->message_versions(reply);
    QCOMPARE(texts(all), (QStringList{"first", "second", "third"}));
    QCOMPARE(all[2].stats.value("seed").toInt(), 33);
    QCOMPARE(all[1].state, MessageState::Complete);
    QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("first"));
    QVERIFY(store->select_message_version(reply, 2, &error));
    QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("third"));
    QCOMPARE(texts(store->message_versions(reply)), (QStringList{"first", "second", "third"}));
    // The versions go with their message (an edit deletes what follows the user message).
    QVERIFY(store->delete_messages_after(user, &error));
    store.reset();
    QCOMPARE(count_rows(path, QStringLiteral("SELECT COUNT(*) FROM message_versions")), 0);
  }

  // A regenerated version that wrote nothing is dropped; the last other one is shown.
  void discardingTheShownVersionShowsTheLastOther() {
    QString error;
    auto store = ConversationStore::open(dir_.filePath(QStringLiteral("discard.sqlite")), &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 conversation = store->create_conversation(QStringLiteral("t"), {}, &error);
    const qint64 reply = store->append_message(conversation, QStringLiteral("assistant"),
                                               QStringLiteral("a"), MessageState::Complete, &error);
    QVERIFY2(reply, qPrintable(error));
    QVERIFY(!store->discard_shown_version(reply, &error));  // the only version
    QCOMPARE(store->add_message_version(reply, &error), 1);
    QVERIFY(store->update_message(reply, QStringLiteral("b"), MessageState::Complete, {}, &error));
    QCOMPARE(store->add_message_version(reply, &error), 2);
    QVERIFY(store->update_message(reply, QStringLiteral("c"), MessageState::Complete, {}, &error));
    // From the middle: "b" goes, "c" becomes version 2 of 2 and is shown.
    QVERIFY(store->select_message_version(reply, 1, &error));
    QVERIFY2(store->discard_shown_version(reply, &error), qPrintable(error));
    QCOMPARE(texts(store->message_versions(reply)), (QStringList{"a", "c"}));
    QCOMPARE(store->messages(conversation)[0].content, QStringLiteral("c"));
    QCOMPARE(store->messages(conversation)[0].version, 1);
    QCOMPARE(store->messages(conversation)[0].version_count, 2);
    // The new empty one after a regenerate: back to "c".
    QCOMPARE(store->add_message_version(reply, &error), 2);
    QVERIFY(store->discard_shown_version(reply, &error));
    QCOMPARE(texts(store->message_versions(reply)), (QStringList{"a", "c"}));
    QCOMPARE(store->messages(conversation)[0].content, QStringLiteral("c"));
  }

  void migratesTheVersionTwoSchemaWithItsMessages() {
    const QString path = dir_.filePath(QStringLiteral("v2.sqlite"));
    QString error;
    qint64 conversation = 0, reply = 0;
    {
      // A file of the schema before versions, holding a conversation.
      auto v2 = ConversationStore::open(path, ConversationStore::migrations().mid(0, 2), &error);
      QVERIFY2(v2, qPrintable(error));
      QCOMPARE(v2->schema_version(), 2);
      conversation = v2->create_conversation(QStringLiteral("old"), {}, &error);
      QVERIFY(v2->append_message(conversation, QStringLiteral("user"), QStringLiteral("hi"),
                                 MessageState::Complete, &error));
      reply = v2->append_message(conversation, QStringLiteral("assistant"),
                                 QStringLiteral("old reply"), MessageState::Complete, &error);
      QVERIFY2(reply, qPrintable(error));
    }
    QCOMPARE(
        count_rows(path, QStringLiteral(
                             "SELECT COUNT(*) FROM sqlite_master WHERE name = 'message_versions'")),
        0);
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->schema_version(), ConversationStore::kSchemaVersion);  // every step run
    QVector<StoredMessage> shown = store->messages(conversation);
    QCOMPARE(texts(shown), (QStringList{"hi", "old reply"}));
    QCOMPARE(shown[1].version, 0);
    QCOMPARE(shown[1].version_count, 1);
    // And a migrated reply takes versions like a new one.
    QCOMPARE(store->add_message_version(reply, &error), 1);
    QVERIFY(store->update_message(reply, QStringLiteral("new reply"), MessageState::Complete, {},
                                  &error));
    QCOMPARE(texts(store->message_versions(reply)), (QStringList{"old reply", "new reply"}));
  }

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestMessageVersions)
#include "test_message_versions.moc"
