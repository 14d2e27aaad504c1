// The status line and the figures it shares with the memory panel (issue 26 point 8): a
// sentence with a label (never an internal event name such as "turns-dropped:"), the chat
// format said again after a template override, the context's percentage the panel's, what
// the policy did said without "(the first 0 kept) ... the 0 that follow", counts grouped,
// and a reply's figures shown only with the model that wrote it.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "documents/summary_job.h"

using kvchat::app::ChatController;
using kvchat::app::count_text;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

bool load(ChatController& chat, const QString& path = kDemo) {
  chat.models()->loadModel(path);
  return QTest::qWaitFor(
      [&] {
        return !chat.models()->loading() && chat.models()->info().value("path").toString() == path;
      },
      60000);
}

bool send_and_wait(ChatController& chat, const QString& text) {
  if (!chat.send(text)) return false;
  return QTest::qWaitFor([&] { return !chat.generating(); }, 120000);
}

bool is_sentence(const QString& line) {
  return !line.isEmpty() && !QRegularExpression(QStringLiteral("^[a-z-]+:")).match(line).hasMatch();
}

}  // namespace

class TestStatusLine : public QObject {
  Q_OBJECT

 private slots:
  void countsAreGroupedEvenInTheCLocale() {
    QCOMPARE(count_text(3887), QStringLiteral("3,887"));
    QCOMPARE(count_text(42073), QStringLiteral("42,073"));
    QCOMPARE(count_text(512), QStringLiteral("512"));
    kvchat::SummaryPlan plan;
    plan.document_tokens = 42073;
    plan.n_chunks = 11;
    plan.n_levels = 2;
    plan.tokens_to_process = 53887;
    QCOMPARE(kvchat::app::plan_text(plan),
             QStringLiteral("11 chunks of about 3,825 tokens, 2 levels of merging, about 53,887 "
                            "tokens to process"));
  }

  void theChatFormatIsSaidAgainAfterAnOverride() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load(chat));
    const auto said = [&] {
      return chat.last_event() ==
             QStringLiteral("Chat format: ") +
                 chat.models()->info().value("chat_format_description").toString();
    };
    QVERIFY2(said(), qPrintable(chat.last_event()));
    chat.models()->setChatTemplateOverride(QStringLiteral("builtin:llama3"));
    QVERIFY(QTest::qWaitFor(
        [&] { return chat.models()->info().value("chat_format_kind").toString() == "llama3"; },
        10000));
    QVERIFY2(said(), qPrintable(chat.last_event()));
    QVERIFY(chat.last_event().contains(QStringLiteral("llama3")));
  }

  void whatThePolicyDidIsASentenceWithThePanelsFigures() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_engine_settings_for(kDemo, {{"ctx", 128}});
    QVERIFY(load(chat));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 48}});
    const char* verses[] = {
        "Genesis 1\n1 In the beginning",        "Exodus 3\n1 Now Moses kept the flock",
        "Psalms 23\n1 The LORD is my shepherd", "John 1\n1 In the beginning was the Word",
        "Ruth 1\n1 Now it came to pass",        "Isaiah 40\n1 Comfort ye"};
    bool percent_seen = false;
    for (const char* verse : verses) {
      QVERIFY(send_and_wait(chat, QString::fromUtf8(verse)));
      QTest::qWait(100);  // the last figures reach the window
      const QString line = chat.last_event();
      QVERIFY2(is_sentence(line), qPrintable(line));
      QVERIFY2(!line.contains(QStringLiteral("the first 0 kept")) &&
                   !line.contains(QStringLiteral("the 0 that follow")),
               qPrintable(line));
      const QVariantMap usage = chat.memory_state()->context_usage();
      const int percent = usage.value("percent").toInt();
      QCOMPARE(percent, int(100 * chat.memory_state()->memory().value("kv_tokens").toLongLong() /
                            chat.memory_state()->memory().value("kv_max_tokens").toLongLong()));
      if (line.contains(QLatin1Char('%'))) {
        percent_seen = true;
        QVERIFY2(line.contains(usage.value("text").toString()), qPrintable(line));
      }
    }
    QVERIFY2(chat.context_notice().startsWith(QStringLiteral("Oldest turns dropped to make room:")),
             qPrintable(chat.context_notice()));
    QVERIFY2(!chat.context_notice().contains(
                 QRegularExpression(QStringLiteral("(^|[^0-9,])0 evaluated again"))),
             qPrintable(chat.context_notice()));
    QVERIFY(percent_seen);
  }

  void theLastReplyBelongsToItsModel() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    QVERIFY(load(chat));
    chat.models()->set_sampling({{"temperature", 0.0}, {"max_tokens", 8}});
    QVERIFY(send_and_wait(chat, QStringLiteral("Genesis 1\n1 In the beginning")));
    QVERIFY(chat.conversation_reply_stats().contains("generated_tokens"));
    QCOMPARE(chat.conversation_reply_stats().value("model_identity"),
             chat.models()->info().value("identity"));
    // Another model file (a copy reads as the same model: its identity is the content's).
    const QString stories = QStringLiteral(KVCHAT_SHARED_DIR "/models/stories260K.gguf");
    if (!QFileInfo::exists(stories)) QSKIP("no stories260K.gguf");
    QVERIFY(load(chat, stories));
    QVERIFY2(chat.conversation_reply_stats().isEmpty(),
             "the demo model's reply is shown on stories260K");
    QVERIFY(load(chat));  // back: its reply is the conversation's last again
    QVERIFY(chat.conversation_reply_stats().contains("generated_tokens"));
  }
};

QTEST_GUILESS_MAIN(TestStatusLine)
#include "test_status_line.moc"
