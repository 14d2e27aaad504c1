// The list models QML binds to, checked with Qt's QAbstractItemModelTester (which
// verifies every signal and index invariant) and against exact expected contents.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "conversations/conversation_list_model.h"
#include "messages/message_list_model.h"

using namespace kvchat::app;

class ListModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void messagesStreamAndTruncate() {
    MessageListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    StoredMessage user;
    user.id = 1;
    user.role = "user";
    user.content = "Genesis 1";
    model.append(user);
    StoredMessage reply;
    reply.id = 2;
    reply.role = "assistant";
    reply.state = MessageState::Streaming;
    model.append(reply);
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.append_to_last(" In the");
    model.append_to_last(" beginning");
    QCOMPARE(changed.count(), 2);
    const QModelIndex last = model.index(1);
    QCOMPARE(model.data(last, MessageListModel::ContentRole).toString(),
             QString(" In the beginning"));
    QCOMPARE(model.data(last, MessageListModel::StateRole).toString(), QString("streaming"));
    model.update_last(MessageState::Complete, {{"generated_tokens", 3}});
    QCOMPARE(model.data(last, MessageListModel::StateRole).toString(), QString("complete"));
    QCOMPARE(
        model.data(last, MessageListModel::StatsRole).toMap().value("generated_tokens").toInt(), 3);
    QCOMPARE(model.roleNames().value(MessageListModel::ContentRole), QByteArray("content"));
    model.truncate(1);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.data(model.index(0), MessageListModel::RoleRole).toString(), QString("user"));
    model.reset({});
    QCOMPARE(model.rowCount(), 0);
    model.append_to_last("ignored");  // no message: nothing happens
    QCOMPARE(model.rowCount(), 0);
  }

  void conversationsResetAndFind() {
    ConversationListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    StoredConversation a, b;
    a.id = 7;
    a.title = "Psalms";
    b.id = 9;
    b.title = "Ruth";
    model.reset({a, b});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(1), ConversationListModel::TitleRole).toString(),
             QString("Ruth"));
    QCOMPARE(model.row_of(9), 1);
    QCOMPARE(model.row_of(8), -1);
    QCOMPARE(model.roleNames().value(ConversationListModel::IdRole), QByteArray("conversationId"));
  }
};

QTEST_GUILESS_MAIN(ListModelsTest)
#include "test_list_models.moc"
