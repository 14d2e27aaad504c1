// ConversationStore: CRUD, ordering, search, settings, schema migrations, refusals, and
// crash safety (this binary re-runs itself as a writer child that is SIGKILLed mid-reply).
#include <signal.h>
#include <sys/stat.h>

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <csignal>
#include <cstdio>

#include "store/conversation_store.h"

using kvchat::app::ConversationStore;
using kvchat::app::MessageState;
using kvchat::app::MigrationStep;
using kvchat::app::StoredConversation;
using kvchat::app::StoredMessage;

namespace {

const char* kChildFlag = "--child-writer";
const QString kCrashUserText = QStringLiteral("Tell me a long story about the KV cache.");

// The reply the child writes: token i is "tok<i> ", so the text after n tokens is exact.
QString crash_reply_text(int tokens) {
  QString s;
  for (int i = 0; i < tokens; ++i) s += QStringLiteral("tok%1 ").arg(i);
  return s;
}

// A raw QtSql connection to a file, for setting up / inspecting what the store cannot.
class RawDb {
 public:
  explicit RawDb(const QString& path) : name_(QStringLiteral("raw-%1").arg(++serial_)) {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name_);
    db.setDatabaseName(path);
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
  QVariant value(const QString& sql) {
    QSqlQuery q(QSqlDatabase::database(name_, false));
    if (!q.exec(sql) || !q.next()) return {};
    return q.value(0);
  }

 private:
  static inline int serial_ = 0;
  QString name_;
  bool ok_ = false;
};

// A file's permission bits (-1: no such file).
int mode_of(const QString& path) {
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) != 0) return -1;
  return int(st.st_mode & 07777);
}

QByteArray file_bytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

constexpr int kCurrent = ConversationStore::kSchemaVersion;
constexpr int kNext = kCurrent + 1;

// kvchat's history plus a test-only step to the next version (kNext).
QVector<MigrationStep> history_with_v2() {
  QVector<MigrationStep> steps = ConversationStore::migrations();
  steps.append(MigrationStep{
      QStringLiteral("ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0"),
      QStringLiteral(
          "CREATE TABLE tags (conversation_id INTEGER NOT NULL REFERENCES conversations(id)"
          " ON DELETE CASCADE, tag TEXT NOT NULL)"),
      QStringLiteral(
          "INSERT INTO tags (conversation_id, tag) SELECT id, 'migrated' FROM conversations"),
  });
  return steps;
}

// ---- the child writer (run as `test_store --child-writer <db>`) ---------------------------

int run_child_writer(const QString& path) {
  QString error;
  auto store = ConversationStore::open(path, &error);
  if (!store) {
    std::fprintf(stderr, "child: open failed: %s\n", qPrintable(error));
    return 2;
  }
  const qint64 conv = store->create_conversation(QStringLiteral("crash test"), {}, &error);
  const qint64 user = conv ? store->append_message(conv, QStringLiteral("user"), kCrashUserText,
                                                   MessageState::Complete, &error)
                           : 0;
  const qint64 reply = user ? store->append_message(conv, QStringLiteral("assistant"), {},
                                                    MessageState::Streaming, &error)
                            : 0;
  if (!reply) {
    std::fprintf(stderr, "child: setup failed: %s\n", qPrintable(error));
    return 3;
  }
  std::printf("ids %lld %lld %lld\n", conv, user, reply);
  std::fflush(stdout);
  QString text;
  QElapsedTimer alive;
  alive.start();
  for (int tokens = 1; alive.elapsed() < 60000; ++tokens) {  // the parent kills it long before
    text += QStringLiteral("tok%1 ").arg(tokens - 1);
    if (!store->update_message(reply, text, MessageState::Streaming,
                               {{QStringLiteral("tokens"), tokens}}, &error)) {
      std::fprintf(stderr, "child: update failed: %s\n", qPrintable(error));
      return 4;
    }
    // Printed only after the commit returned: the parent may rely on this much.
    std::printf("committed %d %lld\n", tokens, qint64(text.size()));
    std::fflush(stdout);
  }
  return 5;
}

}  // namespace

class StoreTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  int files_ = 0;
  QString fresh_path() { return dir_.filePath(QStringLiteral("db%1/kvchat.sqlite").arg(++files_)); }
  std::unique_ptr<ConversationStore> open_ok(const QString& path) {
    QString error;
    auto store = ConversationStore::open(path, &error);
    if (!store) qWarning() << "open failed:" << error;
    return store;
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void schemaHistoryMatchesVersion() {
    QCOMPARE(ConversationStore::migrations().size(), qsizetype(ConversationStore::kSchemaVersion));
    QCOMPARE(ConversationStore::default_path(QStringLiteral("/x/y")),
             QStringLiteral("/x/y/kvchat.sqlite"));
    QVERIFY(ConversationStore::default_path().endsWith(QStringLiteral("/kvchat/kvchat.sqlite")));
  }

  void createsSchemaInFreshFile() {
    const QString path = fresh_path();  // its directory does not exist yet
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QCOMPARE(store->schema_version(), kCurrent);
      QVERIFY(store->conversations().isEmpty());
    }
    RawDb raw(path);
    QVERIFY(raw.ok());
    QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), kCurrent);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA application_id")).toInt(),
             ConversationStore::kApplicationId);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    for (const char* table : {"conversations", "messages", "settings"})
      QCOMPARE(raw.value(QStringLiteral(
                             "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='%1'")
                             .arg(QLatin1String(table)))
                   .toInt(),
               1);
  }

  void migratesZeroByteAndEmptySqliteFiles() {
    const QString empty = fresh_path();
    QVERIFY(QDir().mkpath(QFileInfo(empty).absolutePath()));
    {
      QFile f(empty);
      QVERIFY(f.open(QIODevice::WriteOnly));
    }
    QCOMPARE(QFileInfo(empty).size(), 0);
    {
      auto store = open_ok(empty);
      QVERIFY(store);
      QCOMPARE(store->schema_version(), kCurrent);
    }
    const QString bare = fresh_path();  // a real SQLite file at user_version 0, no tables
    QVERIFY(QDir().mkpath(QFileInfo(bare).absolutePath()));
    {
      RawDb raw(bare);
      QVERIFY(raw.ok());
      QVERIFY(raw.exec(QStringLiteral("PRAGMA page_size=8192")));
      QVERIFY(raw.exec(QStringLiteral("VACUUM")));
      QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 0);
    }
    QVERIFY(QFileInfo(bare).size() > 0);
    auto store = open_ok(bare);
    QVERIFY(store);
    QCOMPARE(store->schema_version(), kCurrent);
  }

  void conversationCrud() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const QDateTime before = QDateTime::currentDateTimeUtc();
    const qint64 a = store->create_conversation(QStringLiteral("First"),
                                                QStringLiteral("You are terse."), &error);
    const qint64 b = store->create_conversation(QStringLiteral("Second"), {}, &error);
    const qint64 c =
        store->create_conversation(QStringLiteral("Third"), QStringLiteral("p3"), &error);
    const QDateTime after = QDateTime::currentDateTimeUtc();
    QVERIFY2(a > 0 && b > 0 && c > 0, qPrintable(error));
    QVERIFY(a != b && b != c && a != c);

    const auto ca = store->conversation(a);
    QVERIFY(ca.has_value());
    QCOMPARE(ca->id, a);
    QCOMPARE(ca->title, QStringLiteral("First"));
    QCOMPARE(ca->system_prompt, QStringLiteral("You are terse."));
    QVERIFY(ca->settings.isEmpty());
    QCOMPARE(ca->created, ca->updated);
    QVERIFY(ca->created.toMSecsSinceEpoch() >= before.toMSecsSinceEpoch());
    QVERIFY(ca->created.toMSecsSinceEpoch() <=
            after.toMSecsSinceEpoch() + 10);  // +stamp monotonicity
    QCOMPARE(store->conversation(b)->system_prompt, QString());

    // Most recently updated first: creation order reversed.
    auto list = store->conversations();
    QCOMPARE(list.size(), 3);
    QCOMPARE(list[0].id, c);
    QCOMPARE(list[1].id, b);
    QCOMPARE(list[2].id, a);

    QVERIFY2(store->rename_conversation(b, QStringLiteral("Second, renamed"), &error),
             qPrintable(error));
    QVERIFY2(store->set_system_prompt(a, QStringLiteral("Be verbose."), &error), qPrintable(error));
    QCOMPARE(store->conversation(b)->title, QStringLiteral("Second, renamed"));
    QCOMPARE(store->conversation(a)->system_prompt, QStringLiteral("Be verbose."));
    // Renames and prompt edits do not reorder the list.
    list = store->conversations();
    QCOMPARE(list[0].id, c);
    QCOMPARE(list[1].id, b);
    QCOMPARE(list[2].id, a);

    QVERIFY(!store->conversation(999999).has_value());
    error.clear();
    QVERIFY(!store->rename_conversation(999999, QStringLiteral("x"), &error));
    QVERIFY2(error.contains(QStringLiteral("999999")), qPrintable(error));
    error.clear();
    QVERIFY(!store->delete_conversation(999999, &error));
    QVERIFY(!error.isEmpty());

    QVERIFY2(store->delete_conversation(b, &error), qPrintable(error));
    QVERIFY(!store->conversation(b).has_value());
    list = store->conversations();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list[0].id, c);
    QCOMPARE(list[1].id, a);

    // Ids are not reused after a delete.
    const qint64 d = store->create_conversation(QStringLiteral("Fourth"), {}, &error);
    QVERIFY(d > c);
  }

  void conversationSettingsRoundTrip() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 id = store->create_conversation(QStringLiteral("s"), {}, &error);
    const QVariantMap settings{
        {QStringLiteral("temperature"), 0.7},
        {QStringLiteral("top_k"), 40},
        {QStringLiteral("greedy"), false},
        {QStringLiteral("model"), QStringLiteral("kjv-demo-f16.gguf")},
        {QStringLiteral("stop"), QStringList{QStringLiteral("</s>"), QStringLiteral("User:")}},
        {QStringLiteral("nested"), QVariantMap{{QStringLiteral("seed"), 1234}}}};
    QVERIFY2(store->set_conversation_settings(id, settings, &error), qPrintable(error));
    const QVariantMap got = store->conversation(id)->settings;
    QCOMPARE(got.size(), settings.size());
    QCOMPARE(got.value(QStringLiteral("temperature")).toDouble(), 0.7);
    QCOMPARE(got.value(QStringLiteral("top_k")).toInt(), 40);
    QCOMPARE(got.value(QStringLiteral("greedy")).toBool(), false);
    QCOMPARE(got.value(QStringLiteral("model")).toString(), QStringLiteral("kjv-demo-f16.gguf"));
    QCOMPARE(got.value(QStringLiteral("stop")).toStringList(),
             (QStringList{QStringLiteral("</s>"), QStringLiteral("User:")}));
    QCOMPARE(got.value(QStringLiteral("nested")).toMap().value(QStringLiteral("seed")).toInt(),
             1234);
    QVERIFY(!store->set_conversation_settings(987654, settings, &error));
  }

  void messagesCrudAndOrdering() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 a = store->create_conversation(QStringLiteral("A"), {}, &error);
    const qint64 b = store->create_conversation(QStringLiteral("B"), {}, &error);
    QCOMPARE(store->conversations().first().id, b);
    const QDateTime a_updated = store->conversation(a)->updated;

    const QDateTime before = QDateTime::currentDateTimeUtc();
    const qint64 m1 = store->append_message(a, QStringLiteral("user"), QStringLiteral("Hello"),
                                            MessageState::Complete, &error);
    const qint64 m2 = store->append_message(a, QStringLiteral("assistant"), QString(),
                                            MessageState::Streaming, &error);
    const qint64 m3 = store->append_message(a, QStringLiteral("user"), QStringLiteral("Again"),
                                            MessageState::Complete, &error);
    const QDateTime after = QDateTime::currentDateTimeUtc();
    QVERIFY2(m1 > 0 && m2 > 0 && m3 > 0, qPrintable(error));

    // Adding a message moves its conversation to the top.
    QVERIFY(store->conversation(a)->updated > a_updated);
    QCOMPARE(store->conversations().first().id, a);

    auto msgs = store->messages(a);
    QCOMPARE(msgs.size(), 3);
    QCOMPARE(msgs[0].id, m1);
    QCOMPARE(msgs[0].conversation_id, a);
    QCOMPARE(msgs[0].role, QStringLiteral("user"));
    QCOMPARE(msgs[0].content, QStringLiteral("Hello"));
    QCOMPARE(msgs[0].state, MessageState::Complete);
    QVERIFY(msgs[0].stats.isEmpty());
    QVERIFY(msgs[0].created >= before.addMSecs(-1) && msgs[0].created <= after.addMSecs(1));
    QCOMPARE(msgs[1].id, m2);
    QCOMPARE(msgs[1].role, QStringLiteral("assistant"));
    QCOMPARE(msgs[1].content, QString());
    QCOMPARE(msgs[1].state, MessageState::Streaming);
    QCOMPARE(msgs[2].id, m3);
    QCOMPARE(msgs[2].content, QStringLiteral("Again"));
    QVERIFY(store->messages(b).isEmpty());

    // update_message: text, state and stats; the conversation's `updated` moves again.
    const qint64 m4 = store->append_message(b, QStringLiteral("user"), QStringLiteral("in B"),
                                            MessageState::Complete, &error);
    QVERIFY(m4 > 0);
    QCOMPARE(store->conversations().first().id, b);
    const QVariantMap stats{{QStringLiteral("tokens"), 42},
                            {QStringLiteral("prompt_tokens"), 17},
                            {QStringLiteral("ttft_ms"), 12.5},
                            {QStringLiteral("tokens_per_s"), 31.25},
                            {QStringLiteral("backend"), QStringLiteral("cpu")}};
    QVERIFY2(store->update_message(m2, QStringLiteral("Hi there. How can I help?"),
                                   MessageState::Complete, stats, &error),
             qPrintable(error));
    QCOMPARE(store->conversations().first().id, a);
    msgs = store->messages(a);
    QCOMPARE(msgs[1].content, QStringLiteral("Hi there. How can I help?"));
    QCOMPARE(msgs[1].state, MessageState::Complete);
    QCOMPARE(msgs[1].stats.size(), 5);
    QCOMPARE(msgs[1].stats.value(QStringLiteral("tokens")).toInt(), 42);
    QCOMPARE(msgs[1].stats.value(QStringLiteral("prompt_tokens")).toInt(), 17);
    QCOMPARE(msgs[1].stats.value(QStringLiteral("ttft_ms")).toDouble(), 12.5);
    QCOMPARE(msgs[1].stats.value(QStringLiteral("tokens_per_s")).toDouble(), 31.25);
    QCOMPARE(msgs[1].stats.value(QStringLiteral("backend")).toString(), QStringLiteral("cpu"));
    QCOMPARE(msgs[1].id, m2);  // position unchanged

    // Errors: unknown message, unknown conversation, bad role.
    error.clear();
    QVERIFY(
        !store->update_message(555555, QStringLiteral("x"), MessageState::Complete, {}, &error));
    QVERIFY2(error.contains(QStringLiteral("555555")), qPrintable(error));
    error.clear();
    QCOMPARE(store->append_message(777777, QStringLiteral("user"), QStringLiteral("x"),
                                   MessageState::Complete, &error),
             0);
    QVERIFY2(error.contains(QStringLiteral("777777")), qPrintable(error));
    error.clear();
    QCOMPARE(store->append_message(a, QStringLiteral("system"), QStringLiteral("x"),
                                   MessageState::Complete, &error),
             0);
    QVERIFY(!error.isEmpty());
    QCOMPARE(store->messages(a).size(), 3);
  }

  void deleteMessages() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 c = store->create_conversation(QStringLiteral("edit"), {}, &error);
    QVector<qint64> ids;
    for (int i = 0; i < 5; ++i)
      ids.append(
          store->append_message(c, i % 2 ? QStringLiteral("assistant") : QStringLiteral("user"),
                                QStringLiteral("m%1").arg(i), MessageState::Complete, &error));
    QVERIFY2(store->delete_messages_after(ids[1], &error), qPrintable(error));
    auto msgs = store->messages(c);
    QCOMPARE(msgs.size(), 2);
    QCOMPARE(msgs[0].id, ids[0]);
    QCOMPARE(msgs[1].id, ids[1]);
    // A new message goes after the survivors.
    const qint64 n = store->append_message(c, QStringLiteral("user"), QStringLiteral("new"),
                                           MessageState::Complete, &error);
    msgs = store->messages(c);
    QCOMPARE(msgs.size(), 3);
    QCOMPARE(msgs[2].id, n);
    QCOMPARE(msgs[2].content, QStringLiteral("new"));
    // delete_messages_after the last message deletes nothing.
    QVERIFY2(store->delete_messages_after(n, &error), qPrintable(error));
    QCOMPARE(store->messages(c).size(), 3);
    // A message goes with everything after it (the messages form a tree: issue 29).
    QVERIFY2(store->delete_message(ids[1], &error), qPrintable(error));
    msgs = store->messages(c);
    QCOMPARE(msgs.size(), 1);
    QCOMPARE(msgs[0].id, ids[0]);
    QVERIFY2(store->delete_message(ids[0], &error), qPrintable(error));
    QVERIFY(store->messages(c).isEmpty());
    error.clear();
    QVERIFY(!store->delete_message(ids[0], &error));  // already gone
    QVERIFY(!error.isEmpty());
    error.clear();
    QVERIFY(!store->delete_messages_after(ids[4], &error));
    QVERIFY(!error.isEmpty());
  }

  void deleteConversationCascades() {
    const QString path = fresh_path();
    auto store = open_ok(path);
    QVERIFY(store);
    QString error;
    const qint64 a = store->create_conversation(QStringLiteral("doomed"), {}, &error);
    const qint64 b = store->create_conversation(QStringLiteral("kept"), {}, &error);
    for (int i = 0; i < 3; ++i) {
      store->append_message(a, QStringLiteral("user"), QStringLiteral("a%1").arg(i),
                            MessageState::Complete, &error);
      store->append_message(b, QStringLiteral("user"), QStringLiteral("b%1").arg(i),
                            MessageState::Complete, &error);
    }
    QVERIFY2(store->delete_conversation(a, &error), qPrintable(error));
    QVERIFY(store->messages(a).isEmpty());
    QCOMPARE(store->messages(b).size(), 3);
    RawDb raw(path);
    QCOMPARE(
        raw.value(QStringLiteral("SELECT COUNT(*) FROM messages WHERE conversation_id = %1").arg(a))
            .toInt(),
        0);
    QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM messages")).toInt(), 3);
  }

  void searchIsCaseInsensitive() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 rust =
        store->create_conversation(QStringLiteral("Rust borrow checker"), {}, &error);
    const qint64 pasta = store->create_conversation(QStringLiteral("Cooking"), {}, &error);
    const qint64 kv = store->create_conversation(QStringLiteral("Memory"), {}, &error);
    store->append_message(pasta, QStringLiteral("user"),
                          QStringLiteral("How long do I boil PASTA?"), MessageState::Complete,
                          &error);
    store->append_message(kv, QStringLiteral("assistant"),
                          QStringLiteral("The KV Cache grows with every token."),
                          MessageState::Complete, &error);
    auto ids = [](const QVector<StoredConversation>& v) {
      QVector<qint64> out;
      for (const auto& c : v) out.append(c.id);
      return out;
    };
    QCOMPARE(ids(store->search(QStringLiteral("rust"))), QVector<qint64>{rust});
    QCOMPARE(ids(store->search(QStringLiteral("BORROW CHECK"))), QVector<qint64>{rust});
    QCOMPARE(ids(store->search(QStringLiteral("pasta"))), QVector<qint64>{pasta});
    QCOMPARE(ids(store->search(QStringLiteral("kv cache"))), QVector<qint64>{kv});
    QCOMPARE(ids(store->search(QStringLiteral("zebra"))), QVector<qint64>{});
    // Both title and message hits, most recently updated first; a conversation once.
    store->append_message(rust, QStringLiteral("user"),
                          QStringLiteral("the cache again, and the cache"), MessageState::Complete,
                          &error);
    QCOMPARE(ids(store->search(QStringLiteral("CACHE"))), (QVector<qint64>{rust, kv}));
    QCOMPARE(ids(store->search(QStringLiteral("o"))), (QVector<qint64>{rust, kv, pasta}));
    QCOMPARE(store->search(QString()).size(), 3);
  }

  void searchTreatsWildcardsLiterally() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 percent = store->create_conversation(QStringLiteral("100% sure"), {}, &error);
    const qint64 digits = store->create_conversation(QStringLiteral("1000 sure"), {}, &error);
    const qint64 snake = store->create_conversation(QStringLiteral("snake_case names"), {}, &error);
    const qint64 other = store->create_conversation(QStringLiteral("snakeXcase names"), {}, &error);
    const qint64 path = store->create_conversation(QStringLiteral("x"), {}, &error);
    store->append_message(path, QStringLiteral("user"), QStringLiteral("open C:\\temp\\file"),
                          MessageState::Complete, &error);
    auto ids = [](const QVector<StoredConversation>& v) {
      QVector<qint64> out;
      for (const auto& c : v) out.append(c.id);
      return out;
    };
    QCOMPARE(ids(store->search(QStringLiteral("100%"))), QVector<qint64>{percent});
    QCOMPARE(ids(store->search(QStringLiteral("%"))), QVector<qint64>{percent});
    QCOMPARE(ids(store->search(QStringLiteral("e_c"))), QVector<qint64>{snake});
    QCOMPARE(ids(store->search(QStringLiteral("_"))), QVector<qint64>{snake});
    QCOMPARE(ids(store->search(QStringLiteral("\\temp"))), QVector<qint64>{path});
    QCOMPARE(ids(store->search(QStringLiteral("sure"))), (QVector<qint64>{digits, percent}));
    QCOMPARE(ids(store->search(QStringLiteral("XCASE"))), QVector<qint64>{other});
  }

  void settingsRoundTrip() {
    const QString path = fresh_path();
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      QVERIFY2(store->set_setting(QStringLiteral("last_model"), QStringLiteral("/models/a.gguf"),
                                  &error),
               qPrintable(error));
      QVERIFY(store->set_setting(QStringLiteral("count"), 7, &error));
      QVERIFY(store->set_setting(QStringLiteral("ratio"), 0.25, &error));
      QVERIFY(store->set_setting(QStringLiteral("flag"), true, &error));
      QVERIFY(store->set_setting(QStringLiteral("recent"),
                                 QStringList{QStringLiteral("a.gguf"), QStringLiteral("b.gguf")},
                                 &error));
      QVERIFY(store->set_setting(
          QStringLiteral("sampling"),
          QVariantMap{{QStringLiteral("temperature"), 0.8}, {QStringLiteral("top_k"), 40}},
          &error));
      QVERIFY(store->set_setting(QStringLiteral("gone"), 1, &error));
      QVERIFY(store->set_setting(QStringLiteral("gone"), QVariant(), &error));  // removes
      QVERIFY(store->set_setting(QStringLiteral("count"), 8, &error));          // overwrites
    }
    auto store = open_ok(path);  // settings persist across a reopen
    QVERIFY(store);
    QCOMPARE(store->setting(QStringLiteral("last_model")).toString(),
             QStringLiteral("/models/a.gguf"));
    QCOMPARE(store->setting(QStringLiteral("count")).toInt(), 8);
    QCOMPARE(store->setting(QStringLiteral("ratio")).toDouble(), 0.25);
    QCOMPARE(store->setting(QStringLiteral("flag")).toBool(), true);
    QCOMPARE(store->setting(QStringLiteral("recent")).toStringList(),
             (QStringList{QStringLiteral("a.gguf"), QStringLiteral("b.gguf")}));
    const QVariantMap sampling = store->setting(QStringLiteral("sampling")).toMap();
    QCOMPARE(sampling.size(), 2);
    QCOMPARE(sampling.value(QStringLiteral("temperature")).toDouble(), 0.8);
    QCOMPARE(sampling.value(QStringLiteral("top_k")).toInt(), 40);
    QVERIFY(!store->setting(QStringLiteral("gone")).isValid());
    QCOMPARE(store->setting(QStringLiteral("missing"), QStringLiteral("fallback")).toString(),
             QStringLiteral("fallback"));
  }

  void everythingPersistsAcrossReopen() {
    const QString path = fresh_path();
    qint64 c = 0, m = 0;
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      c = store->create_conversation(QStringLiteral("kept"), QStringLiteral("sys"), &error);
      store->set_conversation_settings(c, {{QStringLiteral("top_p"), 0.95}}, &error);
      m = store->append_message(c, QStringLiteral("assistant"), QStringLiteral("answer"),
                                MessageState::Complete, &error);
      QVERIFY(store->update_message(m, QStringLiteral("answer!"), MessageState::Complete,
                                    {{QStringLiteral("tokens"), 3}}, &error));
    }
    auto store = open_ok(path);
    QVERIFY(store);
    const auto conv = store->conversation(c);
    QVERIFY(conv.has_value());
    QCOMPARE(conv->title, QStringLiteral("kept"));
    QCOMPARE(conv->system_prompt, QStringLiteral("sys"));
    QCOMPARE(conv->settings.value(QStringLiteral("top_p")).toDouble(), 0.95);
    const auto msgs = store->messages(c);
    QCOMPARE(msgs.size(), 1);
    QCOMPARE(msgs[0].id, m);
    QCOMPARE(msgs[0].content, QStringLiteral("answer!"));
    QCOMPARE(msgs[0].stats.value(QStringLiteral("tokens")).toInt(), 3);
  }

  // Issue 40 point 10a: the database holds the local server's API key. Under a umask of 022
  // the old store made its directory 0755 and the file 0644, readable by every local user.
  void dataDirectoryAndDatabaseArePrivate() {
    const mode_t old_umask = ::umask(022);
    const QString path = fresh_path();  // its directory does not exist yet
    const QString dir = QFileInfo(path).absolutePath();
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      QVERIFY(store->set_setting(QStringLiteral("server_key"), QStringLiteral("s3cret"), &error));
      QCOMPARE(mode_of(dir), 0700);
      QCOMPARE(mode_of(path), 0600);
      QCOMPARE(mode_of(path + QStringLiteral("-wal")), 0600);  // WAL mode: both exist now
      QCOMPARE(mode_of(path + QStringLiteral("-shm")), 0600);
    }
    // A file an older kvchat made 0644 (and its WAL) is tightened when opened.
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QCOMPARE(mode_of(path), 0600);
      QCOMPARE(mode_of(path + QStringLiteral("-wal")), 0600);
      QCOMPARE(store->setting(QStringLiteral("server_key")).toString(), QStringLiteral("s3cret"));
    }
    // check_data_dir: what it creates is 0700, parents included.
    const QString nested = dir_.filePath(QStringLiteral("private/a/b/kvchat"));
    QVERIFY(ConversationStore::check_data_dir(nested).isEmpty());
    for (const QString& d : {dir_.filePath(QStringLiteral("private")),
                             dir_.filePath(QStringLiteral("private/a")), nested})
      QCOMPARE(mode_of(d), 0700);
    // The default data directory ($XDG_DATA_HOME/kvchat), there already and open to others,
    // is tightened; a --data-dir that exists is the user's choice and keeps its mode.
    const QByteArray old_xdg = qgetenv("XDG_DATA_HOME");
    const QString xdg = dir_.filePath(QStringLiteral("xdg"));
    qputenv("XDG_DATA_HOME", QFile::encodeName(xdg));
    const QString own = QFileInfo(ConversationStore::default_path()).absolutePath();
    QCOMPARE(own, xdg + QStringLiteral("/kvchat"));
    QVERIFY(QDir().mkpath(own));
    QVERIFY(::chmod(QFile::encodeName(own).constData(), 0755) == 0);
    QVERIFY(ConversationStore::check_data_dir(own).isEmpty());
    QCOMPARE(mode_of(own), 0700);
    const QString chosen = dir_.filePath(QStringLiteral("chosen"));
    QVERIFY(QDir().mkpath(chosen));
    QVERIFY(::chmod(QFile::encodeName(chosen).constData(), 0755) == 0);
    QVERIFY(ConversationStore::check_data_dir(chosen).isEmpty());
    QCOMPARE(mode_of(chosen), 0755);
    {
      auto store = open_ok(QDir(chosen).filePath(QStringLiteral("kvchat.sqlite")));
      QVERIFY(store);
      QCOMPARE(mode_of(QDir(chosen).filePath(QStringLiteral("kvchat.sqlite"))), 0600);
    }
    if (old_xdg.isNull())
      qunsetenv("XDG_DATA_HOME");
    else
      qputenv("XDG_DATA_HOME", old_xdg);
    ::umask(old_umask);
  }

  void twoStoresOnOneFile() {
    const QString path = fresh_path();
    auto one = open_ok(path);
    auto two = open_ok(path);  // distinct connection names
    QVERIFY(one && two);
    QString error;
    const qint64 c = one->create_conversation(QStringLiteral("shared"), {}, &error);
    QCOMPARE(two->conversation(c)->title, QStringLiteral("shared"));
    QVERIFY(two->rename_conversation(c, QStringLiteral("by two"), &error));
    QCOMPARE(one->conversation(c)->title, QStringLiteral("by two"));
    one.reset();
    QCOMPARE(two->conversations().size(), 1);
  }

  void markStreamingInterrupted() {
    auto store = open_ok(fresh_path());
    QVERIFY(store);
    QString error;
    const qint64 a = store->create_conversation(QStringLiteral("a"), {}, &error);
    const qint64 b = store->create_conversation(QStringLiteral("b"), {}, &error);
    const qint64 done = store->append_message(
        a, QStringLiteral("assistant"), QStringLiteral("done"), MessageState::Complete, &error);
    const qint64 s1 = store->append_message(a, QStringLiteral("assistant"), QStringLiteral("half"),
                                            MessageState::Streaming, &error);
    const qint64 s2 = store->append_message(b, QStringLiteral("assistant"), QString(),
                                            MessageState::Streaming, &error);
    QVERIFY(done && s1 && s2);
    QCOMPARE(store->mark_streaming_interrupted(), 2);
    const auto ma = store->messages(a);
    QCOMPARE(ma[0].state, MessageState::Complete);
    QCOMPARE(ma[1].state, MessageState::Interrupted);
    QCOMPARE(ma[1].content, QStringLiteral("half"));  // the text is kept
    QCOMPARE(store->messages(b)[0].state, MessageState::Interrupted);
    QCOMPARE(store->mark_streaming_interrupted(), 0);
  }

  // ---- migrations and refusals ----------------------------------------------------------

  void migratesV1WithDataToInjectedV2() {
    const QString path = fresh_path();
    qint64 c = 0, m = 0;
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      c = store->create_conversation(QStringLiteral("old data"), QStringLiteral("sys"), &error);
      m = store->append_message(c, QStringLiteral("user"), QStringLiteral("kept across v2"),
                                MessageState::Complete, &error);
      store->set_setting(QStringLiteral("k"), QStringLiteral("v"), &error);
    }
    QString error;
    {
      auto store = ConversationStore::open(path, history_with_v2(), &error);
      QVERIFY2(store, qPrintable(error));
      QCOMPARE(store->schema_version(), kNext);
      QCOMPARE(store->conversation(c)->title, QStringLiteral("old data"));
      QCOMPARE(store->messages(c).size(), 1);
      QCOMPARE(store->messages(c)[0].id, m);
      QCOMPARE(store->messages(c)[0].content, QStringLiteral("kept across v2"));
      QCOMPARE(store->setting(QStringLiteral("k")).toString(), QStringLiteral("v"));
      // The store still works on the v2 file.
      QVERIFY(store->append_message(c, QStringLiteral("assistant"), QStringLiteral("after"),
                                    MessageState::Complete, &error) > 0);
    }
    {
      RawDb raw(path);
      QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), kNext);
      QCOMPARE(raw.value(QStringLiteral("SELECT pinned FROM conversations WHERE id = %1").arg(c))
                   .toInt(),
               0);
      QCOMPARE(raw.value(QStringLiteral("SELECT tag FROM tags WHERE conversation_id = %1").arg(c))
                   .toString(),
               QStringLiteral("migrated"));
    }
    // Reopening at v2 runs nothing again; this build (reads up to kCurrent) refuses it.
    {
      auto store = ConversationStore::open(path, history_with_v2(), &error);
      QVERIFY2(store, qPrintable(error));
      RawDb raw(path);
      QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM tags")).toInt(), 1);
    }
    error.clear();
    QVERIFY(!ConversationStore::open(path, &error));
    QVERIFY2(error.contains(QStringLiteral("newer kvchat (schema %1; this version reads up to %2)")
                                .arg(kNext)
                                .arg(kCurrent)),
             qPrintable(error));
  }

  void migratesEmptyFileThroughEveryStep() {
    const QString path = fresh_path();
    QString error;
    auto store = ConversationStore::open(path, history_with_v2(), &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->schema_version(), kNext);
    RawDb raw(path);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA application_id")).toInt(),
             ConversationStore::kApplicationId);
    QCOMPARE(
        raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE name = 'tags'")).toInt(),
        1);
  }

  void failedMigrationRollsBack() {
    const QString path = fresh_path();
    qint64 c = 0;
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      c = store->create_conversation(QStringLiteral("survivor"), {}, &error);
    }
    QVector<MigrationStep> broken = ConversationStore::migrations();
    broken.append(MigrationStep{
        QStringLiteral("CREATE TABLE tags (tag TEXT)"),
        QStringLiteral("ALTER TABLE conversations ADD COLUMN pinned INTEGER DEFAULT 0"),
        QStringLiteral("THIS IS NOT SQL")});
    QString error;
    QVERIFY(!ConversationStore::open(path, broken, &error));
    QVERIFY2(
        error.contains(QStringLiteral("from version %1 to %2 failed").arg(kCurrent).arg(kNext)),
        qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("THIS IS NOT SQL")), qPrintable(error));
    {
      RawDb raw(path);
      QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), kCurrent);
      QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE name = 'tags'"))
                   .toInt(),
               0);
      QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM pragma_table_info('conversations')"
                                        " WHERE name = 'pinned'"))
                   .toInt(),
               0);
    }
    auto store = open_ok(path);
    QVERIFY(store);
    QCOMPARE(store->conversation(c)->title, QStringLiteral("survivor"));

    // From an empty file, a failure in a later step rolls back the earlier ones too.
    const QString fresh = fresh_path();
    error.clear();
    QVERIFY(!ConversationStore::open(fresh, broken, &error));
    RawDb raw(fresh);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 0);
    QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master")).toInt(), 0);
  }

  void refusesNewerSchema() {
    const QString path = fresh_path();
    {
      auto store = open_ok(path);
      QVERIFY(store);
      QString error;
      store->create_conversation(QStringLiteral("from the future"), {}, &error);
    }
    {
      RawDb raw(path);
      QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 99")));
    }
    QString error;
    QVERIFY(!ConversationStore::open(path, &error));
    QVERIFY2(
        error.contains(
            QStringLiteral("newer kvchat (schema 99; this version reads up to %1)").arg(kCurrent)),
        qPrintable(error));
    RawDb raw(path);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 99);
    QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM conversations")).toInt(), 1);
  }

  void refusesNewerSchemaWithoutTouchingIt() {
    // A fresh rollback-journal file at a newer user_version: refused before WAL is switched on.
    const QString path = fresh_path();
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    {
      RawDb raw(path);
      QVERIFY(raw.exec(QStringLiteral("CREATE TABLE t (x)")));
      QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(kNext)));
    }
    const QByteArray bytes = file_bytes(path);
    QString error;
    QVERIFY(!ConversationStore::open(path, &error));
    QVERIFY2(error.contains(
                 QStringLiteral("schema %1; this version reads up to %2").arg(kNext).arg(kCurrent)),
             qPrintable(error));
    QCOMPARE(file_bytes(path), bytes);
    QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
  }

  void refusesNonDatabaseFile() {
    const QString path = fresh_path();
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QByteArray junk;
    for (int i = 0; i < 200; ++i) junk += "this is a text file, not an SQLite database\n";
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(junk);
    }
    QString error;
    QVERIFY(!ConversationStore::open(path, &error));
    QVERIFY2(error.contains(QStringLiteral("not a kvchat database")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("not a readable SQLite file")), qPrintable(error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QCOMPARE(file_bytes(path), junk);  // untouched
    // A directory in place of the file.
    error.clear();
    QVERIFY(!ConversationStore::open(dir_.path(), &error));
    QVERIFY2(error.contains(QStringLiteral("directory")), qPrintable(error));
  }

  void refusesForeignSqliteDatabases() {
    const QString tables = fresh_path();  // tables, but user_version 0
    QVERIFY(QDir().mkpath(QFileInfo(tables).absolutePath()));
    {
      RawDb raw(tables);
      QVERIFY(raw.exec(QStringLiteral("CREATE TABLE photos (id INTEGER PRIMARY KEY)")));
    }
    QString error;
    QVERIFY(!ConversationStore::open(tables, &error));
    QVERIFY2(error.contains(QStringLiteral("not a kvchat database")), qPrintable(error));
    {
      RawDb raw(tables);
      QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master")).toInt(), 1);
      QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 0);
    }
    const QString other_app = fresh_path();
    QVERIFY(QDir().mkpath(QFileInfo(other_app).absolutePath()));
    {
      RawDb raw(other_app);
      QVERIFY(raw.exec(QStringLiteral("PRAGMA application_id = 1234")));
      QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 1")));
    }
    error.clear();
    QVERIFY(!ConversationStore::open(other_app, &error));
    QVERIFY2(error.contains(QStringLiteral("another application")), qPrintable(error));
  }

  // ---- crash safety ---------------------------------------------------------------------

  void crashSafetyKillMidReply() {
    const QString path = fresh_path();
    QVector<qint64> earlier;  // conversations of earlier rounds, all must stay intact
    auto* rng = QRandomGenerator::global();
    constexpr int kRounds = 6;
    for (int round = 0; round < kRounds; ++round) {
      QProcess child;
      child.setProcessChannelMode(QProcess::SeparateChannels);
      child.start(QCoreApplication::applicationFilePath(), {QString::fromLatin1(kChildFlag), path});
      QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));

      // Wait for a random number of committed updates (round 0: kill right after setup).
      const int wait_updates = round == 0 ? 0 : int(rng->bounded(1, 400));
      qint64 ids[3] = {0, 0, 0};
      int last_tokens = 0;
      qint64 last_length = 0;
      QByteArray pending;
      const auto parse = [&](const QByteArray& chunk) {
        pending += chunk;
        int nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const QList<QByteArray> f = pending.left(nl).split(' ');
          pending.remove(0, nl + 1);
          if (f.size() == 4 && f[0] == "ids") {
            for (int i = 0; i < 3; ++i) ids[i] = f[i + 1].toLongLong();
          } else if (f.size() == 3 && f[0] == "committed") {
            last_tokens = f[1].toInt();
            last_length = f[2].toLongLong();
          }
        }
      };
      QElapsedTimer timer;
      timer.start();
      while ((ids[0] == 0 || last_tokens < wait_updates) && timer.elapsed() < 30000 &&
             child.state() == QProcess::Running) {
        child.waitForReadyRead(100);
        parse(child.readAllStandardOutput());
      }
      QVERIFY2(child.state() == QProcess::Running,
               qPrintable(QStringLiteral("child ended early: ") +
                          QString::fromLocal8Bit(child.readAllStandardError())));
      QVERIFY2(ids[0] != 0 && last_tokens >= wait_updates, "child made no progress");
      if (round > 1) QThread::usleep(rng->bounded(0, 3000));  // land at a random point of a write
      QCOMPARE(::kill(pid_t(child.processId()), SIGKILL), 0);
      QVERIFY(child.waitForFinished(10000));
      QCOMPARE(child.exitStatus(), QProcess::CrashExit);
      parse(child.readAllStandardOutput());  // lines printed before the kill were committed

      QString error;
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      const auto conv = store->conversation(ids[0]);
      QVERIFY(conv.has_value());
      QCOMPARE(conv->title, QStringLiteral("crash test"));
      auto msgs = store->messages(ids[0]);
      QCOMPARE(msgs.size(), 2);
      QCOMPARE(msgs[0].id, ids[1]);
      QCOMPARE(msgs[0].role, QStringLiteral("user"));
      QCOMPARE(msgs[0].content, kCrashUserText);
      QCOMPARE(msgs[0].state, MessageState::Complete);
      QCOMPARE(msgs[1].id, ids[2]);
      QCOMPARE(msgs[1].role, QStringLiteral("assistant"));
      QCOMPARE(msgs[1].state, MessageState::Streaming);
      const int stored_tokens = msgs[1].stats.value(QStringLiteral("tokens"), 0).toInt();
      QVERIFY2(stored_tokens >= last_tokens,
               qPrintable(QStringLiteral("stored %1 tokens, child reported %2 committed")
                              .arg(stored_tokens)
                              .arg(last_tokens)));
      QVERIFY(msgs[1].content.size() >= last_length);
      QCOMPARE(msgs[1].content,
               crash_reply_text(stored_tokens));  // a whole commit, a prefix of the reply
      qInfo("round %d: waited for %d updates, child reported %d, stored %d tokens (%lld chars)",
            round, wait_updates, last_tokens, stored_tokens, qint64(msgs[1].content.size()));

      QCOMPARE(store->mark_streaming_interrupted(), 1);
      msgs = store->messages(ids[0]);
      QCOMPARE(msgs[1].state, MessageState::Interrupted);
      QCOMPARE(msgs[1].content, crash_reply_text(stored_tokens));
      for (qint64 id : earlier) {
        const auto old = store->messages(id);
        QCOMPARE(old.size(), 2);
        QCOMPARE(old[0].content, kCrashUserText);
        QCOMPARE(old[1].state, MessageState::Interrupted);
      }
      earlier.append(ids[0]);
      QCOMPARE(store->conversations().size(), qsizetype(round + 1));
    }
  }
};

int main(int argc, char** argv) {
  if (argc >= 3 && qstrcmp(argv[1], kChildFlag) == 0) {
    QCoreApplication app(argc, argv);
    return run_child_writer(QString::fromLocal8Bit(argv[2]));
  }
  QCoreApplication app(argc, argv);
  StoreTest test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}

#include "test_store.moc"
