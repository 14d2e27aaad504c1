// Faults of the disk and of the data directory (issue 12): a full disk (SQLITE_FULL, as
// ENOSPC becomes) and I/O errors (SQLITE_IOERR, as EIO becomes), injected with a test VFS
// (sqlite_fault_vfs.h) under Qt's own SQLite connections, while saving a message, a
// setting, a document and a summary partial: the call fails with SQLite's reason, what was
// committed before is intact, the same call succeeds once the fault clears, and
// `PRAGMA integrity_check` is ok. Through ChatController: the message stays in the window
// marked unsaved, the failure is said, the next save writes it in order. A damaged
// database at start is moved aside under a name the window shows (never deleted) and a
// fresh one created; a file of a newer kvchat is refused, not moved. A data directory that
// cannot be created or written gets a clear message at start. A KV snapshot that cannot be
// written is said (the conversation itself is stored). A model file cut short on disk
// after loading: the chat goes on from the copy in memory and the window says what
// happened to the file.
#include <sys/stat.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "messages/message_list_model.h"
#include "settings/model_settings.h"
#include "sqlite_fault_vfs.h"
#include "store/conversation_store.h"
#include "store/document_store.h"

using namespace kvchat::app;
using kvchat::test::DiskFault;
using kvchat::test::SqliteFaultVfs;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");

// What SQLite says for each fault (sqlite3_errstr of SQLITE_FULL / SQLITE_IOERR).
QString reason(DiskFault f) {
  return f == DiskFault::Full ? QStringLiteral("database or disk is full")
                              : QStringLiteral("disk I/O error");
}

StoredDocument meta_for(const QByteArray& text) {
  StoredDocument d;
  d.name = QStringLiteral("notes.txt");
  d.mime = QStringLiteral("text/plain");
  d.bytes = text.size();
  d.sha256 =
      QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex());
  d.encoding = QStringLiteral("utf-8");
  return d;
}

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool write_all(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QStringList corrupt_copies(const QString& dir) {
  return QDir(dir).entryList({QStringLiteral("kvchat.sqlite.corrupt-*")}, QDir::Files);
}

}  // namespace

class TestStoreFaults : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<ChatController> chat_with_model(const QString& dir) {
    auto chat = std::make_unique<ChatController>(dir);
    chat->models()->loadModel(kDemo);
    if (!QTest::qWaitFor(
            [&] { return !chat->models()->loading() && !chat->models()->info().isEmpty(); }, 60000))
      return nullptr;
    QVariantMap sampling = chat->models()->sampling();
    sampling[QStringLiteral("temperature")] = 0.0;
    sampling[QStringLiteral("max_tokens")] = 6;
    chat->models()->set_sampling(sampling);
    return chat;
  }

  static MessageListModel& rows(ChatController& chat) {
    return *static_cast<MessageListModel*>(chat.messages());
  }

  static bool send_and_wait(ChatController& chat, const QString& text) {
    QSignalSpy finished(&chat, &ChatController::replyFinished);
    chat.send(text);
    return finished.wait(60000) || finished.count() > 0;
  }

 private slots:
  void initTestCase() { QVERIFY(SqliteFaultVfs::install()); }
  void cleanup() { SqliteFaultVfs::set(DiskFault::None); }

  void storeWritesFailCleanlyAndSucceedAfter_data() {
    QTest::addColumn<int>("fault_id");
    QTest::newRow("disk full (ENOSPC)") << int(DiskFault::Full);
    QTest::newRow("I/O error (EIO)") << int(DiskFault::IoError);
  }
  void storeWritesFailCleanlyAndSucceedAfter() {
    QFETCH(int, fault_id);
    const auto fault = DiskFault(fault_id);
    QTemporaryDir dir;
    QString error;
    auto store = ConversationStore::open(dir.filePath(QStringLiteral("kvchat.sqlite")), &error);
    QVERIFY2(store, qPrintable(error));
    DocumentStore docs(*store);
    const qint64 conv = store->create_conversation(QStringLiteral("kept"), {}, &error);
    QVERIFY(conv);
    const qint64 first = store->append_message(
        conv, QStringLiteral("user"), QStringLiteral("committed"), MessageState::Complete, &error);
    QVERIFY(first);
    QVERIFY(store->set_setting(QStringLiteral("sampling"), QVariantMap{{"top_k", 40}}, &error));
    const QByteArray text = QByteArrayLiteral("A document that arrives while the disk is full.");
    bool inserted = false;
    const qint64 doc0 = docs.add_document(meta_for("an earlier document"), "an earlier document",
                                          &inserted, &error);
    QVERIFY(doc0);
    const qint64 job = docs.create_job(doc0, conv, {}, {}, &error);
    QVERIFY(job);

    const int refused_before = SqliteFaultVfs::refused();
    SqliteFaultVfs::set(fault);
    // A message, a reply update, a setting, a document, a partial summary: each refused
    // with SQLite's reason, nothing half-written.
    error.clear();
    QCOMPARE(store->append_message(conv, QStringLiteral("assistant"), QStringLiteral("lost?"),
                                   MessageState::Streaming, &error),
             qint64(0));
    QVERIFY2(error.contains(reason(fault)), qPrintable(error));
    error.clear();
    QVERIFY(!store->update_message(first, QStringLiteral("changed"), MessageState::Complete, {},
                                   &error));
    QVERIFY2(error.contains(reason(fault)), qPrintable(error));
    error.clear();
    QVERIFY(!store->set_setting(QStringLiteral("sampling"), QVariantMap{{"top_k", 1}}, &error));
    QVERIFY2(error.contains(reason(fault)), qPrintable(error));
    error.clear();
    QCOMPARE(docs.add_document(meta_for(text), text, &inserted, &error), qint64(0));
    QVERIFY2(error.contains(reason(fault)), qPrintable(error));
    StoredPartial p;
    p.text = QStringLiteral("a partial summary");
    error.clear();
    QVERIFY(!docs.save_partial(job, p, &error));
    QVERIFY2(error.contains(reason(fault)), qPrintable(error));
    QVERIFY(SqliteFaultVfs::refused() > refused_before);  // the VFS did refuse them

    // Reads still work and show exactly what was committed.
    auto msgs = store->messages(conv);
    QCOMPARE(msgs.size(), 1);
    QCOMPARE(msgs[0].content, QStringLiteral("committed"));
    QCOMPARE(store->setting(QStringLiteral("sampling")).toMap().value("top_k").toInt(), 40);

    // The fault clears: the same calls succeed, on the same connection.
    SqliteFaultVfs::set(DiskFault::None);
    QVERIFY2(store->append_message(conv, QStringLiteral("assistant"), QStringLiteral("saved"),
                                   MessageState::Complete, &error),
             qPrintable(error));
    QVERIFY2(
        store->update_message(first, QStringLiteral("changed"), MessageState::Complete, {}, &error),
        qPrintable(error));
    QVERIFY2(store->set_setting(QStringLiteral("sampling"), QVariantMap{{"top_k", 1}}, &error),
             qPrintable(error));
    QVERIFY2(docs.add_document(meta_for(text), text, &inserted, &error), qPrintable(error));
    QVERIFY(inserted);
    QVERIFY2(docs.save_partial(job, p, &error), qPrintable(error));
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    msgs = store->messages(conv);
    QCOMPARE(msgs.size(), 2);
    QCOMPARE(msgs[0].content, QStringLiteral("changed"));
    QCOMPARE(msgs[1].content, QStringLiteral("saved"));
    QCOMPARE(docs.partials(job).size(), 1);
    QCOMPARE(docs.document_count(), 2);
  }

  // Disk full from the first message of a new conversation: the conversation, the
  // message and the reply stay in the window unsaved; the next send stores all of them,
  // in order, under the title the first message gives.
  void chatKeepsUnsavedMessagesAndSavesThemNextTime() {
    QTemporaryDir dir;
    auto chat = chat_with_model(dir.path());
    QVERIFY(chat);
    QSignalSpy errors(chat.get(), &ChatController::errorOccurred);
    SqliteFaultVfs::set(DiskFault::Full);
    QVERIFY(send_and_wait(*chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    MessageListModel& m = rows(*chat);
    QCOMPARE(m.rowCount(), 2);
    QVERIFY(!m.saved(0));
    QVERIFY(!m.saved(1));
    QVERIFY(!m.items()[1].content.isEmpty());  // the reply was generated all the same
    QCOMPARE(m.data(m.index(0), MessageListModel::SavedRole).toBool(), false);
    QVERIFY(chat->save_error().contains(reason(DiskFault::Full)));
    int said = 0;  // once for the run of failures, not at every attempt while streaming
    for (const auto& e : errors)
      said += e.at(0).toString().contains(QStringLiteral("Saving failed"));
    QCOMPARE(said, 1);
    const QString first_reply = m.items()[1].content;

    SqliteFaultVfs::set(DiskFault::None);
    QVERIFY(send_and_wait(*chat, QStringLiteral("2 And the earth was without form")));
    QCOMPARE(m.rowCount(), 4);
    for (int r = 0; r < 4; ++r) QVERIFY2(m.saved(r), qPrintable(QString::number(r)));
    QVERIFY(chat->save_error().isEmpty());
    QVERIFY(chat->all_saved());

    const QVector<StoredMessage> in_window = m.items();
    chat.reset();
    QString error;
    auto store = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    const auto convs = store->conversations();
    QCOMPARE(convs.size(), 1);
    QCOMPARE(convs[0].title, QStringLiteral("Genesis 1 1 In the beginning"));
    const auto stored = store->messages(convs[0].id);
    QCOMPARE(stored.size(), 4);
    for (int r = 0; r < 4; ++r) {
      QCOMPARE(stored[r].role, in_window[r].role);
      QCOMPARE(stored[r].content, in_window[r].content);
      QCOMPARE(stored[r].state, MessageState::Complete);
    }
    QCOMPARE(stored[1].content, first_reply);
    QVERIFY(stored[1].stats.contains(QStringLiteral("generated_tokens")));  // stats too
  }

  // An I/O error in the middle of a saved conversation: the reply's updates fail, a
  // setting fails; leaving the conversation is refused while rows are unsaved; the next
  // save (a settings change) writes everything.
  void ioErrorMidConversationIsRetriedByTheNextSave() {
    QTemporaryDir dir;
    auto chat = chat_with_model(dir.path());
    QVERIFY(chat);
    QVERIFY(send_and_wait(*chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    const qint64 conv = chat->current_conversation();
    QVERIFY(conv);
    MessageListModel& m = rows(*chat);
    QVERIFY(m.saved(0) && m.saved(1));

    SqliteFaultVfs::set(DiskFault::IoError);
    QVERIFY(send_and_wait(*chat, QStringLiteral("3 And God said")));
    QCOMPARE(m.rowCount(), 4);
    QVERIFY(m.saved(0) && m.saved(1));
    QVERIFY(!m.saved(2) && !m.saved(3));
    QVERIFY(chat->save_error().contains(reason(DiskFault::IoError)));
    QVariantMap sampling = chat->models()->sampling();
    sampling[QStringLiteral("top_k")] = 7;
    chat->models()->set_sampling(sampling);  // refused too: kept pending
    QVERIFY(!chat->all_saved());
    chat->newConversation();  // would drop the unsaved rows: refused
    QCOMPARE(chat->current_conversation(), conv);
    QCOMPARE(m.rowCount(), 4);

    SqliteFaultVfs::set(DiskFault::None);
    sampling[QStringLiteral("top_k")] = 8;
    chat->models()->set_sampling(sampling);  // the next save: writes everything
    QVERIFY(chat->all_saved());
    QVERIFY(chat->save_error().isEmpty());
    const QVector<StoredMessage> in_window = m.items();
    const QString model_path = chat->models()->info().value(QStringLiteral("path")).toString();
    chat.reset();
    QString error;
    auto store = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    const auto stored = store->messages(conv);
    QCOMPARE(stored.size(), 4);
    for (int r = 0; r < 4; ++r) QCOMPARE(stored[r].content, in_window[r].content);
    QCOMPARE(stored[3].state, MessageState::Complete);
    // Sampling is kept per model (settings/model_settings.h).
    const kvchat::app::ModelSettingsBook book(
        store->setting(QStringLiteral("model_settings")).toMap());
    QCOMPARE(book.sampling(model_path).value("top_k").toInt(), 8);
  }

  void snapshotThatCannotBeWrittenIsSaid() {
    QTemporaryDir dir;
    // "snapshots" is a file: every snapshot write fails (ENOTDIR).
    QVERIFY(write_all(dir.filePath(QStringLiteral("snapshots")), "in the way"));
    auto chat = chat_with_model(dir.path());
    QVERIFY(chat);
    QVERIFY(send_and_wait(*chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    QVERIFY(QTest::qWaitFor(
        [&] {
          return chat->last_event().contains(QStringLiteral("Saving the KV snapshot failed"));
        },
        30000));
    QVERIFY2(chat->last_event().contains(QStringLiteral("conversation-")),
             qPrintable(chat->last_event()));
    QVERIFY(chat->all_saved());  // the conversation is stored; only the cache copy is not
  }

  void modelFileCutShortWhileLoadedIsSaidAndChatGoesOn() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(QFile::copy(kDemo, model));
    auto chat = std::make_unique<ChatController>(dir.filePath(QStringLiteral("data")));
    chat->models()->loadModel(model);
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat->models()->loading() && !chat->models()->info().isEmpty(); }, 60000));
    QVariantMap sampling = chat->models()->sampling();
    sampling[QStringLiteral("temperature")] = 0.0;
    sampling[QStringLiteral("max_tokens")] = 6;
    chat->models()->set_sampling(sampling);
    QVERIFY(send_and_wait(*chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    const qint64 size = QFileInfo(model).size();
    QVERIFY(::truncate(QFile::encodeName(model).constData(), size / 3) == 0);
    QSignalSpy errors(chat.get(), &ChatController::errorOccurred);
    QVERIFY(send_and_wait(*chat, QStringLiteral("2 And the earth")));  // no SIGBUS
    QCOMPARE(rows(*chat).rowCount(), 4);
    QVERIFY(!rows(*chat).items()[3].content.isEmpty());
    QCOMPARE(errors.count(), 1);
    const QString said = errors.at(0).at(0).toString();
    QVERIFY2(
        said.contains(QStringLiteral("cut short from %1 to %2 bytes").arg(size).arg(size / 3)) &&
            said.contains(QStringLiteral("keeps running")),
        qPrintable(said));
  }

  void damagedDatabaseIsMovedAsideAndAFreshOneCreated_data() {
    QTest::addColumn<QString>("damage");
    QTest::newRow("random bytes") << QStringLiteral("random");
    QTest::newRow("text file") << QStringLiteral("text");
    QTest::newRow("damaged pages") << QStringLiteral("pages");
  }
  void damagedDatabaseIsMovedAsideAndAFreshOneCreated() {
    QFETCH(QString, damage);
    QTemporaryDir dir;
    const QString path = ConversationStore::default_path(dir.path());
    QByteArray bytes;
    if (damage == QLatin1String("random")) {
      bytes.resize(64 * 1024);
      for (char& c : bytes) c = char(QRandomGenerator::global()->generate() & 0xff);
    } else if (damage == QLatin1String("text")) {
      bytes = "these are my notes, not a database\n";
    } else {
      {  // a real kvchat database with enough rows for many pages, then pages overwritten
        QString error;
        auto store = ConversationStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 c = store->create_conversation(QStringLiteral("x"), {}, &error);
        for (int i = 0; i < 200; ++i)
          QVERIFY(store->append_message(c, QStringLiteral("user"),
                                        QString(500, QLatin1Char('a' + i % 26)),
                                        MessageState::Complete, &error));
      }  // closed: the WAL is checkpointed into the file
      bytes = read_all(path);
      QVERIFY(bytes.size() > 20 * 4096);
      for (int i = 5 * 4096; i < 12 * 4096; ++i) bytes[i] = char(0xA5);
    }
    QVERIFY(write_all(path, bytes));
    QFile::remove(path + QStringLiteral("-wal"));
    QFile::remove(path + QStringLiteral("-shm"));

    QString error, moved;
    auto store = ConversationStore::open_or_recover(path, &error, &moved);
    QVERIFY2(store, qPrintable(error));
    QVERIFY(moved.startsWith(path + QStringLiteral(".corrupt-")));
    QCOMPARE(read_all(moved), bytes);  // nothing deleted: the file itself, moved
    QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
    QCOMPARE(store->conversations().size(), 0);
    QVERIFY(store->create_conversation(QStringLiteral("fresh"), {}, &error));
    store.reset();

    // The window says it, with the new name: ChatController on a damaged file.
    QVERIFY(write_all(path, bytes));
    ChatController chat(dir.path());
    QVERIFY2(chat.store_error().isEmpty(), qPrintable(chat.store_error()));
    QCOMPARE(corrupt_copies(dir.path()).size(), 2);
    bool named = false;
    for (const QString& name : corrupt_copies(dir.path()))
      named = named || chat.startup_notice().contains(dir.filePath(name));
    QVERIFY2(named, qPrintable(chat.startup_notice()));
    QVERIFY(chat.startup_notice().contains(QStringLiteral("nothing deleted")));
  }

  void newerOrForeignDatabaseIsRefusedNotMoved() {
    QTemporaryDir dir;
    const QString path = ConversationStore::default_path(dir.path());
    QString error;
    {
      auto steps = ConversationStore::migrations();
      steps.append(MigrationStep{QStringLiteral("CREATE TABLE future (x)")});
      auto newer = ConversationStore::open(path, steps, &error);
      QVERIFY2(newer, qPrintable(error));
    }
    QString moved;
    auto store = ConversationStore::open_or_recover(path, &error, &moved);
    QVERIFY(!store);
    QVERIFY2(error.contains(QStringLiteral("newer kvchat")), qPrintable(error));
    QVERIFY(moved.isEmpty());
    QVERIFY(corrupt_copies(dir.path()).isEmpty());
    QVERIFY(QFile::exists(path));
  }

  void unusableDataDirectoryIsSaidAtStart() {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("a-file"));
    QVERIFY(write_all(file, "x"));
    // A data directory under a regular file cannot be created (ENOTDIR), even as root.
    const QString under_file = file + QStringLiteral("/kvchat");
    QString message = ConversationStore::check_data_dir(under_file);
    QVERIFY2(message.contains(under_file) &&
                 message.contains(QStringLiteral("cannot be created")) &&
                 message.contains(QStringLiteral("Not a directory")) &&
                 message.contains(QStringLiteral("--data-dir")),
             qPrintable(message));
    message = ConversationStore::check_data_dir(file);
    QVERIFY2(message.contains(QStringLiteral("it is a file, not a directory")),
             qPrintable(message));
    ChatController chat(under_file);
    QCOMPARE(chat.store_error(), ConversationStore::check_data_dir(under_file));
    QVERIFY(!QFileInfo::exists(under_file));
    chat.newConversation();  // nothing to save into: no crash, nothing created
    QCOMPARE(chat.current_conversation(), qint64(0));

    // A missing one is created.
    const QString missing = dir.filePath(QStringLiteral("new/deeper/kvchat"));
    QVERIFY(ConversationStore::check_data_dir(missing).isEmpty());
    QVERIFY(QFileInfo(missing).isDir());
  }

  void readOnlyDataDirectoryIsSaidAtStart() {
    if (::geteuid() == 0)
      QSKIP(
          "running as root, which writes through 0500 permissions; the not-a-directory case "
          "above covers the message path");
    QTemporaryDir dir;
    const QString ro = dir.filePath(QStringLiteral("ro"));
    QVERIFY(QDir().mkpath(ro));
    QVERIFY(::chmod(QFile::encodeName(ro).constData(), 0500) == 0);
    const QString message = ConversationStore::check_data_dir(ro);
    ::chmod(QFile::encodeName(ro).constData(), 0700);
    QVERIFY2(message.contains(ro) && message.contains(QStringLiteral("not writable")) &&
                 message.contains(QStringLiteral("Permission denied")),
             qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestStoreFaults)
#include "test_store_faults.moc"
