// The context meter (issue 43 point 1): one live figure of how full the context is, said
// the same way by the meter, the status line, the panel and the banners; never a "full"
// or a figure gone stale after an edit; and the typed message's cost before it is sent.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "demo_chat.h"
#include "kvchat/model.h"
#include "kvchat/tokenizer.h"
#include "memory/context_meter.h"
#include "messages/message_list_model.h"

using kvchat::app::ChatController;
using kvchat::app::ContextFigures;
using kvchat::app::describe_context;
using kvchat::app::testing::kDemoModel;
using kvchat::app::testing::load_demo;

namespace {

ContextFigures figures(qint64 tokens, qint64 max, const QString& policy = "drop-oldest") {
  ContextFigures f;
  f.tokens = tokens;
  f.max = max;
  f.usage_text = QStringLiteral("%1 of %2 tokens").arg(tokens).arg(max);
  f.policy = policy;
  return f;
}

bool send_and_wait(ChatController& chat, const QString& text) {
  if (!chat.send(text)) return false;
  return QTest::qWaitFor([&] { return !chat.generating(); }, 120000);
}

}  // namespace

class TestContextMeter : public QObject {
  Q_OBJECT
 private slots:
  void theLevelFollowsTheFigures() {
    auto v = describe_context(figures(268, 512));
    QCOMPARE(v.level, QStringLiteral("room"));
    QCOMPARE(v.percent, 52);  // 26800 / 512 = 52.3, rounded down
    QCOMPARE(v.sentence, QStringLiteral("Context: 268 of 512 tokens."));
    v = describe_context(figures(461, 512));  // 90.04%
    QCOMPARE(v.level, QStringLiteral("almost"));
    QVERIFY2(v.sentence.contains("almost full") && v.sentence.contains("oldest whole turns"),
             qPrintable(v.sentence));
    v = describe_context(figures(460, 512));  // 89.8%
    QCOMPARE(v.level, QStringLiteral("room"));
    v = describe_context(figures(512, 512));
    QCOMPARE(v.level, QStringLiteral("full"));
    QCOMPARE(v.percent, 100);
    // A reply that found no room is full whatever the count says.
    auto f = figures(500, 512, "shift");
    f.full = true;
    v = describe_context(f);
    QCOMPARE(v.level, QStringLiteral("full"));
    QVERIFY2(v.sentence.contains("is full") && v.sentence.contains("shifted out"),
             qPrintable(v.sentence));
    f.policy = QStringLiteral("sink-window");
    v = describe_context(f);
    QVERIFY2(v.sentence.contains("first tokens and the system prompt stay"),
             qPrintable(v.sentence));
    QCOMPARE(describe_context(figures(0, 0)).level, QStringLiteral("none"));
    QVERIFY(describe_context(figures(0, 0)).sentence.isEmpty());
  }

  void theDraftCostSaysWhetherItFits() {
    auto f = figures(400, 512, "stop");
    f.draft_tokens = 112;  // exactly what is left
    auto v = describe_context(f);
    QVERIFY(!v.draft_overflows);
    QCOMPARE(v.draft_text, QStringLiteral("+112"));
    QCOMPARE(v.draft_sentence, QStringLiteral("This message: 112 tokens of the 112 left."));
    f.draft_tokens = 113;
    v = describe_context(f);
    QVERIFY(v.draft_overflows);
    QVERIFY2(v.draft_sentence.contains("more than the 112 left") &&
                 v.draft_sentence.contains("start a new chat"),
             qPrintable(v.draft_sentence));
    f.draft_tokens = -1;
    QVERIFY(describe_context(f).draft_text.isEmpty());
  }

  // A full context, then an edit answered within the room: the status line, the meter and
  // the panel say the context as it is now, never "full" or "no room" from before.
  void theStatusLineIsLiveAfterAnEdit() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemoModel, {{"context_policy", "stop"}, {"ctx", 128}});
    QVERIFY(load_demo(chat));
    auto* meter = chat.context_meter();
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 1000}});
    QVERIFY(send_and_wait(chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    QTest::qWait(100);
    QCOMPARE(chat.notices()->notice().value("kind").toString(), QStringLiteral("context-full"));
    QCOMPARE(meter->level(), QStringLiteral("full"));
    const QString usage = chat.memory_state()->context_usage().value("text").toString();
    QCOMPARE(meter->usage_text(), usage);
    // The banner says the meter's figures and what the next message meets.
    const QString banner = chat.notices()->notice().value("text").toString();
    QVERIFY2(banner.contains(usage) && banner.contains(meter->when_full()), qPrintable(banner));
    QCOMPARE(chat.last_event(), meter->sentence());

    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 4}});
    QVERIFY(chat.editMessage(0, QStringLiteral("Psalms 23")));
    QVERIFY(QTest::qWaitFor([&] { return !chat.generating(); }, 60000));
    QTest::qWait(100);
    const auto rows = static_cast<kvchat::app::MessageListModel*>(chat.messages());
    QCOMPARE(rows->rowCount(), 2);
    QVERIFY2(meter->tokens() < 64, qPrintable(meter->usage_text()));
    QCOMPARE(meter->level(), QStringLiteral("room"));
    const QString line = chat.last_event();
    QVERIFY2(!line.contains("full") && !line.contains("no room"), qPrintable(line));
    QVERIFY2(line.isEmpty() || !line.contains('%') ||
                 line.contains(chat.memory_state()->context_usage().value("text").toString()),
             qPrintable(line));
  }

  // The typed message's cost: its own tokens and the chat format's turn around them.
  void theDraftIsCountedWithTheModelsFormat() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load_demo(chat));
    auto* meter = chat.context_meter();
    QCOMPARE(meter->draft_tokens(), -1);
    const QString text =
        QStringLiteral("Genesis 2\n1 Thus the heavens and the earth were finished");
    meter->setDraft(text);
    QVERIFY(QTest::qWaitFor([&] { return meter->draft_tokens() > 0; }, 5000));
    auto model = kvchat::Model::load(kDemoModel.toStdString());
    QVERIFY(model);
    const int own =
        static_cast<int>((*model)->tokenizer().encode(text.toStdString(), false).size());
    QVERIFY2(
        meter->draft_tokens() >= own && meter->draft_tokens() <= own + 16,
        qPrintable(
            QStringLiteral("%1 counted, the text alone %2").arg(meter->draft_tokens()).arg(own)));
    QVERIFY(meter->draft_text().contains(QString::number(meter->draft_tokens())));
    meter->setDraft(QStringLiteral("  "));
    QCOMPARE(meter->draft_tokens(), -1);
    QVERIFY(meter->draft_text().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestContextMeter)
#include "test_context_meter.moc"
