// A model not trained to follow instructions, and the document card (issue 43, point 8):
// whether a model is instruction-tuned (model/instruction_tuned.h: a chat template in the
// file, not sent as plain text), the demo model's warning before Summarize (asked first,
// then "Summarize anyway" or a second Summarize starts the job; Cancel starts nothing),
// and why "Send whole" is off for a document that does not fit (the tokens it needs
// against the context's).
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "demo_chat.h"
#include "documents/document_controller.h"
#include "model/instruction_tuned.h"
#include "model/model_controller.h"

using namespace kvchat::app;
using kvchat::app::testing::load_demo;

namespace {

const QString kTemplate = QStringLiteral(
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}");

QVariantMap info(const QString& file_template, const QString& source, const QString& kind,
                 const QString& override_text = {}) {
  return {{"chat_template", file_template},
          {"chat_format_source", source},
          {"chat_format_kind", kind},
          {"chat_template_override", override_text}};
}

// A preview whose summary plan is counted (Summarize can start).
bool summary_ready(DocumentController& docs) {
  return QTest::qWaitFor(
      [&] { return docs.preview().value(QStringLiteral("can_summarize")).toBool(); }, 60000);
}

}  // namespace

class TestSummaryWarning : public QObject {
  Q_OBJECT

 private slots:
  // The decision on model-info maps (Models.modelInfo's keys).
  void instructionTunedFromTheModelInfo() {
    // No template in the file (the demo, a base model): never, whatever the format.
    QVERIFY(!instruction_tuned(info({}, "builtin", "completion")));
    QVERIFY(!instruction_tuned(info({}, "override", "chatml", "builtin:chatml")));
    QVERIFY(!instruction_tuned(info({}, "override", "completion", kTemplate)));
    // The file's own template.
    QVERIFY(instruction_tuned(info(kTemplate, "file", "chatml")));
    QVERIFY(instruction_tuned(info(kTemplate, "file", "completion")));  // markers unknown
    // A template that does not parse: the built-in fallback its markers name.
    QVERIFY(instruction_tuned(info(kTemplate, "builtin", "chatml")));
    QVERIFY(!instruction_tuned(info(kTemplate, "builtin", "completion")));
    // Overrides: a chat format keeps it; the plain completion format sends text to continue.
    QVERIFY(instruction_tuned(info(kTemplate, "override", "llama3", "builtin:llama3")));
    QVERIFY(instruction_tuned(info(kTemplate, "override", "completion", "{{ messages }}")));
    QVERIFY(!instruction_tuned(info(kTemplate, "override", "completion", "builtin:completion")));
    // An empty map (no model): no.
    QVERIFY(!instruction_tuned(QVariantMap()));
  }

  // The demo model: modelInfo says it is not instruction-tuned; Summarize asks first; Cancel
  // starts nothing; asked again, a second Summarize starts the job.
  void theDemoModelIsWarnedBeforeSummarize() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    DocumentController& docs = *chat.document_controller();
    QVERIFY(docs.summary_warning().isEmpty());  // no model: nothing to warn about
    QVERIFY(load_demo(chat));
    QCOMPARE(chat.models()->info().value("is_demo").toBool(), true);
    QCOMPARE(chat.models()->info().value("instruction_tuned").toBool(), false);
    QVERIFY(chat.models()->info().contains("instruction_tuned"));
    QVERIFY2(docs.summary_warning().contains("King James"), qPrintable(docs.summary_warning()));

    docs.attachText(QStringLiteral("In the beginning God created the heaven and the earth."));
    QVERIFY(summary_ready(docs));
    QCOMPARE(docs.preview().value("summary_warning").toString(), docs.summary_warning());
    QCOMPARE(docs.preview().value("summary_confirm").toBool(), false);

    docs.summarize();  // asks
    QVERIFY(!docs.summarizing());
    QCOMPARE(docs.preview().value("summary_confirm").toBool(), true);
    docs.cancelSummaryWarning();
    QVERIFY(!docs.summarizing());
    QCOMPARE(docs.preview().value("summary_confirm").toBool(), false);
    QVERIFY(!docs.preview().isEmpty());  // the document stays, its buttons too

    docs.summarize();  // asks again
    QVERIFY(!docs.summarizing());
    QCOMPARE(docs.preview().value("summary_confirm").toBool(), true);
    docs.summarize();  // Ctrl+Shift+S again: summarize anyway
    QVERIFY(docs.summarizing());
    docs.cancelSummary();
    QVERIFY(QTest::qWaitFor([&] { return !docs.summarizing(); }, 30000));

    // "Summarize anyway" starts at once.
    docs.attachText(QStringLiteral("And the earth was without form, and void."));
    QVERIFY(summary_ready(docs));
    docs.summarizeAnyway();
    QVERIFY(docs.summarizing());
    docs.cancelSummary();
    QVERIFY(QTest::qWaitFor([&] { return !docs.summarizing(); }, 30000));
  }

  // Send whole is off for a document longer than the context, and the preview says why with
  // the tokens it needs and the context's; a short one is offered with no reason against it.
  void sendWholeSaysWhyItIsOff() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    DocumentController& docs = *chat.document_controller();
    QVERIFY(load_demo(chat));
    QString longText;
    for (int i = 0; i < 300; ++i)
      longText += QStringLiteral("And God said, Let there be light: and there was light. ");
    docs.attachText(longText);
    QVERIFY(QTest::qWaitFor(
        [&] { return docs.preview().contains(QStringLiteral("context_needed")); }, 60000));
    const QVariantMap p = docs.preview();
    const qint64 needed = p.value("context_needed").toLongLong();
    const int n_ctx = p.value("n_ctx").toInt();
    QVERIFY2(needed > n_ctx, qPrintable(QStringLiteral("%1 of %2").arg(needed).arg(n_ctx)));
    QCOMPARE(p.value("can_send_whole").toBool(), false);
    const QString why = p.value("send_whole_why_not").toString();
    QVERIFY2(why.contains(QLocale().toString(needed)) && why.contains(QLocale().toString(n_ctx)),
             qPrintable(why));

    docs.attachText(QStringLiteral("In the beginning God created the heaven and the earth."));
    QVERIFY(QTest::qWaitFor(
        [&] { return docs.preview().value(QStringLiteral("can_send_whole")).toBool(); }, 60000));
    QVERIFY(docs.preview().value("send_whole_why_not").toString().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestSummaryWarning)
#include "test_summary_warning.moc"
