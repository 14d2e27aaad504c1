// Issue 29 point 1 (the window): a reply's reasoning is shown apart from its answer. The
// stored text stays the raw sampled text (markers included: the model's template decides
// how history renders it); MessageListModel splits it for the bubble (roles thinking,
// answer, segments of the answer), from its start when its stats say the prompt opened the
// reasoning (DeepSeek-R1's "<think>\n"), and a streaming row's parts follow each chunk.
// Issue 43 point 3: a finished reply that is all reasoning is "answerMissing" (its bubble
// keeps the reasoning open and says there is no answer yet), and Copy copies what is shown:
// its reasoning then, a reply's answer otherwise.
#include <QSignalSpy>
#include <QtTest>

#include "messages/message_list_model.h"

using namespace kvchat::app;

namespace {

StoredMessage reply(const QString& content, const QVariantMap& stats = {},
                    MessageState state = MessageState::Complete) {
  StoredMessage m;
  m.role = QStringLiteral("assistant");
  m.content = content;
  m.stats = stats;
  m.state = state;
  return m;
}

const QVariantMap kCutAtLength{{QStringLiteral("stop_reason"), QStringLiteral("max-tokens")}};

const QVariantMap kOpenedByPrompt{{QStringLiteral("thinking_opened_by_prompt"), true}};

}  // namespace

class TestReplyParts : public QObject {
  Q_OBJECT

 private slots:
  void replyOpeningItsReasoning() {
    const ReplyParts p = reply_parts(reply(QStringLiteral(
        "<think>\nThe verse first.\n</think>\n\nIn the beginning God created the heaven.")));
    QCOMPARE(p.thinking, QStringLiteral("The verse first."));
    QCOMPARE(p.answer, QStringLiteral("In the beginning God created the heaven."));
  }

  void promptOpenedTheReasoning() {
    // The reply starts inside it: without the stats' flag the same text is all answer.
    const QString text = QStringLiteral("Counting the days.</think>And the evening");
    QCOMPARE(reply_parts(reply(text, kOpenedByPrompt)).thinking,
             QStringLiteral("Counting the days."));
    QCOMPARE(reply_parts(reply(text, kOpenedByPrompt)).answer, QStringLiteral("And the evening"));
    QCOMPARE(reply_parts(reply(text)).thinking, QString());
    QCOMPARE(reply_parts(reply(text)).answer, text);
  }

  void noReasoningAndUserText() {
    const QString plain = QStringLiteral("And God said, Let there be light");
    QCOMPARE(reply_parts(reply(plain)).answer, plain);
    QCOMPARE(reply_parts(reply(plain)).thinking, QString());
    // A marker later in the answer is answer text; a user's text is never split.
    const QString later = QStringLiteral("Write <think> literally");
    QCOMPARE(reply_parts(reply(later)).answer, later);
    StoredMessage user = reply(QStringLiteral("<think>mine</think>"));
    user.role = QStringLiteral("user");
    QCOMPARE(reply_parts(user).answer, user.content);
    QCOMPARE(reply_parts(user).thinking, QString());
  }

  void unclosedReasoningAtALengthStop() {
    const ReplyParts p = reply_parts(reply(QStringLiteral("<think>Let me count the")));
    QCOMPARE(p.thinking, QStringLiteral("Let me count the"));
    QCOMPARE(p.answer, QString());
  }

  void streamingRowFollowsEachChunk() {
    MessageListModel model;
    StoredMessage m = reply(QString());
    m.state = MessageState::Streaming;
    model.append(m);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const QModelIndex row = model.index(0);
    model.append_to_last(QStringLiteral("<thi"));
    QCOMPARE(model.data(row, MessageListModel::ThinkingRole).toString(), QString());
    model.append_to_last(QStringLiteral("nk>The first day"));
    QCOMPARE(model.data(row, MessageListModel::ThinkingRole).toString(),
             QStringLiteral("The first day"));
    QCOMPARE(model.data(row, MessageListModel::AnswerRole).toString(), QString());
    model.append_to_last(QStringLiteral("</think>\nLight."));
    QCOMPARE(model.data(row, MessageListModel::AnswerRole).toString(), QStringLiteral("Light."));
    const QVariantList segments = model.data(row, MessageListModel::SegmentsRole).toList();
    QCOMPARE(segments.size(), 1);
    QCOMPARE(segments.at(0).toMap().value(QStringLiteral("text")).toString(),
             QStringLiteral("Light."));
    QCOMPARE(changed.count(), 3);
    QVERIFY(changed.last().at(2).value<QList<int>>().contains(MessageListModel::ThinkingRole));
    // The raw text stays the content (what the next turn's template renders).
    QCOMPARE(model.data(row, MessageListModel::ContentRole).toString(),
             QStringLiteral("<think>The first day</think>\nLight."));
  }

  // A reply that ended while still reasoning (unclosed at a length stop, closed with nothing
  // after it, stopped inside a reasoning the prompt opened): the bubble shows its reasoning,
  // so that is what Copy copies; a reply with an answer copies the answer only.
  void copyCopiesTheReasoningOfAReplyWithNoAnswer() {
    MessageListModel model;
    model.reset({
        reply(QStringLiteral("<think>Let me count the days of"), kCutAtLength),
        reply(QStringLiteral("<think>\nThe first day.\n</think>\n\n  \n")),
        reply(QStringLiteral("Counting the evenings"),
              {{QStringLiteral("thinking_opened_by_prompt"), true},
               {QStringLiteral("stop_reason"), QStringLiteral("cancelled")}},
              MessageState::Interrupted),
        reply(QStringLiteral("<think>The verse first.</think>\n\nIn the beginning.")),
        reply(QStringLiteral("And God said, Let there be light")),
    });
    QCOMPARE(model.copy_text(0), QStringLiteral("Let me count the days of"));
    QCOMPARE(model.copy_text(1), QStringLiteral("The first day."));
    QCOMPARE(model.copy_text(2), QStringLiteral("Counting the evenings"));
    QCOMPARE(model.copy_text(3), QStringLiteral("In the beginning."));
    QCOMPARE(model.copy_text(4), QStringLiteral("And God said, Let there be light"));
    // What the bubble's Copy asks for (copy(row, "shown")) is the same text.
    for (int row = 0; row < 5; ++row)
      QCOMPARE(model.textOf(row, QStringLiteral("shown")), model.copy_text(row));
    QCOMPARE(model.textOf(0, QStringLiteral("answer")), QString());  // what Copy copied before
    QCOMPARE(model.copy_text(5), QString());                         // no such row
  }

  void aUsersTextIsCopiedAsStored() {
    MessageListModel model;
    StoredMessage user = reply(QStringLiteral("<think>mine"));
    user.role = QStringLiteral("user");
    model.reset({user});
    QCOMPARE(model.copy_text(0), QStringLiteral("<think>mine"));
    QCOMPARE(model.data(model.index(0), MessageListModel::AnswerMissingRole).toBool(), false);
  }

  // answerMissing: true exactly for a finished reply with reasoning and no answer.
  void answerMissingOnlyForAFinishedReplyThatIsAllReasoning() {
    MessageListModel model;
    model.reset({
        reply(QStringLiteral("<think>Let me count the days of"), kCutAtLength),
        reply(QStringLiteral("<think>\nThe first day.\n</think>\n\n")),
        reply(QStringLiteral("<think>Still thinking"), {}, MessageState::Streaming),
        reply(QStringLiteral("<think>The verse first.</think>\n\nIn the beginning.")),
        reply(QStringLiteral("And God said, Let there be light")),
        reply(QString(), kCutAtLength),
    });
    QCOMPARE(model.roleNames().value(MessageListModel::AnswerMissingRole),
             QByteArray("answerMissing"));
    const bool expected[] = {true, true, false, false, false, false};
    for (int row = 0; row < 6; ++row) {
      QCOMPARE(model.data(model.index(row), MessageListModel::AnswerMissingRole).toBool(),
               expected[row]);
    }
  }

  // A streaming reply that is all reasoning is not "missing" its answer until it ends; its
  // end (update_last) tells the bubble, and so does an answer that comes after a Continue.
  void answerMissingFollowsTheStreamingReply() {
    MessageListModel model;
    model.append(reply(QString(), {}, MessageState::Streaming));
    const QModelIndex row = model.index(0);
    model.append_to_last(QStringLiteral("<think>Let me count"));
    QCOMPARE(model.data(row, MessageListModel::AnswerMissingRole).toBool(), false);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.update_last(MessageState::Complete, kCutAtLength);
    QCOMPARE(model.data(row, MessageListModel::AnswerMissingRole).toBool(), true);
    QVERIFY(changed.last().at(2).value<QList<int>>().contains(MessageListModel::AnswerMissingRole));
    // Continue: streaming again, then the answer.
    model.update_last(MessageState::Streaming, kCutAtLength);
    QCOMPARE(model.data(row, MessageListModel::AnswerMissingRole).toBool(), false);
    model.append_to_last(QStringLiteral(" the days.</think>\nSeven."));
    model.update_last(MessageState::Complete, {});
    QCOMPARE(model.data(row, MessageListModel::AnswerMissingRole).toBool(), false);
    QCOMPARE(model.copy_text(0), QStringLiteral("Seven."));
  }
};

QTEST_GUILESS_MAIN(TestReplyParts)
#include "test_reply_parts.moc"
