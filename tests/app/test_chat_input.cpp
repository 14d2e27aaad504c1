// Nothing typed is lost: a message sent before a model is loaded (or while it loads) is
// refused with the reason, so the window keeps it in the box; once the model is there the
// same text is taken.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "messages/message_list_model.h"

using kvchat::app::ChatController;

class TestChatInput : public QObject {
  Q_OBJECT
 private slots:
  void aMessageWithoutAModelIsRefusedWithTheReasonThenTaken() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QSignalSpy errors(&chat, &ChatController::errorOccurred);
    QVERIFY(!chat.send(QStringLiteral("Genesis 1")));
    QCOMPARE(errors.count(), 1);
    QVERIFY2(errors.at(0).at(0).toString().contains(QStringLiteral("kept")),
             qPrintable(errors.at(0).at(0).toString()));
    QCOMPARE(static_cast<kvchat::app::MessageListModel*>(chat.messages())->rowCount(), 0);

    chat.models()->loadModel(
        QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf"));
    if (chat.models()->loading()) {
      QVERIFY(!chat.send(QStringLiteral("Genesis 1")));  // still loading: kept, said
      QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("loading")));
    }
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000));
    QSignalSpy finished(&chat, &ChatController::replyFinished);
    QVERIFY(chat.send(QStringLiteral("Genesis 1")));
    QVERIFY(finished.wait(60000) || finished.count() > 0);
    QCOMPARE(static_cast<kvchat::app::MessageListModel*>(chat.messages())->rowCount(), 2);
  }
};

QTEST_GUILESS_MAIN(TestChatInput)
#include "test_chat_input.moc"
