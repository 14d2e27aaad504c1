// Issue 29 point 1 (the window): a reply's reasoning is shown apart from its answer. The
// stored text stays the raw sampled text (markers included: the model's template decides
// how history renders it); MessageListModel splits it for the bubble (roles thinking,
// answer, segments of the answer), from its start when its stats say the prompt opened the
// reasoning (DeepSeek-R1's "<think>\n"), and a streaming row's parts follow each chunk.
#include <QSignalSpy>
#include <QtTest>

#include "messages/message_list_model.h"

using namespace kvchat::app;

namespace {

StoredMessage reply(const QString& content, const QVariantMap& stats = {}) {
  StoredMessage m;
  m.role = QStringLiteral("assistant");
  m.content = content;
  m.stats = stats;
  return m;
}

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
};

QTEST_GUILESS_MAIN(TestReplyParts)
#include "test_reply_parts.moc"
