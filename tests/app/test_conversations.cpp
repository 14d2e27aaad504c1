// The conversation list and what belongs to each conversation (issue 13, points 5 and 6):
// export as Markdown and JSON checked against the stored messages; delete then undo
// brings the conversation back with its messages; a new chat reuses the empty one; a
// notice, a summary job, a document's preview and the KV timeline of conversation A are
// not shown in B and come back in A.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "documents/document_controller.h"
#include "export/conversation_export.h"
#include "conversations/conversation_list_model.h"
#include "messages/message_list_model.h"
#include "store/conversation_store.h"
#include "store/document_store.h"

using namespace kvchat::app;

namespace {

// Messages with Markdown, code, non-ASCII and a line break; stored through the controller.
const QString kUser1 =
    QStringLiteral("# not a heading\nShow me `code` and *this*: 한국어, café, naïve — ✓");
const QString kReply1 =
    QStringLiteral("Sure:\n\n```cpp\nint main() { return 0; }\n```\n\nÜber 😀 done.");
const QString kUser2 = QStringLiteral("Zweite Frage: \"quotes\" \\ backslash <tag> & ampersand");
const QString kReply2 = QStringLiteral("- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |");

ConversationListModel* list(ChatController& chat) { return chat.conversation_list()->list_model(); }
MessageListModel* messages(ChatController& chat) {
  return static_cast<MessageListModel*>(chat.messages());
}
QVector<qint64> listed_ids(ChatController& chat) {
  QVector<qint64> ids;
  for (int row = 0; row < list(chat)->rowCount(); ++row) {
    ids.push_back(
        list(chat)->data(list(chat)->index(row), ConversationListModel::IdRole).toLongLong());
  }
  return ids;
}

// A conversation with two exchanges, opened; its id.
qint64 conversation_with_messages(ChatController& chat, const QString& first,
                                  const QString& reply) {
  chat.newConversation();
  const qint64 id = chat.current_conversation();
  QString error;
  if (!chat.append_exchange(id, first, {}, reply, {}, &error)) qWarning("%s", qPrintable(error));
  if (!chat.append_exchange(id, kUser2, {}, kReply2, {}, &error)) qWarning("%s", qPrintable(error));
  return id;
}

// A cancelled (resumable) summary job of `conversation` with `partials` partial summaries
// stored, written through a second connection as the summary worker does; its id.
qint64 cancelled_summary_job(const QString& data_dir, qint64 conversation, int partials) {
  QString error;
  auto doc_store = DocumentStore::open(ConversationStore::default_path(data_dir), &error);
  if (!doc_store) return 0;
  StoredDocument meta;
  meta.name = QStringLiteral("a.txt");
  meta.mime = QStringLiteral("text/plain");
  const QByteArray text("In the beginning.");
  meta.bytes = text.size();
  meta.sha256 =
      QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex());
  meta.encoding = QStringLiteral("utf-8");
  bool inserted = false;
  const qint64 document = doc_store->add_document(meta, text, &inserted, &error);
  const qint64 job =
      document > 0 ? doc_store->create_job(document, conversation, {}, {}, &error) : 0;
  for (int i = 0; job > 0 && i < partials; ++i) {
    StoredPartial p;
    p.index = i;
    p.text = QStringLiteral("partial %1").arg(i);
    doc_store->save_partial(job, p, &error);
  }
  if (!job || !doc_store->set_job_status(job, JobStatus::Cancelled, {}, {}, &error)) {
    qWarning("%s", qPrintable(error));
    return 0;
  }
  return job;
}

// The demo model loaded into `chat`; false when it did not load in a minute.
bool load_demo(ChatController& chat) {
  chat.models()->loadModel(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf"));
  return QTest::qWaitFor(
      [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000);
}

// Sends `text` in the open conversation; true once the reply finished.
bool send_and_wait(ChatController& chat, const QString& text) {
  QSignalSpy finished(&chat, &ChatController::replyFinished);
  return chat.send(text) && (finished.wait(60000) || finished.count() > 0);
}

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestConversations : public QObject {
  Q_OBJECT
 private slots:
  void exportsMarkdownAndJsonWithTheStoredMessages() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    const qint64 id = conversation_with_messages(chat, kUser1, kReply1);
    QVERIFY(id > 0);
    chat.set_system_prompt(QStringLiteral("Be brief.\nAnswer in Korean."));
    // The truth: what a second connection reads from the database.
    QString error;
    auto reader = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY2(reader, qPrintable(error));
    const QVector<StoredMessage> stored = reader->messages(id);
    QCOMPARE(stored.size(), 4);
    QCOMPARE(stored[0].content, kUser1);

    const QString json_path = dir.filePath("out.json");
    QVERIFY(chat.conversation_list()->exportConversation(
        id, QUrl::fromLocalFile(json_path).toString()));
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(read_all(json_path), &parse);
    QCOMPARE(parse.error, QJsonParseError::NoError);
    const QJsonObject root = doc.object();
    QCOMPARE(root.value("format").toString(), QStringLiteral("kvchat-conversation"));
    QCOMPARE(root.value("title").toString(), reader->conversation(id)->title);
    QCOMPARE(root.value("system_prompt").toString(),
             QStringLiteral("Be brief.\nAnswer in Korean."));
    const QJsonArray rows = root.value("messages").toArray();
    QCOMPARE(rows.size(), stored.size());
    for (int i = 0; i < stored.size(); ++i) {
      QCOMPARE(rows[i].toObject().value("role").toString(), stored[i].role);
      QCOMPARE(rows[i].toObject().value("content").toString(), stored[i].content);
      QCOMPARE(rows[i].toObject().value("state").toString(), QStringLiteral("complete"));
    }

    const QString md_path = dir.filePath("out.md");
    QVERIFY(chat.conversation_list()->exportConversation(id, md_path));
    const QString md = QString::fromUtf8(read_all(md_path));
    QVERIFY2(md.startsWith(QStringLiteral("# ") + reader->conversation(id)->title + "\n"),
             qPrintable(md.left(80)));
    QVERIFY(md.contains(QStringLiteral("> Be brief.\n> Answer in Korean.\n")));
    // Every message verbatim, in order, each under its role's heading.
    qsizetype at = 0;
    for (const StoredMessage& m : stored) {
      const QString heading =
          m.role == "user" ? QStringLiteral("## You\n\n") : QStringLiteral("## Assistant\n\n");
      const qsizetype h = md.indexOf(heading + m.content, at);
      QVERIFY2(h >= at, qPrintable(m.content));
      at = h + heading.size() + m.content.size();
    }
    QVERIFY(md.toUtf8().contains("한국어"));  // UTF-8 on disk, not escaped
    // The file name offered: the title without characters file systems refuse.
    QCOMPARE(export_file_name(QStringLiteral("a/b: c?"), ExportFormat::Json),
             QStringLiteral("a b c.json"));
    QCOMPARE(export_file_name(QStringLiteral("  "), ExportFormat::Markdown),
             QStringLiteral("conversation.md"));
    // A place that cannot be written: false, said.
    QSignalSpy errors(chat.notices(), &NoticeCenter::errorShown);
    QVERIFY(!chat.conversation_list()->exportConversation(id, dir.filePath("no/such/dir/out.md")));
    QCOMPARE(errors.count(), 1);
  }

  void deleteThenUndoBringsTheConversationBackWithItsMessages() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    const qint64 a = conversation_with_messages(chat, kUser1, kReply1);
    const qint64 b =
        conversation_with_messages(chat, QStringLiteral("second"), QStringLiteral("reply"));
    QCOMPARE(listed_ids(chat).size(), 2);
    QCOMPARE(chat.current_conversation(), b);

    chat.conversation_list()->deleteConversation(b);
    QCOMPARE(chat.conversation_list()->pending_delete().value("id").toLongLong(), b);
    QCOMPARE(listed_ids(chat), QVector<qint64>{a});  // gone from the list at once
    QCOMPARE(chat.current_conversation(), qint64{0});
    QCOMPARE(messages(chat)->rowCount(), 0);
    chat.conversation_list()->undoDelete();
    QVERIFY(chat.conversation_list()->pending_delete().isEmpty());
    QCOMPARE(listed_ids(chat).size(), 2);
    QCOMPARE(chat.current_conversation(), b);  // open again, as it was
    QCOMPARE(messages(chat)->rowCount(), 4);
    QCOMPARE(messages(chat)->items()[0].content, QStringLiteral("second"));

    // Not undone: deleted from the store, with its messages.
    chat.selectConversation(a);
    chat.conversation_list()->deleteConversation(a);
    chat.conversation_list()->commit_pending_delete();
    QVERIFY(chat.conversation_list()->pending_delete().isEmpty());
    QCOMPARE(listed_ids(chat), QVector<qint64>{b});
    QString error;
    auto reader = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY(!reader->conversation(a));
    QVERIFY(reader->messages(a).isEmpty());
    QCOMPARE(reader->messages(b).size(), 4);
    // A second delete makes the first one final; undo brings back only the second.
    const qint64 c = conversation_with_messages(chat, QStringLiteral("third"), QStringLiteral("r"));
    chat.conversation_list()->deleteConversation(b);
    chat.conversation_list()->deleteConversation(c);
    QVERIFY(!reader->conversation(b));
    chat.conversation_list()->undoDelete();
    QCOMPARE(listed_ids(chat), QVector<qint64>{c});
    QCOMPARE(reader->messages(c).size(), 4);
  }

  void deleteIsFinalAtExit() {
    QTemporaryDir dir;
    qint64 a = 0;
    {
      ChatController chat(dir.path());
      a = conversation_with_messages(chat, kUser1, kReply1);
      chat.conversation_list()->deleteConversation(a);
    }
    QString error;
    auto reader = ConversationStore::open(ConversationStore::default_path(dir.path()), &error);
    QVERIFY(!reader->conversation(a));
  }

  void aNewChatReusesTheEmptyOne() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.newConversation();
    const qint64 empty = chat.current_conversation();
    QVERIFY(empty > 0);
    chat.newConversation();
    chat.newConversation();
    QCOMPARE(listed_ids(chat).size(), 1);
    QCOMPARE(chat.current_conversation(), empty);
    // From a conversation with messages: the empty one is opened, not a third created.
    const qint64 full = conversation_with_messages(chat, kUser1, kReply1);
    QCOMPARE(full, empty);  // the empty one was taken for it
    chat.newConversation();
    const qint64 fresh = chat.current_conversation();
    QVERIFY(fresh != full);
    chat.selectConversation(full);
    chat.newConversation();
    QCOMPARE(chat.current_conversation(), fresh);
    QCOMPARE(listed_ids(chat).size(), 2);
  }

  void noticesAndJobsBelongToTheirConversation() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    DocumentController& docs = *chat.document_controller();
    const qint64 a = conversation_with_messages(chat, kUser1, kReply1);
    const qint64 b = conversation_with_messages(chat, QStringLiteral("b"), QStringLiteral("r"));
    const qint64 job = cancelled_summary_job(dir.path(), a, 0);
    QVERIFY(job > 0);

    chat.selectConversation(a);
    QCOMPARE(docs.job().value("id").toLongLong(), job);
    chat.notices()->show_error(QStringLiteral("A's error"));
    QCOMPARE(chat.notices()->message(), QStringLiteral("A's error"));

    chat.selectConversation(b);
    QVERIFY2(chat.notices()->message().isEmpty(), qPrintable(chat.notices()->message()));
    QVERIFY(docs.job().isEmpty());
    chat.notices()->show_error(QStringLiteral("B's error"));

    chat.selectConversation(a);
    QCOMPARE(chat.notices()->message(), QStringLiteral("A's error"));
    QCOMPARE(docs.job().value("id").toLongLong(), job);
    chat.notices()->dismissMessage();
    QVERIFY(chat.notices()->message().isEmpty());
    chat.selectConversation(b);
    QCOMPARE(chat.notices()->message(), QStringLiteral("B's error"));
    // A new conversation starts clean.
    chat.newConversation();
    QVERIFY(chat.notices()->message().isEmpty());
    QVERIFY(docs.job().isEmpty());
  }

  // Resume shows the running job at once, with the partials it resumes from, never the
  // stored job's status beside "summarizing"; without a model it says so and starts nothing.
  void resumingShowsTheRunningJobAtOnce() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    DocumentController& docs = *chat.document_controller();
    const qint64 a = conversation_with_messages(chat, kUser1, kReply1);
    const qint64 job = cancelled_summary_job(dir.path(), a, 2);
    QVERIFY(job > 0);
    chat.newConversation();
    chat.selectConversation(a);  // opened again: its stored job is shown
    QCOMPARE(docs.job().value("id").toLongLong(), job);
    QCOMPARE(docs.job().value("status").toString(), QStringLiteral("cancelled"));

    docs.resume();
    QVERIFY2(chat.notices()->message().contains("Open a model"),
             qPrintable(chat.notices()->message()));
    QVERIFY(!docs.summarizing());
    QCOMPARE(docs.job().value("status").toString(), QStringLiteral("cancelled"));

    QVERIFY(load_demo(chat));
    QSignalSpy changed(&docs, &DocumentController::jobChanged);
    docs.resume();
    QVERIFY(docs.summarizing());
    QVERIFY(docs.job_running());
    QCOMPARE(docs.job().value("status").toString(), QStringLiteral("running"));
    QCOMPARE(docs.job().value("resumed").toInt(), 2);
    QVERIFY(chat.notices()->message().isEmpty());
    QCOMPARE(changed.count(), 1);  // one change: summarizing and the job's view together
    docs.cancelSummary();
    QVERIFY(QTest::qWaitFor([&] { return !docs.summarizing(); }, 30000));
  }

  void aDocumentPreviewBelongsToTheConversationItWasAttachedIn() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    DocumentController& docs = *chat.document_controller();
    const qint64 a = conversation_with_messages(chat, kUser1, kReply1);
    const qint64 b = conversation_with_messages(chat, QStringLiteral("b"), QStringLiteral("r"));
    chat.selectConversation(a);
    docs.attachText(QStringLiteral("In the beginning God created the heaven and the earth."));
    QTRY_VERIFY_WITH_TIMEOUT(!docs.preview().isEmpty(), 10000);
    const qint64 document = docs.preview().value("id").toLongLong();
    QVERIFY(document > 0);

    chat.selectConversation(b);
    QVERIFY2(docs.preview().isEmpty(), qPrintable(docs.preview().value("name").toString()));
    chat.newConversation();
    QVERIFY(docs.preview().isEmpty());
    chat.selectConversation(a);
    QCOMPARE(docs.preview().value("id").toLongLong(), document);
    // Dismissed in A: gone there too.
    docs.dismissPreview();
    chat.selectConversation(b);
    chat.selectConversation(a);
    QVERIFY(docs.preview().isEmpty());
  }

  void theKvTimelineAndSnapshotLineBelongToTheirConversation() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    QVERIFY(send_and_wait(chat, QStringLiteral("Genesis 1")));
    const qint64 a = chat.current_conversation();
    QVERIFY(QTest::qWaitFor([&] { return chat.memory_state()->snapshot_bytes() > 0; }, 20000));
    const QVariantList a_history = chat.memory_state()->memory_history();
    QVERIFY(a_history.size() >= 2);
    const int a_tokens = a_history.back().toMap().value("tokens").toInt();
    QVERIFY(a_tokens > 5);
    QVERIFY2(chat.memory_state()->snapshot_status().contains(
                 chat.formatBytes(chat.memory_state()->snapshot_bytes())),
             qPrintable(chat.memory_state()->snapshot_status()));

    // The panel's "last reply" line is the open conversation's.
    const QVariantMap a_reply = chat.conversation_reply_stats();
    QVERIFY(a_reply.value("generated_tokens").toInt() > 0);
    QCOMPARE(a_reply.value("kv_type").toString(), QStringLiteral("f16"));
    chat.newConversation();
    const qint64 b = chat.current_conversation();
    QVERIFY(b != a);
    QVERIFY(chat.conversation_reply_stats().isEmpty());
    // B's timeline: its own points only (the cleared session reports 0 tokens).
    QVERIFY(
        QTest::qWaitFor([&] { return !chat.memory_state()->memory_history().isEmpty(); }, 10000));
    for (const QVariant& p : chat.memory_state()->memory_history())
      QCOMPARE(p.toMap().value("tokens").toInt(), 0);
    QCOMPARE(chat.memory_state()->snapshot_bytes(), qint64{0});
    QVERIFY(chat.memory_state()->snapshot_status().isEmpty());

    chat.selectConversation(a);
    QCOMPARE(chat.conversation_reply_stats(), a_reply);
    QVERIFY(chat.memory_state()->memory_history().size() >= a_history.size());
    for (int i = 0; i < a_history.size(); ++i)
      QCOMPARE(chat.memory_state()->memory_history()[i], a_history[i]);
    // Its KV comes back from the RAM tier with the same tokens: the line says so.
    QVERIFY(QTest::qWaitFor(
        [&] { return chat.memory_state()->snapshot_status().contains("came back from RAM"); },
        20000));
    QCOMPARE(chat.memory_state()->memory_history().back().toMap().value("tokens").toInt(),
             a_tokens);
  }

  void aKvTypeChangeLeavesNoStaleLines() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    QVERIFY(send_and_wait(chat, QStringLiteral("Genesis 1")));
    QVERIFY(QTest::qWaitFor([&] { return chat.memory_state()->snapshot_bytes() > 0; }, 20000));
    QCOMPARE(chat.last_reply_stats().value("kv_type").toString(), QStringLiteral("f16"));
    const QString saved_line = chat.memory_state()->snapshot_status();
    QVERIFY(saved_line.startsWith(QStringLiteral("Saved after the last reply")));

    QVariantMap settings = chat.models()->engine_settings();
    settings.insert(QStringLiteral("kv_type"), QStringLiteral("q8_0"));
    chat.models()->setEngineSettings(settings);
    QVERIFY(QTest::qWaitFor(
        [&] {
          return !chat.models()->loading() &&
                 chat.memory_state()->memory().value("kv_type") == "q8_0";
        },
        60000));
    // The f16 session's timeline is gone; the snapshot line speaks of this session: the
    // f16 snapshot is restored or refused, never the old "saved" line.
    QVERIFY(
        QTest::qWaitFor([&] { return !chat.memory_state()->snapshot_status().isEmpty(); }, 20000));
    QVERIFY2(chat.memory_state()->snapshot_status() != saved_line,
             qPrintable(chat.memory_state()->snapshot_status()));
    QVERIFY(chat.memory_state()->memory_history().size() <= 2);
  }
};

QTEST_GUILESS_MAIN(TestConversations)
#include "test_conversations.moc"
