// Regenerate, versions, Continue and the reply markers as the window drives them
// (ChatController on the demo model, issue 13 point 2), and the split of a message at its
// code blocks (point 10); a user message edited and resent (issue 26 point 5).
#include <QSignalSpy>
#include <functional>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "messages/message_list_model.h"
#include "messages/message_segments.h"

using kvchat::app::ChatController;
using kvchat::app::MessageListModel;
using kvchat::app::MessageState;
using kvchat::app::split_message;
using kvchat::app::StoredMessage;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

MessageListModel& rows(ChatController& chat) {
  return *static_cast<MessageListModel*>(chat.messages());
}
const StoredMessage& last(ChatController& chat) { return rows(chat).items().back(); }

bool load_demo(ChatController& chat) {
  chat.models()->loadModel(kDemo);
  return QTest::qWaitFor(
      [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000);
}

// Runs `action` (which starts a reply) and waits for the reply to finish.
bool reply_to(ChatController& chat, const std::function<void()>& action) {
  QSignalSpy finished(&chat, &ChatController::replyFinished);
  action();
  if (!chat.generating()) return false;  // nothing was started
  return finished.wait(60000) || finished.count() > 0;
}

}  // namespace

class TestReplyVersions : public QObject {
  Q_OBJECT
 private slots:
  void regenerateSamplesWithAFreshSeedAndKeepsTheVersions() {
    QTemporaryDir dir;
    QString first_text, second_text;
    qint64 first_seed = 0, second_seed = 0;
    {
      ChatController chat(dir.path());
      // The default: a random seed per reply.
      QCOMPARE(chat.models()->sampling().value("seed").toLongLong(), qint64{-1});
      QVERIFY(load_demo(chat));
      QVariantMap s = chat.models()->sampling();
      s.insert("temperature", 1.0);
      s.insert("max_tokens", 24);
      chat.models()->set_sampling(s);
      QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1\n1 In the beginning")); }));
      QCOMPARE(rows(chat).rowCount(), 2);
      first_text = last(chat).content;
      first_seed = last(chat).stats.value("seed").toLongLong();
      QVERIFY(first_seed >= 0);

      QVERIFY(reply_to(chat, [&] { chat.regenerate(); }));
      QCOMPARE(rows(chat).rowCount(), 2);  // the same reply, a second version
      QCOMPARE(last(chat).version, 1);
      QCOMPARE(last(chat).version_count, 2);
      second_text = last(chat).content;
      second_seed = last(chat).stats.value("seed").toLongLong();
      QVERIFY(second_seed >= 0);
      // Two random 31-bit seeds, and at temperature 1 two different texts of 24 tokens.
      QVERIFY2(second_seed != first_seed, qPrintable(QString::number(first_seed)));
      QVERIFY2(second_text != first_text, qPrintable(first_text));

      // The first reply's seed, shown beside it, gives its text again: a third version.
      QVERIFY(reply_to(chat, [&] { chat.regenerateWithSeed(first_seed); }));
      QCOMPARE(last(chat).version, 2);
      QCOMPARE(last(chat).version_count, 3);
      QCOMPARE(last(chat).stats.value("seed").toLongLong(), first_seed);
      QCOMPARE(last(chat).content, first_text);

      // Back to the second version: shown, and what the next turn continues from.
      chat.selectVersion(1, 1);
      QCOMPARE(last(chat).version, 1);
      QCOMPARE(last(chat).content, second_text);
      QCOMPARE(last(chat).stats.value("seed").toLongLong(), second_seed);
    }
    // After a restart: the version chosen is shown, the others are there.
    ChatController again(dir.path());
    QCOMPARE(rows(again).rowCount(), 2);
    QCOMPARE(last(again).content, second_text);
    QCOMPARE(last(again).version, 1);
    QCOMPARE(last(again).version_count, 3);
    again.selectVersion(1, 0);
    QCOMPARE(last(again).content, first_text);
  }

  // A regenerated version that writes nothing leaves no empty version: the one before it
  // is shown again, said in the window.
  void aRegeneratedVersionThatWritesNothingIsDropped() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    QVariantMap s = chat.models()->sampling();
    s.insert("max_tokens", 8);
    chat.models()->set_sampling(s);
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1")); }));
    const QString first = last(chat).content;
    QVERIFY(!first.isEmpty());
    s.insert("max_tokens", 0);  // nothing is written
    chat.models()->set_sampling(s);
    QSignalSpy errors(&chat, &ChatController::errorOccurred);
    QVERIFY(reply_to(chat, [&] { chat.regenerate(); }));
    QVERIFY(!chat.generating());
    QCOMPARE(rows(chat).rowCount(), 2);
    QCOMPARE(last(chat).content, first);
    QCOMPARE(last(chat).version_count, 1);
    QCOMPARE(errors.count(), 1);
    // And in the store.
    ChatController again(dir.path());
    QCOMPARE(last(again).content, first);
    QCOMPARE(last(again).version_count, 1);
  }

  void continueExtendsAReplyCutAtTheLengthLimit() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));  // (sampling is kept per model: set for the loaded one)
    QVariantMap s = chat.models()->sampling();
    s.insert("temperature", 0.0);
    s.insert("max_tokens", 8);
    chat.models()->set_sampling(s);
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1\n1 In the beginning")); }));
    QCOMPARE(last(chat).stats.value("stop_reason").toString(), QStringLiteral("max-tokens"));
    const QString cut = last(chat).content;
    const qint64 seed = last(chat).stats.value("seed").toLongLong();

    QVERIFY(reply_to(chat, [&] { chat.continueReply(); }));
    QCOMPARE(rows(chat).rowCount(), 2);  // the reply grew in place
    QVERIFY2(last(chat).content.startsWith(cut) && last(chat).content.size() > cut.size(),
             qPrintable(last(chat).content));
    QCOMPARE(last(chat).stats.value("generated_tokens").toInt(), 16);
    QCOMPARE(last(chat).stats.value("continued").toInt(), 1);
    QCOMPARE(last(chat).stats.value("seed").toLongLong(), seed);  // the reply's own
    QCOMPARE(last(chat).state, MessageState::Complete);

    // Greedy: one uncut reply of 16 tokens is the same text.
    s.insert("max_tokens", 16);
    chat.models()->set_sampling(s);
    const QString continued = last(chat).content;
    QVERIFY(reply_to(chat, [&] { chat.regenerate(); }));
    QCOMPARE(last(chat).content, continued);
  }

  // Model info shows the tensor types as words, not a JSON object (the demo file has 43
  // F16 and 13 F32 tensors: tensor_count_by_type).
  void modelInfoNamesTheTensorTypesInWords() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    const QVariantMap counts = chat.models()->info().value("tensor_count_by_type").toMap();
    QCOMPARE(counts.value("F16").toInt(), 43);
    QCOMPARE(counts.value("F32").toInt(), 13);
    QCOMPARE(chat.models()->info().value("tensor_types_text").toString(),
             QStringLiteral("F16: 43 tensors  ·  F32: 13 tensors"));
  }

  // Editing a user message (Enter in its bubble): refused while a reply is written, for an
  // empty or whitespace-only text, for a reply's row; taken, it is a new branch (the old
  // text and its reply stay as the other one, ‹ 1/2 ›) and is resent.
  void editMessageResendsAndRefusesWhatItCannotTake() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    QVariantMap s = chat.models()->sampling();
    s.insert("max_tokens", 8);
    chat.models()->set_sampling(s);
    QCOMPARE(chat.lastUserRow(), -1);
    QVERIFY(reply_to(chat, [&] { chat.send(QStringLiteral("Genesis 1")); }));
    QCOMPARE(chat.lastUserRow(), 0);
    const QString first_reply = last(chat).content;
    QVERIFY(!chat.editMessage(0, QString()));
    QVERIFY(!chat.editMessage(0, QStringLiteral(" \n\t ")));
    QVERIFY(!chat.editMessage(1, QStringLiteral("a reply")));
    QVERIFY(!chat.editMessage(2, QStringLiteral("no such row")));
    QCOMPARE(rows(chat).items()[0].content, QStringLiteral("Genesis 1"));
    QVERIFY(!chat.generating());
    QSignalSpy finished(&chat, &ChatController::replyFinished);
    QVERIFY(chat.editMessage(0, QStringLiteral("Exodus 1\n1 Now")));
    QVERIFY(chat.generating());
    QVERIFY(!chat.editMessage(0, QStringLiteral("while it writes")));
    QVERIFY(finished.wait(60000) || finished.count() > 0);
    QCOMPARE(rows(chat).rowCount(), 2);
    QCOMPARE(rows(chat).items()[0].content, QStringLiteral("Exodus 1\n1 Now"));
    QCOMPARE(last(chat).role, QStringLiteral("assistant"));
    QCOMPARE(chat.lastUserRow(), 0);
    QCOMPARE(rows(chat).items()[0].version, 1);
    QCOMPARE(rows(chat).items()[0].version_count, 2);
    ChatController again(dir.path());
    QCOMPARE(rows(again).rowCount(), 2);
    QCOMPARE(rows(again).items()[0].content, QStringLiteral("Exodus 1\n1 Now"));
    // The text before the edit, with its reply, is the other branch.
    again.selectVersion(0, 0);
    QCOMPARE(rows(again).rowCount(), 2);
    QCOMPARE(rows(again).items()[0].content, QStringLiteral("Genesis 1"));
    QCOMPARE(rows(again).items()[1].content, first_reply);
  }

  void messagesSplitAtTheirCodeBlocks() {
    const auto parts = split_message(QStringLiteral(
        "Here:\n```python\nprint('# x')\n\nx = 1\n```\nthen\n~~~\nplain\n~~~\n```js\nopen("));
    QCOMPARE(parts.size(), 5);
    QVERIFY(!parts[0].code);
    QCOMPARE(parts[0].text, QStringLiteral("Here:"));
    QVERIFY(parts[1].code);
    QCOMPARE(parts[1].language, QStringLiteral("python"));
    QCOMPARE(parts[1].text, QStringLiteral("print('# x')\n\nx = 1"));
    QVERIFY(parts[1].closed);
    QCOMPARE(parts[2].text, QStringLiteral("then"));
    QCOMPARE(parts[3].language, QString());
    QCOMPARE(parts[3].text, QStringLiteral("plain"));
    // A block still being written runs to the end.
    QCOMPARE(parts[4].language, QStringLiteral("js"));
    QCOMPARE(parts[4].text, QStringLiteral("open("));
    QVERIFY(!parts[4].closed);
    // No fences: one prose segment, as typed.
    const auto prose = split_message(QStringLiteral("# x\n``not a fence``"));
    QCOMPARE(prose.size(), 1);
    QCOMPARE(prose[0].text, QStringLiteral("# x\n``not a fence``"));
  }
};

QTEST_GUILESS_MAIN(TestReplyVersions)
#include "test_reply_versions.moc"
