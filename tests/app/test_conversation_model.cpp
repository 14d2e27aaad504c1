// Which model a conversation belongs to, and the model the window opens at start
// (app/conversation_model.h), against cases worked out by hand.
#include <QSet>
#include <QtTest>

#include "conversations/conversation_model.h"

using kvchat::app::ConversationModel;

class TestConversationModel : public QObject {
  Q_OBJECT
 private slots:
  void theModelRoundTripsAndKeepsTheOtherSettings() {
    const QVariantMap before{{"temperature", 0.7}, {"model_path", "/old.gguf"}};
    const QVariantMap after = kvchat::app::with_conversation_model(
        before, ConversationModel{"/m/a.gguf", "00ab00ab00ab00ab"});
    QCOMPARE(after.value("temperature").toDouble(), 0.7);
    const ConversationModel m = kvchat::app::conversation_model(after);
    QCOMPARE(m.path, QStringLiteral("/m/a.gguf"));
    QCOMPARE(m.identity, QStringLiteral("00ab00ab00ab00ab"));
    QVERIFY(kvchat::app::conversation_model(QVariantMap{}).path.isEmpty());  // never used
  }

  void theStartModelIsAskedThenTheConversationsThenTheLastThatExists() {
    const QSet<QString> on_disk{"/m/conv.gguf", "/m/recent2.gguf", "/demo.gguf"};
    const auto exists = [&](const QString& p) { return on_disk.contains(p); };
    const QStringList recent{"/m/gone.gguf", "/m/recent2.gguf"};
    using kvchat::app::model_to_open_at_start;
    QCOMPARE(model_to_open_at_start("/asked.gguf", "/m/conv.gguf", recent, "/demo.gguf", exists),
             QStringLiteral("/asked.gguf"));  // asked for: even when missing (the load says why)
    QCOMPARE(model_to_open_at_start("", "/m/conv.gguf", recent, "/demo.gguf", exists),
             QStringLiteral("/m/conv.gguf"));
    QCOMPARE(
        model_to_open_at_start("", "/m/gone.gguf", recent, "/demo.gguf", exists),
        QStringLiteral("/m/recent2.gguf"));  // the conversation's is gone; the newest that exists
    QCOMPARE(model_to_open_at_start("", "", {"/m/gone.gguf"}, "/demo.gguf", exists),
             QStringLiteral("/demo.gguf"));
  }
};

QTEST_GUILESS_MAIN(TestConversationModel)
#include "test_conversation_model.moc"
