// Branch trees with loops (issue 40 point 9): a message that is its own parent, or parent
// links in a loop, made every recursive query of the store (deleting a subtree, the path
// shown) run forever. Real SQLite files are damaged by hand here: opening mends them (every
// message kept, a report for the window), and a loop made behind an open store's back no
// longer hangs any of its writes. The ctest TIMEOUT (tests/app/CMakeLists.txt) is what
// fails the old code: it never returns from delete_messages_after / delete_message.
#include <QElapsedTimer>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "store/conversation_store.h"

using kvchat::app::ConversationStore;
using kvchat::app::MessageState;
using kvchat::app::StoredMessage;

namespace {

// A raw QtSql connection to a file: what the store would never write.
class RawDb {
 public:
  explicit RawDb(const QString& path) : name_(QStringLiteral("raw-cycles-%1").arg(++serial_)) {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name_);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    ok_ = db.open();
  }
  ~RawDb() {
    {
      QSqlDatabase db = QSqlDatabase::database(name_, false);
      db.close();
    }
    QSqlDatabase::removeDatabase(name_);
  }
  bool ok() const { return ok_; }
  bool exec(const QString& sql) {
    QSqlQuery q(QSqlDatabase::database(name_, false));
    if (!q.exec(sql)) {
      qWarning() << "raw exec failed:" << sql << q.lastError().text();
      return false;
    }
    return true;
  }
  // id -> (conversation, parent (0: NULL), content) of every message.
  struct Row {
    qint64 conversation = 0, parent = 0;
    QString content;
  };
  std::map<qint64, Row> rows() {
    std::map<qint64, Row> out;
    QSqlQuery q(QSqlDatabase::database(name_, false));
    if (!q.exec(QStringLiteral(
            "SELECT id, conversation_id, COALESCE(parent_id, 0), content FROM messages")))
      return out;
    while (q.next())
      out[q.value(0).toLongLong()] = {q.value(1).toLongLong(), q.value(2).toLongLong(),
                                      q.value(3).toString()};
    return out;
  }

 private:
  static inline int serial_ = 0;
  QString name_;
  bool ok_ = false;
};

// Whether every message reaches a first message of its own conversation by its parents.
bool every_message_reaches_a_first_one(const std::map<qint64, RawDb::Row>& rows) {
  for (const auto& [id, row] : rows) {
    qint64 at = id;
    for (size_t steps = 0;; ++steps) {
      if (steps > rows.size()) return false;  // a loop
      const auto it = rows.find(at);
      if (it == rows.end() || it->second.conversation != row.conversation) return false;
      if (it->second.parent == 0) break;
      at = it->second.parent;
    }
  }
  return true;
}

// The conversation whose first message shown is `first`.
qint64 conversation_of(ConversationStore& store, qint64 first) {
  for (const auto& c : store.conversations()) {
    const QVector<StoredMessage> m = store.messages(c.id);
    if (!m.isEmpty() && m.front().id == first) return c.id;
  }
  return 0;
}

QStringList texts(const QVector<StoredMessage>& messages) {
  QStringList out;
  for (const StoredMessage& m : messages) out << m.content;
  return out;
}

// A conversation of `n` messages, user and assistant in turn, texts "<tag>1".."<tag>n".
QVector<qint64> chain(ConversationStore& store, const QString& tag, int n) {
  QString error;
  const qint64 conversation = store.create_conversation(tag, {}, &error);
  QVector<qint64> ids;
  for (int i = 1; i <= n; ++i) {
    ids << store.append_message(conversation,
                                i % 2 ? QStringLiteral("user") : QStringLiteral("assistant"),
                                tag + QString::number(i), MessageState::Complete, &error);
    if (!ids.back()) qWarning() << "append failed:" << error;
  }
  return ids;
}

}  // namespace

class BranchCyclesTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  int files_ = 0;
  QString fresh_path() { return dir_.filePath(QStringLiteral("db%1/kvchat.sqlite").arg(++files_)); }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  // A file holding a self-parent message and a loop of three: opening it mends both (every
  // message kept, each conversation's messages in order again), says what it found, and
  // deleting subtrees afterwards ends and touches nothing else.
  void openingMendsASelfParentAndALoopOfThree() {
    const QString path = fresh_path();
    QVector<qint64> intact, self, loop;
    qint64 intact_conversation = 0, self_conversation = 0, loop_conversation = 0;
    QVector<StoredMessage> intact_tree;
    {
      QString error;
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      intact = chain(*store, QStringLiteral("intact"), 4);
      // A branch in the intact one, so that its whole tree is compared, not just a path.
      QVERIFY(
          store->add_branch(intact[1], QStringLiteral("intact2b"), MessageState::Complete, &error));
      self = chain(*store, QStringLiteral("self"), 4);
      loop = chain(*store, QStringLiteral("loop"), 5);
      intact_conversation = conversation_of(*store, intact[0]);
      self_conversation = conversation_of(*store, self[0]);
      loop_conversation = conversation_of(*store, loop[0]);
      QVERIFY(intact_conversation && self_conversation && loop_conversation);
      QVERIFY(store->tree_repair_report().isEmpty());
      intact_tree = store->message_tree(intact_conversation);
      QCOMPARE(intact_tree.size(), 5);
    }
    std::map<qint64, RawDb::Row> before;
    {
      RawDb raw(path);
      QVERIFY(raw.ok());
      // "self3" is its own parent; "loop3" -> "loop5" -> "loop4" -> "loop3".
      QVERIFY(raw.exec(
          QStringLiteral("UPDATE messages SET parent_id = id WHERE id = %1").arg(self[2])));
      QVERIFY(raw.exec(QStringLiteral("UPDATE messages SET parent_id = %1 WHERE id = %2")
                           .arg(loop[4])
                           .arg(loop[2])));
      before = raw.rows();
      QVERIFY(!every_message_reaches_a_first_one(before));
    }
    QCOMPARE(before.size(), size_t(14));

    QElapsedTimer clock;
    clock.start();
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QString report = store->tree_repair_report();
    qInfo("report (%lld ms): %s", qint64(clock.elapsed()), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("message %1 was its own parent").arg(self[2])),
             qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("messages %1, %2, %3 were each other's parents")
                                 .arg(loop[2])
                                 .arg(loop[3])
                                 .arg(loop[4])),
             qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("no message lost")), qPrintable(report));
    QVERIFY2(!report.contains(QStringLiteral("“intact”")), qPrintable(report));

    // Every message kept, text and conversation; every one reaches a first message again.
    {
      RawDb raw(path);
      const auto after = raw.rows();
      QCOMPARE(after.size(), before.size());
      for (const auto& [id, row] : before) {
        QVERIFY(after.count(id));
        QCOMPARE(after.at(id).content, row.content);
        QCOMPARE(after.at(id).conversation, row.conversation);
      }
      QVERIFY(every_message_reaches_a_first_one(after));
    }
    // The cut-off parts came back where they were: each conversation reads in order.
    QCOMPARE(texts(store->messages(self_conversation)),
             QStringList({"self1", "self2", "self3", "self4"}));
    QCOMPARE(texts(store->messages(loop_conversation)),
             QStringList({"loop1", "loop2", "loop3", "loop4", "loop5"}));
    // The intact conversation is exactly as it was, branches and all.
    const QVector<StoredMessage> tree = store->message_tree(intact_conversation);
    QCOMPARE(tree.size(), intact_tree.size());
    for (int i = 0; i < tree.size(); ++i) {
      QCOMPARE(tree[i].id, intact_tree[i].id);
      QCOMPARE(tree[i].parent_id, intact_tree[i].parent_id);
      QCOMPARE(tree[i].version, intact_tree[i].version);
      QCOMPARE(tree[i].selected, intact_tree[i].selected);
      QCOMPARE(tree[i].shown, intact_tree[i].shown);
      QCOMPARE(tree[i].content, intact_tree[i].content);
    }

    // Subtrees deleted in the mended conversations: they end, and take only what is below.
    QVERIFY2(store->delete_messages_after(loop[2], &error), qPrintable(error));
    QCOMPARE(texts(store->messages(loop_conversation)), QStringList({"loop1", "loop2", "loop3"}));
    QVERIFY2(store->delete_message(self[2], &error), qPrintable(error));
    QCOMPARE(texts(store->messages(self_conversation)), QStringList({"self1", "self2"}));
    QCOMPARE(store->message_tree(intact_conversation).size(), intact_tree.size());
    QCOMPARE(store->conversations().size(), 3);
    // Mended once: a second open finds nothing to say.
    store.reset();
    store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QVERIFY2(store->tree_repair_report().isEmpty(), qPrintable(store->tree_repair_report()));
  }

  // A first message that is its own parent (nothing of the conversation whole), a parent
  // that does not exist and one in another conversation: each part becomes whole again.
  void openingMendsLostFirstMessagesAndParents() {
    const QString path = fresh_path();
    QVector<qint64> a, b, c;
    {
      QString error;
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      a = chain(*store, QStringLiteral("a"), 3);
      b = chain(*store, QStringLiteral("b"), 3);
      c = chain(*store, QStringLiteral("c"), 3);
    }
    {
      RawDb raw(path);
      QVERIFY(
          raw.exec(QStringLiteral("UPDATE messages SET parent_id = id WHERE id = %1").arg(a[0])));
      QVERIFY(raw.exec(
          QStringLiteral("UPDATE messages SET parent_id = 999999 WHERE id = %1").arg(b[1])));
      QVERIFY(raw.exec(
          QStringLiteral("UPDATE messages SET parent_id = %1 WHERE id = %2").arg(a[1]).arg(c[2])));
    }
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QString report = store->tree_repair_report();
    QVERIFY2(report.contains(QStringLiteral("message %1 was its own parent").arg(a[0])) &&
                 report.contains(QStringLiteral("does not exist")) &&
                 report.contains(QStringLiteral("in another conversation")),
             qPrintable(report));
    RawDb raw(path);
    QVERIFY(every_message_reaches_a_first_one(raw.rows()));
    QCOMPARE(raw.rows().size(), size_t(9));
    QStringList all;
    for (const auto& conversation : store->conversations())
      all << texts(store->messages(conversation.id)).join(QLatin1Char(' '));
    all.sort();
    QCOMPARE(all, QStringList({"a1 a2 a3", "b1 b2 b3", "c1 c2 c3"}));
  }

  // Loops made while a store is open (another process, a bad sync): every write that walks
  // the tree ends, and nothing outside the damaged conversation changes.
  void writesEndOnALoopMadeBehindTheStoresBack() {
    const QString path = fresh_path();
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QVector<qint64> other = chain(*store, QStringLiteral("other"), 4);
    const QVector<qint64> d = chain(*store, QStringLiteral("d"), 6);
    const qint64 other_conversation = conversation_of(*store, other[0]);
    const QStringList other_texts = texts(store->messages(other_conversation));
    QCOMPARE(other_texts, QStringList({"other1", "other2", "other3", "other4"}));
    {
      RawDb raw(path);
      QVERIFY(raw.ok());
      // "d2" is its own parent, and "d4" -> "d6" -> "d5" -> "d4".
      QVERIFY(
          raw.exec(QStringLiteral("UPDATE messages SET parent_id = id WHERE id = %1").arg(d[1])));
      QVERIFY(raw.exec(
          QStringLiteral("UPDATE messages SET parent_id = %1 WHERE id = %2").arg(d[5]).arg(d[3])));
    }
    QElapsedTimer clock;
    clock.start();
    // The path shown is recomputed (add_branch, select_branch) and subtrees deleted.
    const qint64 branch =
        store->add_branch(d[4], QStringLiteral("d5b"), MessageState::Complete, &error);
    QVERIFY2(branch || !error.isEmpty(), "add_branch neither worked nor failed");
    error.clear();
    store->select_branch(d[4], &error);
    error.clear();
    // Below "d4": "d5", its new sibling and "d6", not "d4" itself (the loop leads back to it).
    QVERIFY2(store->delete_messages_after(d[3], &error), qPrintable(error));
    // Below "d2" (its own child): "d3", not "d2".
    QVERIFY2(store->delete_messages_after(d[1], &error), qPrintable(error));
    // "d4" and whatever is below it.
    QVERIFY2(store->delete_message(d[3], &error), qPrintable(error));
    qInfo("writes on a looped tree took %lld ms", qint64(clock.elapsed()));
    QVERIFY(clock.elapsed() < 30000);
    RawDb raw(path);
    const auto rows = raw.rows();
    QVERIFY(rows.count(d[0]));
    QVERIFY(rows.count(d[1]));
    for (qint64 id : {d[2], d[3], d[4], d[5], branch}) QVERIFY(!rows.count(id));
    // The other conversation is untouched.
    QCOMPARE(texts(store->messages(other_conversation)), other_texts);
    for (qint64 id : other) QVERIFY(rows.count(id));
    QCOMPARE(rows.size(), size_t(other.size() + 2));
  }
};

QTEST_GUILESS_MAIN(BranchCyclesTest)
#include "test_branch_cycles.moc"
