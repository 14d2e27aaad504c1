// Reply versions, now branches in the store (issue 13 point 2, issue 29): a regenerated
// reply is a new sibling of it that keeps the earlier texts, states and stats; switching
// shows another sibling (the one the next turn continues from); everything survives
// closing and reopening the file and goes with the message when it is deleted; files of
// older schemas (v2, no versions; v5, versions in message_versions) migrate with every
// text kept, a v5 file's versions as sibling branches.
#include <QSqlDatabase>
#include <QSqlError>
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

// Runs `statements` on the file through a connection of its own; false on the first error.
bool run_sql(const QString& path, const QStringList& statements) {
  bool ok = true;
  {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
    db.setDatabaseName(path);
    ok = db.open();
    for (const QString& sql : statements) {
      QSqlQuery q(db);
      if (ok && !q.exec(sql)) {
        qWarning("%s: %s", qPrintable(sql), qPrintable(q.lastError().text()));
        ok = false;
      }
    }
    db.close();
  }
  QSqlDatabase::removeDatabase(QStringLiteral("raw"));
  return ok;
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
    qint64 conversation = 0, user = 0, reply = 0, second = 0, third = 0;
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
      // Regenerate twice: each time a new, empty sibling streams; the earlier ones stay.
      second = store->add_branch(reply, {}, MessageState::Streaming, &error);
      QVERIFY2(second, qPrintable(error));
      QVector<StoredMessage> shown = store->messages(conversation);
      QCOMPARE(shown.size(), 2);
      QCOMPARE(shown[1].id, second);
      QCOMPARE(shown[1].parent_id, user);
      QCOMPARE(shown[1].content, QString());
      QCOMPARE(shown[1].state, MessageState::Streaming);
      QCOMPARE(shown[1].version, 1);
      QCOMPARE(shown[1].version_count, 2);
      QVERIFY(store->update_message(second, QStringLiteral("second"), MessageState::Complete,
                                    {{"seed", 22}}, &error));
      third = store->add_branch(second, {}, MessageState::Streaming, &error);
      QVERIFY(third);
      QVERIFY(store->update_message(third, QStringLiteral("third"), MessageState::Complete,
                                    {{"seed", 33}}, &error));
      // Back to the first: its text, state and stats; the user message untouched.
      QVERIFY2(store->select_branch(reply, &error), qPrintable(error));
      shown = store->messages(conversation);
      QCOMPARE(shown[0].content, QStringLiteral("Genesis 1"));
      QCOMPARE(shown[0].version_count, 1);
      QCOMPARE(shown[1].id, reply);
      QCOMPARE(shown[1].content, QStringLiteral("first"));
      QCOMPARE(shown[1].state, MessageState::Interrupted);
      QCOMPARE(shown[1].stats.value("seed").toInt(), 11);
      QCOMPARE(shown[1].version, 0);
      QCOMPARE(shown[1].version_count, 3);
      // A message that does not exist is refused and changes nothing.
      QVERIFY(!store->select_branch(third + 100, &error));
      QVERIFY(error.contains(QStringLiteral("no message")));
      QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("first"));
    }
    // Reopened: the branches and which one is shown are in the file.
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QVector<StoredMessage> all = store->branches(reply);
    QCOMPARE(texts(all), (QStringList{"first", "second", "third"}));
    QCOMPARE(all[2].stats.value("seed").toInt(), 33);
    QCOMPARE(all[1].state, MessageState::Complete);
    QCOMPARE(all[0].version_count, 3);
    QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("first"));
    QVERIFY(store->select_branch(third, &error));
    QCOMPARE(store->messages(conversation)[1].content, QStringLiteral("third"));
    QCOMPARE(texts(store->branches(second)), (QStringList{"first", "second", "third"}));
    // The branches go with their parent (everything after the user message).
    QVERIFY(store->delete_messages_after(user, &error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"Genesis 1"}));
    store.reset();
    QCOMPARE(count_rows(path, QStringLiteral("SELECT COUNT(*) FROM messages")), 1);
  }

  // A regenerated branch that wrote nothing is deleted; the last other one is shown.
  void discardingTheShownVersionShowsTheLastOther() {
    QString error;
    auto store = ConversationStore::open(dir_.filePath(QStringLiteral("discard.sqlite")), &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 conversation = store->create_conversation(QStringLiteral("t"), {}, &error);
    const qint64 a = store->append_message(conversation, QStringLiteral("assistant"),
                                           QStringLiteral("a"), MessageState::Complete, &error);
    QVERIFY2(a, qPrintable(error));
    const qint64 b = store->add_branch(a, QStringLiteral("b"), MessageState::Complete, &error);
    const qint64 c = store->add_branch(a, QStringLiteral("c"), MessageState::Complete, &error);
    QVERIFY(b && c);
    // From the middle: "b" goes, "c" becomes branch 2 of 2 and is shown.
    QVERIFY(store->select_branch(b, &error));
    QVERIFY2(store->delete_message(b, &error), qPrintable(error));
    QCOMPARE(texts(store->branches(a)), (QStringList{"a", "c"}));
    QCOMPARE(store->messages(conversation)[0].content, QStringLiteral("c"));
    QCOMPARE(store->messages(conversation)[0].version, 1);
    QCOMPARE(store->messages(conversation)[0].version_count, 2);
    // The new empty one after a regenerate: back to "c".
    const qint64 d = store->add_branch(c, {}, MessageState::Streaming, &error);
    QCOMPARE(store->messages(conversation)[0].version, 2);
    QVERIFY(store->delete_message(d, &error));
    QCOMPARE(texts(store->branches(a)), (QStringList{"a", "c"}));
    QCOMPARE(store->messages(conversation)[0].content, QStringLiteral("c"));
    // The last one: nothing is shown.
    QVERIFY(store->delete_message(c, &error));
    QVERIFY(store->delete_message(a, &error));
    QVERIFY(store->messages(conversation).isEmpty());
    QVERIFY(!store->delete_message(a, &error));  // already gone
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
      QVERIFY(run_sql(path, {QStringLiteral("INSERT INTO messages (conversation_id, position,"
                                            " role, content, created_at) VALUES (%1, 1, 'user',"
                                            " 'hi', 1), (%1, 2, 'assistant', 'old reply', 2)")
                                 .arg(conversation)}));
      reply = count_rows(path, QStringLiteral("SELECT id FROM messages WHERE position = 2"));
      QVERIFY(reply > 0);
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
    QCOMPARE(shown[1].id, reply);
    QCOMPARE(shown[1].parent_id, shown[0].id);
    QCOMPARE(shown[0].parent_id, qint64{0});
    QCOMPARE(shown[1].version, 0);
    QCOMPARE(shown[1].version_count, 1);
    // And a migrated reply takes branches like a new one.
    QVERIFY(store->add_branch(reply, QStringLiteral("new reply"), MessageState::Complete, &error));
    QCOMPARE(texts(store->branches(reply)), (QStringList{"old reply", "new reply"}));
  }

  // A version-5 file (the reply versions of step 2 -> 3 in message_versions) becomes a tree:
  // the version shown keeps its row, its id and what follows it; every other version is a
  // sibling branch with nothing after it; no text is lost.
  void migratesVersionFiveReplyVersionsToBranches() {
    const QString path = dir_.filePath(QStringLiteral("v5.sqlite"));
    QString error;
    qint64 conversation = 0, other = 0;
    {
      auto v5 = ConversationStore::open(path, ConversationStore::migrations().mid(0, 5), &error);
      QVERIFY2(v5, qPrintable(error));
      QCOMPARE(v5->schema_version(), 5);
      conversation = v5->create_conversation(QStringLiteral("old"), {}, &error);
      other = v5->create_conversation(QStringLiteral("other"), {}, &error);
      QVERIFY(conversation && other);
    }
    // As the v5 code wrote them: positions 1..4 (3 gone: a deleted message leaves a gap);
    // the reply at 2 shows version 1 of 3 (0 and 2 in message_versions), the last reply
    // version 0 of 2.
    QVERIFY(run_sql(
        path,
        {QStringLiteral("INSERT INTO messages (id, conversation_id, position, role, content, state,"
                        " stats_json, created_at, version) VALUES"
                        " (10, %1, 1, 'user', 'u1', 'complete', '{}', 1, 0),"
                        " (11, %1, 2, 'assistant', 'a1 v1', 'complete', '{\"seed\":2}', 5, 1),"
                        " (12, %1, 4, 'user', 'u2', 'complete', '{}', 6, 0),"
                        " (13, %1, 5, 'assistant', 'a2 v0', 'interrupted', '{}', 7, 0),"
                        " (20, %2, 1, 'user', 'other u', 'complete', '{}', 1, 0)")
             .arg(conversation)
             .arg(other),
         QStringLiteral("INSERT INTO message_versions (message_id, version, content, state,"
                        " stats_json, created_at) VALUES"
                        " (11, 0, 'a1 v0', 'complete', '{\"seed\":1}', 2),"
                        " (11, 2, 'a1 v2', 'interrupted', '{\"seed\":3}', 4),"
                        " (13, 1, 'a2 v1', 'complete', '{}', 8)")}));
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->schema_version(), ConversationStore::kSchemaVersion);  // every step run
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    QCOMPARE(
        count_rows(path, QStringLiteral(
                             "SELECT COUNT(*) FROM sqlite_master WHERE name = 'message_versions'")),
        0);
    // The path shown is the one shown before, by the same ids.
    QVector<StoredMessage> shown = store->messages(conversation);
    QCOMPARE(texts(shown), (QStringList{"u1", "a1 v1", "u2", "a2 v0"}));
    QCOMPARE(shown[0].id, qint64{10});
    QCOMPARE(shown[1].id, qint64{11});
    QCOMPARE(shown[2].id, qint64{12});
    QCOMPARE(shown[3].id, qint64{13});
    QCOMPARE(shown[1].parent_id, qint64{10});
    QCOMPARE(shown[2].parent_id, qint64{11});
    QCOMPARE(shown[1].version, 1);
    QCOMPARE(shown[1].version_count, 3);
    QCOMPARE(shown[3].version_count, 2);
    QCOMPARE(texts(store->messages(other)), (QStringList{"other u"}));
    // Every text is reachable: the versions are siblings, in their order, with their fields.
    const QVector<StoredMessage> a1 = store->branches(11);
    QCOMPARE(texts(a1), (QStringList{"a1 v0", "a1 v1", "a1 v2"}));
    QCOMPARE(a1[0].stats.value("seed").toInt(), 1);
    QCOMPARE(a1[2].state, MessageState::Interrupted);
    QCOMPARE(a1[2].created.toMSecsSinceEpoch(), qint64{4});
    QCOMPARE(texts(store->branches(13)), (QStringList{"a2 v0", "a2 v1"}));
    QStringList all = texts(store->message_tree(conversation));
    all.sort();
    QCOMPARE(all, (QStringList{"a1 v0", "a1 v1", "a1 v2", "a2 v0", "a2 v1", "u1", "u2"}));
    // An earlier version shown: nothing after it; back again: what followed it is there.
    QVERIFY(store->select_branch(a1[2].id, &error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1", "a1 v2"}));
    QVERIFY(store->select_branch(11, &error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1", "a1 v1", "u2", "a2 v0"}));
    // A new turn after a migrated version continues its branch.
    QVERIFY(store->select_branch(a1[0].id, &error));
    const qint64 u =
        store->append_message(conversation, QStringLiteral("user"), QStringLiteral("u2 on v0"),
                              MessageState::Complete, &error);
    QVERIFY2(u, qPrintable(error));
    shown = store->messages(conversation);
    QCOMPARE(texts(shown), (QStringList{"u1", "a1 v0", "u2 on v0"}));
    QCOMPARE(shown[2].parent_id, a1[0].id);
  }

  // Editing a message in the middle makes a branch there; a branch remembers which of its
  // later siblings was shown; all of it survives reopening.
  void branchesInTheMiddleRememberTheirSelections() {
    const QString path = dir_.filePath(QStringLiteral("tree.sqlite"));
    QString error;
    qint64 conversation = 0, u1 = 0, a2 = 0, a2b = 0, u1b = 0;
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      conversation = store->create_conversation(QStringLiteral("t"), {}, &error);
      const auto add = [&](const char* role, const char* text) {
        return store->append_message(conversation, QLatin1String(role), QLatin1String(text),
                                     MessageState::Complete, &error);
      };
      u1 = add("user", "u1");
      add("assistant", "a1");
      add("user", "u2");
      a2 = add("assistant", "a2");
      a2b = store->add_branch(a2, QStringLiteral("a2b"), MessageState::Complete, &error);
      QVERIFY2(a2b, qPrintable(error));
      // An edit of the first message: a branch with nothing after it yet, then its reply.
      u1b = store->add_branch(u1, QStringLiteral("u1b"), MessageState::Complete, &error);
      QVERIFY(u1b);
      QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1b"}));
      QVERIFY(add("assistant", "a1 of u1b"));
      const QVector<StoredMessage> shown = store->messages(conversation);
      QCOMPARE(texts(shown), (QStringList{"u1b", "a1 of u1b"}));
      QCOMPARE(shown[0].version, 1);
      QCOMPARE(shown[0].version_count, 2);
      QCOMPARE(shown[1].version_count, 1);
      // Back to the first: its branch as it was left, "a2b" shown.
      QVERIFY(store->select_branch(u1, &error));
      QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1", "a1", "u2", "a2b"}));
    }
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1", "a1", "u2", "a2b"}));
    QVERIFY(store->select_branch(a2, &error));
    QVERIFY(store->select_branch(u1b, &error));
    QVERIFY(store->select_branch(u1, &error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1", "a1", "u2", "a2"}));
    // The tree: parents before children, every message once.
    const QVector<StoredMessage> tree = store->message_tree(conversation);
    QCOMPARE(tree.size(), 7);
    QSet<qint64> seen;
    for (const StoredMessage& m : tree) {
      QVERIFY(m.parent_id == 0 || seen.contains(m.parent_id));
      seen.insert(m.id);
    }
    // Deleting a branch takes what follows it.
    QVERIFY(store->delete_message(u1, &error));
    QCOMPARE(texts(store->messages(conversation)), (QStringList{"u1b", "a1 of u1b"}));
    QCOMPARE(store->messages(conversation)[0].version, 0);
    QCOMPARE(store->messages(conversation)[0].version_count, 1);
    QCOMPARE(store->message_tree(conversation).size(), 2);
  }

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestMessageVersions)
#include "test_message_versions.moc"
