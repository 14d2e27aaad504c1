// Branches as the window drives them (ChatController on the demo model, issue 29): editing
// any user message and regenerating any reply make branches; ‹ 2/3 › under any message
// switches the branch that follows it, stored across a restart; the next turn continues
// from the branch shown and evaluates only what differs from the cached prefix (counted);
// the KV snapshot on disk follows the branch shown; a branch left waits in the RAM tier
// and switching back to it, or back to a conversation left, evaluates 0 tokens (issue 46);
// Markdown exports the branch shown, JSON the whole tree.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

#include "chat/chat_controller.h"
#include "engine/engine_worker.h"
#include "memory/memory_state.h"
#include "messages/message_list_model.h"

using kvchat::app::ChatController;
using kvchat::app::EngineWorker;
using kvchat::app::MessageListModel;
using kvchat::app::StoredMessage;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

MessageListModel& rows(ChatController& chat) {
  return *static_cast<MessageListModel*>(chat.messages());
}
const StoredMessage& last(ChatController& chat) { return rows(chat).items().back(); }

QStringList texts(ChatController& chat) {
  QStringList out;
  for (const StoredMessage& m : rows(chat).items()) out << m.content;
  return out;
}

bool load_demo(ChatController& chat) {
  chat.models()->loadModel(kDemo);
  return QTest::qWaitFor(
      [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000);
}

// Greedy and short: the same prompt gives the same reply.
void short_greedy(ChatController& chat) {
  QVariantMap s = chat.models()->sampling();
  s.insert("temperature", 0.0);
  s.insert("max_tokens", 6);
  chat.models()->set_sampling(s);
}

bool reply_to(ChatController& chat, const std::function<void()>& action) {
  QSignalSpy finished(&chat, &ChatController::replyFinished);
  action();
  if (!chat.generating()) return false;
  return finished.wait(60000) || finished.count() > 0;
}

// Switches the message at `row` to sibling `version` and waits for the worker to cut its
// session (and the snapshot) to the branch shown: the tokens it kept, -1 on a timeout.
int switch_branch(ChatController& chat, int row, int version) {
  QSignalSpy followed(chat.engine_worker(), &EngineWorker::branchFollowed);
  chat.selectVersion(row, version);
  if (!followed.wait(30000) && followed.isEmpty()) return -1;
  return followed.takeFirst().value(0).toInt();
}

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int n_past(ChatController& chat) {
  return chat.memory_state()->memory().value(QStringLiteral("n_past")).toInt();
}

}  // namespace

class TestBranches : public QObject {
  Q_OBJECT
 private slots:
  void editAndRegenerateInTheMiddleMakeBranches() {
    QTemporaryDir dir;
    QStringList shown;
    qint64 conversation = 0;
    {
      ChatController chat(dir.path());
      QVERIFY(load_demo(chat));
      short_greedy(chat);
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1")); }));
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Exodus 2")); }));
      conversation = chat.current_conversation();
      const QStringList first = texts(chat);
      QCOMPARE(first.size(), 4);

      // The first message edited: a branch there, resent; the old one stays.
      QVERIFY(reply_to(chat, [&] { chat.editMessage(0, QStringLiteral("Leviticus 3")); }));
      QCOMPARE(rows(chat).rowCount(), 2);
      QCOMPARE(rows(chat).items()[0].content, QStringLiteral("Leviticus 3"));
      QCOMPARE(rows(chat).items()[0].version, 1);
      QCOMPARE(rows(chat).items()[0].version_count, 2);
      QVERIFY(!last(chat).content.isEmpty());
      // ‹ under the first message: the first branch and all that followed it.
      chat.selectVersion(0, 0);
      QCOMPARE(texts(chat), first);
      QCOMPARE(rows(chat).items()[0].version_count, 2);

      // The first reply regenerated, in the middle: a sibling with nothing after it yet.
      QVERIFY(reply_to(chat, [&] { chat.regenerateMessage(1); }));
      QCOMPARE(rows(chat).rowCount(), 2);
      QCOMPARE(rows(chat).items()[1].version, 1);
      QCOMPARE(rows(chat).items()[1].version_count, 2);
      QCOMPARE(rows(chat).items()[0].version, 0);  // the edit's choice is kept
      // Alt+Left: the last message that has siblings, the reply: back to the first one.
      chat.showAdjacentVersion(-1);
      QCOMPARE(texts(chat), first);
      chat.showAdjacentVersion(1);
      QCOMPARE(rows(chat).rowCount(), 2);
      QCOMPARE(rows(chat).items()[1].version, 1);
      // The next turn continues from the branch shown.
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Numbers 4")); }));
      QCOMPARE(rows(chat).rowCount(), 4);
      QCOMPARE(rows(chat).items()[2].content, QStringLiteral("Numbers 4"));
      QCOMPARE(rows(chat).items()[1].version, 1);
      shown = texts(chat);

      // Exports: Markdown the branch shown, JSON the whole tree.
      const QString md_path = dir.filePath(QStringLiteral("out.md"));
      QVERIFY(chat.conversation_list()->exportConversation(conversation, md_path));
      const QString md = QString::fromUtf8(read_all(md_path));
      QVERIFY(md.contains(QStringLiteral("Numbers 4")));
      QVERIFY2(!md.contains(QStringLiteral("Exodus 2")), qPrintable(md));
      QVERIFY(!md.contains(QStringLiteral("Leviticus 3")));
      const QString json_path = dir.filePath(QStringLiteral("out.json"));
      QVERIFY(chat.conversation_list()->exportConversation(conversation, json_path));
      const QJsonObject root = QJsonDocument::fromJson(read_all(json_path)).object();
      QCOMPARE(root.value("version").toInt(), 2);
      const QJsonArray messages = root.value("messages").toArray();
      QCOMPARE(messages.size(), 4);
      for (int i = 0; i < 4; ++i)
        QCOMPARE(messages[i].toObject().value("content").toString(), shown[i]);
      const QJsonArray tree = root.value("tree").toArray();
      // Genesis 1 + its two replies, Exodus 2 + its reply, Numbers 4 + its reply,
      // Leviticus 3 + its reply.
      QCOMPARE(tree.size(), 9);
      QSet<qint64> ids;
      QStringList contents;
      int on_path = 0;
      for (const QJsonValue& v : tree) {
        const QJsonObject node = v.toObject();
        const QJsonValue parent = node.value("parent");
        QVERIFY(parent.isNull() || ids.contains(static_cast<qint64>(parent.toDouble())));
        ids.insert(static_cast<qint64>(node.value("id").toDouble()));
        contents << node.value("content").toString();
        if (node.value("shown").toBool()) ++on_path;
      }
      QCOMPARE(on_path, 4);
      QVERIFY(contents.contains(QStringLiteral("Exodus 2")));
      QVERIFY(contents.contains(QStringLiteral("Leviticus 3")));
      for (const QString& text : first) QVERIFY(contents.contains(text));
    }
    // After a restart: the branch chosen is shown, the others are there.
    ChatController again(dir.path());
    QCOMPARE(again.current_conversation(), conversation);
    QCOMPARE(texts(again), shown);
    QCOMPARE(rows(again).items()[0].version_count, 2);
    QCOMPARE(rows(again).items()[1].version, 1);
    again.selectVersion(0, 1);
    QCOMPARE(rows(again).rowCount(), 2);
    QCOMPARE(rows(again).items()[0].content, QStringLiteral("Leviticus 3"));
  }

  // After a switch, the session keeps only the prefix the branch shown shares with what it
  // held, the next reply evaluates the rest (prompt - kept), and the snapshot on disk is
  // that prefix: reopening restores the branch shown, not the other one.
  void aConversationLeftComesBackFromRamThenFromDisk() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    short_greedy(chat);
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1")); }));
    const qint64 first = chat.current_conversation();
    QTRY_VERIFY(n_past(chat) > 0);
    const int held = n_past(chat);
    QTRY_VERIFY(QFile::exists(chat.memory_state()->snapshot_path(first)));
    chat.newConversation();
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Exodus 2")); }));
    const qint64 second = chat.current_conversation();
    QTRY_COMPARE(chat.memory_state()->kvPlace(first).value("place").toString(),
                 QStringLiteral("ram"));

    // Back to the first: from RAM, nothing evaluated until the new message.
    QSignalSpy opened(chat.memory_state(), &kvchat::app::MemoryState::snapshotRestored);
    chat.selectConversation(first);
    QVERIFY(opened.wait(30000) || !opened.isEmpty());
    QTRY_COMPARE(n_past(chat), held);
    QVERIFY(chat.memory_state()->snapshot_status().contains(QStringLiteral("RAM")));
    QTRY_COMPARE(chat.memory_state()->kvPlace(second).value("place").toString(),
                 QStringLiteral("ram"));
    QCOMPARE(chat.memory_state()->kvPlace(first).value("place").toString(), QStringLiteral("live"));
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Numbers 4")); }));
    QVariantMap stats = last(chat).stats;
    QCOMPARE(stats.value("reused_tokens").toInt(), held);
    QCOMPARE(stats.value("evaluated_tokens").toInt(), stats.value("prompt_tokens").toInt() - held);

    // No RAM budget: the one left goes to disk, and comes back from its snapshot.
    chat.memory_state()->setRamTierBudgetBytes(0);
    QTRY_COMPARE(chat.memory_state()->kvPlace(second).value("place").toString(),
                 QStringLiteral("disk"));
    opened.clear();
    chat.selectConversation(second);
    QVERIFY(opened.wait(30000) || !opened.isEmpty());
    QVERIFY(chat.memory_state()->snapshot_status().contains(QStringLiteral("disk")));
    QTRY_COMPARE(chat.memory_state()->kvPlace(first).value("place").toString(),
                 QStringLiteral("disk"));
    chat.memory_state()->setRamTierBudgetBytes(
        static_cast<qint64>(kvchat::KvRamTier::default_budget_bytes()));
  }

  void switchingEvaluatesOnlyWhatDiffersAndTheSnapshotFollows() {
    QTemporaryDir dir;
    int kept = 0;
    QString snapshot;
    {
      ChatController chat(dir.path());
      QVERIFY(load_demo(chat));
      short_greedy(chat);
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1")); }));
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Exodus 2")); }));
      QTRY_VERIFY(n_past(chat) > 0);
      const int exodus = n_past(chat);  // parked by the edit below: it waits in RAM
      QVERIFY(reply_to(chat, [&] { chat.editMessage(2, QStringLiteral("Leviticus 3")); }));
      QCOMPARE(rows(chat).items()[2].version_count, 2);
      QTRY_VERIFY(n_past(chat) > 0);
      const int leviticus = n_past(chat);  // the branch left next: it waits in RAM
      snapshot = chat.memory_state()->snapshot_path(chat.current_conversation());
      QTRY_VERIFY(QFile::exists(snapshot));

      // Back to "Exodus 2": the edit parked that branch, so all of it comes back from RAM.
      QSignalSpy exodus_from_ram(chat.engine_worker(), &EngineWorker::kvResumedFromRam);
      kept = switch_branch(chat, 2, 0);
      QCOMPARE(kept, exodus);
      QCOMPARE(exodus_from_ram.count(), 1);
      QCOMPARE(rows(chat).items()[2].content, QStringLiteral("Exodus 2"));
      QTRY_COMPARE(n_past(chat), kept);
      QVERIFY(QFile::exists(snapshot));
      // Only the new message is evaluated for the next reply.
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Numbers 4")); }));
      const QVariantMap stats = last(chat).stats;
      QCOMPARE(stats.value("reused_tokens").toInt(), kept);
      QCOMPARE(stats.value("evaluated_tokens").toInt(),
               stats.value("prompt_tokens").toInt() - kept);

      // Switched back to "Leviticus 3": its whole KV comes back from the RAM tier, and the
      // next reply evaluates only the new message.
      QTRY_VERIFY(n_past(chat) > kept);
      QSignalSpy from_ram(chat.engine_worker(), &EngineWorker::kvResumedFromRam);
      kept = switch_branch(chat, 2, 1);
      QCOMPARE(kept, leviticus);
      QCOMPARE(from_ram.count(), 1);
      QCOMPARE(rows(chat).rowCount(), 4);
      QCOMPARE(rows(chat).items()[2].content, QStringLiteral("Leviticus 3"));
      QTRY_VERIFY(chat.memory_state()->snapshot_status().contains(QStringLiteral("RAM")));
      QTRY_COMPARE(
          chat.memory_state()->memory().value("ram_tier").toMap().value("branches").toInt(), 1);
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Ruth 1")); }));
      const QVariantMap back = last(chat).stats;
      QCOMPARE(back.value("reused_tokens").toInt(), leviticus);
      QCOMPARE(back.value("evaluated_tokens").toInt(),
               back.value("prompt_tokens").toInt() - leviticus);
      QCOMPARE(rows(chat).rowCount(), 6);
      QTRY_VERIFY(n_past(chat) > leviticus);
      // The snapshot saved after that reply holds this branch: reopened below.
      QTRY_VERIFY(chat.memory_state()->snapshot_status().startsWith(
          QStringLiteral("Saved after the last reply")));
      kept = n_past(chat);
    }
    {
      // Reopened: the snapshot restores the branch shown's prefix, not the other branch.
      ChatController again(dir.path());
      QCOMPARE(rows(again).items()[2].content, QStringLiteral("Leviticus 3"));
      QSignalSpy restored(again.memory_state(), &kvchat::app::MemoryState::snapshotRestored);
      QVERIFY(load_demo(again));
      QVERIFY(restored.wait(30000) || !restored.isEmpty());
      QTRY_COMPARE(n_past(again), kept);
      short_greedy(again);
      QVERIFY(reply_to(again, [&] { again.send(QStringLiteral("Deuteronomy 5")); }));
      const QVariantMap stats = last(again).stats;
      QVERIFY(stats.value("reused_tokens").toInt() <= kept);
      QCOMPARE(stats.value("evaluated_tokens").toInt() + stats.value("reused_tokens").toInt(),
               stats.value("prompt_tokens").toInt());
    }
    // No model loaded: a switch cannot cut the snapshot, so it goes (never restored as the
    // branch shown when it is the other one).
    ChatController unloaded(dir.path());
    QVERIFY(QFile::exists(snapshot));
    unloaded.selectVersion(2, 0);
    QCOMPARE(rows(unloaded).items()[2].content, QStringLiteral("Exodus 2"));
    QVERIFY(!QFile::exists(snapshot));
  }
};

QTEST_GUILESS_MAIN(TestBranches)
#include "test_branches.moc"
