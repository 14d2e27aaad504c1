// A chat never ends in an empty bubble (issue 13 point 3): under the default context policy
// a conversation many times longer than the context keeps replying, and says in the panel
// what was dropped; under `stop` a full context leaves the user's message with no empty
// reply after it, and offers a new chat, the conversation summarized into a new one (which
// then answers the message), and another policy (which answers it too).
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "messages/message_list_model.h"

using kvchat::app::ChatController;
using kvchat::app::MessageListModel;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

const MessageListModel& rows(ChatController& chat) {
  return *static_cast<MessageListModel*>(chat.messages());
}

int empty_replies(ChatController& chat) {
  int n = 0;
  for (const auto& m : rows(chat).items())
    n += m.role == QLatin1String("assistant") && m.content.isEmpty();
  return n;
}

QStringList action_ids(const QVariantMap& notice) {
  QStringList ids;
  for (const QVariant& a : notice.value(QStringLiteral("actions")).toList()) {
    ids << a.toMap().value(QStringLiteral("id")).toString();
  }
  return ids;
}

bool load(ChatController& chat) {
  chat.models()->loadModel(kDemo);
  return QTest::qWaitFor(
      [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000);
}

// Sends `text` and waits until the reply ended (finished, or dropped with a banner).
bool send_and_wait(ChatController& chat, const QString& text) {
  if (!chat.send(text)) return false;
  return QTest::qWaitFor([&] { return !chat.generating(); }, 120000);
}

const char* kVerses[] = {
    "Genesis 1\n1 In the beginning",        "Exodus 3\n1 Now Moses kept the flock",
    "Psalms 23\n1 The LORD is my shepherd", "John 1\n1 In the beginning was the Word",
    "Ruth 1\n1 Now it came to pass",        "Isaiah 40\n1 Comfort ye"};

}  // namespace

class TestContextFull : public QObject {
  Q_OBJECT
 private:
  // Six exchanges through a context of 128 under `policy`: every reply has words, and the
  // note says what made room.
  void keepsGoingAndSaysSo(const char* policy, const QString& note_start) {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemo, {{"context_policy", policy}, {"ctx", 128}});
    QVERIFY(load(chat));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 48}});
    for (int i = 0; i < 6; ++i) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[i])));
      QCOMPARE(rows(chat).rowCount(), 2 * (i + 1));
      QVERIFY(!rows(chat).items().back().content.isEmpty());
    }
    QVERIFY2(chat.context_notice().startsWith(note_start), qPrintable(chat.context_notice()));
    QVERIFY(chat.notices()->notice().isEmpty());
  }

 private slots:
  void theDefaultPolicyKeepsTheConversationGoing() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QCOMPARE(chat.models()->engine_settings().value("context_policy").toString(),
             QStringLiteral("drop-oldest"));
    QVERIFY(load(chat));
    const int n_ctx = chat.models()->info().value("n_ctx").toInt();
    QCOMPARE(n_ctx, 512);
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 200}});
    int generated = 0;
    for (int i = 0; i < 8; ++i) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[i % 6])));
      QCOMPARE(rows(chat).rowCount(), 2 * (i + 1));
      const auto& reply = rows(chat).items().back();
      QCOMPARE(reply.role, QStringLiteral("assistant"));
      QVERIFY2(!reply.content.isEmpty(),
               qPrintable(QStringLiteral("reply %1 is empty").arg(i + 1)));
      generated += reply.stats.value("generated_tokens").toInt();
      QVERIFY(chat.notices()->notice().isEmpty());
    }
    QCOMPARE(empty_replies(chat), 0);
    QVERIFY2(generated > 2 * n_ctx,
             qPrintable(QString::number(generated)));  // the context filled several times over
    QVERIFY2(chat.context_notice().startsWith(QStringLiteral("Oldest turns dropped to make room:")),
             qPrintable(chat.context_notice()));
    // A conversation of its own starts with no such note.
    chat.newConversation();
    QVERIFY(chat.context_notice().isEmpty());
  }

  void theShiftPolicyKeepsGoingAndSaysSo() {
    keepsGoingAndSaysSo("shift", QStringLiteral("Oldest tokens shifted out to make room:"));
  }

  void theSinkWindowPolicyKeepsGoingAndSaysSo() {
    keepsGoingAndSaysSo("sink-window",
                        QStringLiteral("The oldest tokens after the start left to make room:"));
  }

  void aFullContextUnderStopOffersItsActionsAndNoEmptyBubble() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemo, {{"context_policy", "stop"}, {"ctx", 128}});
    QVERIFY(load(chat));
    QCOMPARE(chat.models()->info().value("n_ctx").toInt(), 128);
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 48}});
    int sent = 0;
    while (chat.notices()->notice().value("kind").toString() != QLatin1String("context-full") &&
           sent < 10) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[sent % 6])));
      ++sent;
    }
    QCOMPARE(chat.notices()->notice().value("kind").toString(), QStringLiteral("context-full"));
    QCOMPARE(empty_replies(chat), 0);
    const QStringList ids = action_ids(chat.notices()->notice());
    QVERIFY2(ids.contains("new_chat") && ids.contains("summarize") && ids.contains("change_policy"),
             qPrintable(ids.join(',')));
    // Fill it until a message gets no reply at all: it stays, with no bubble after it.
    while (rows(chat).items().back().role != QLatin1String("user") && sent < 12) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[sent % 6])));
      ++sent;
    }
    QCOMPARE(rows(chat).items().back().role, QStringLiteral("user"));
    QCOMPARE(empty_replies(chat), 0);
    QCOMPARE(chat.notices()->notice().value("kind").toString(), QStringLiteral("context-full"));
    QVERIFY(chat.notices()->notice().value("text").toString().contains(QStringLiteral("kept")));
    // Another message would find no room either: refused, the text kept for the box.
    const int count = rows(chat).rowCount();
    QVERIFY(!chat.send(QStringLiteral("Genesis 2")));
    QCOMPARE(rows(chat).rowCount(), count);

    // Summarize and continue: a new conversation, the summary its system prompt, and the
    // unanswered message answered there.
    const qint64 before = chat.current_conversation();
    const QString unanswered = rows(chat).items().back().content;
    chat.notices()->noticeAction(QStringLiteral("summarize"));
    QVERIFY(QTest::qWaitFor(
        [&] { return chat.current_conversation() != before || !chat.generating(); }, 120000));
    QVERIFY2(chat.current_conversation() != before,
             qPrintable(chat.notices()->notice().value("text").toString()));
    QVERIFY(
        chat.system_prompt().startsWith(QStringLiteral("A summary of the conversation so far:")));
    QVERIFY2(chat.system_prompt().size() > 40, qPrintable(chat.system_prompt()));
    QVERIFY(
        QTest::qWaitFor([&] { return !chat.generating() && rows(chat).rowCount() == 2; }, 120000));
    QCOMPARE(rows(chat).items().at(0).content, unanswered);
    auto* list = chat.conversation_list()->list_model();
    bool titled = false;
    for (int r = 0; r < list->rowCount(); ++r) {
      titled |= list->index(r, 0)
                    .data(kvchat::app::ConversationListModel::TitleRole)
                    .toString()
                    .startsWith(QStringLiteral("Continued: "));
    }
    QVERIFY(titled);
    QVERIFY(!rows(chat).items().at(1).content.isEmpty());
  }

  // The full-context banner belongs to the reply that ran out of room: the next reply that
  // finds room (the policy dropped the oldest turn) ends it.
  void aReplyThatFindsRoomEndsTheFullContextBanner() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemo,
                                           {{"context_policy", "drop-oldest"}, {"ctx", 128}});
    QVERIFY(load(chat));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 400}});
    QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[0])));
    QCOMPARE(rows(chat).items().back().stats.value("stop_reason").toString(),
             QStringLiteral("context-full"));
    QCOMPARE(chat.notices()->notice().value("kind").toString(), QStringLiteral("context-full"));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 8}});
    QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[1])));
    QCOMPARE(rows(chat).rowCount(), 4);
    QVERIFY(!rows(chat).items().back().content.isEmpty());
    QVERIFY2(rows(chat).items().back().stats.value("stop_reason").toString() !=
                 QStringLiteral("context-full"),
             qPrintable(rows(chat).items().back().stats.value("stop_reason").toString()));
    QVERIFY2(chat.notices()->notice().value("kind").toString() != QStringLiteral("context-full"),
             qPrintable(chat.notices()->notice().value("text").toString()));
  }

  void changingThePolicyAnswersTheMessage() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemo, {{"context_policy", "stop"}, {"ctx", 96}});
    QVERIFY(load(chat));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 48}});
    int sent = 0;
    while (
        (rows(chat).rowCount() == 0 || rows(chat).items().back().role != QLatin1String("user")) &&
        sent < 12) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(kVerses[sent % 6])));
      ++sent;
    }
    QCOMPARE(rows(chat).items().back().role, QStringLiteral("user"));
    QVERIFY(action_ids(chat.notices()->notice()).contains("change_policy"));
    const int count = rows(chat).rowCount();
    chat.notices()->noticeAction(QStringLiteral("change_policy"));
    QVERIFY(QTest::qWaitFor(
        [&] {
          return !chat.models()->loading() && !chat.generating() &&
                 rows(chat).rowCount() == count + 1;
        },
        120000));
    QCOMPARE(chat.models()->engine_settings().value("context_policy").toString(),
             QStringLiteral("drop-oldest"));
    QVERIFY(!rows(chat).items().back().content.isEmpty());
    QCOMPARE(empty_replies(chat), 0);
  }
};

QTEST_GUILESS_MAIN(TestContextFull)
#include "test_context_full.moc"
