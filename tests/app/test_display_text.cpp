// Issue 24 point 7 (the window): what a model file says about itself (general.name, the
// architecture, the tokenizer) reaches the window cut, so a 1 MB name cannot stall the
// header's layout; test_qml_plain_text checks that the window shows it as plain text.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "util/display_text.h"

using namespace kvchat::app;

namespace {

// The demo model with general.name set to `name`, written by the fake Hub's own GGUF
// editing (tests/hub/fake_hub.py), so the test does not depend on engine internals.
bool write_named_demo(const QString& out, const QString& name_expression) {
  const QString script =
      QStringLiteral(
          "import sys; sys.path.insert(0, '%1/tests/hub'); from fake_hub import with_string_value;"
          "d = open('%2/models/kjv-demo-f16.gguf', 'rb').read();"
          "open('%3', 'wb').write(with_string_value(d, 'general.name', (%4).encode()))")
          .arg(QStringLiteral(KVCHAT_SOURCE_DIR), QStringLiteral(KVCHAT_SHARED_DIR), out,
               name_expression);
  QProcess p;
  p.start(QStringLiteral("python3"), {QStringLiteral("-c"), script});
  return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

}  // namespace

class DisplayTextTest : public QObject {
  Q_OBJECT
 private slots:
  void shortTextIsWholeAndLongTextIsCutAtACharacter() {
    QCOMPARE(cut_for_display("TinyLlama <b>1.1B</b>"), QStringLiteral("TinyLlama <b>1.1B</b>"));
    std::string korean;
    for (int i = 0; i < 100; ++i) korean += "\xED\x95\x9C";  // 한, 3 bytes each
    const QString cut = cut_for_display(korean, 200);
    QCOMPARE(cut, QString(66, QChar(0xD55C)) + QStringLiteral("… (300 bytes)"));  // 66 × 3 = 198
  }

  // The window names a model by its file; general.name is added only when it says more.
  void aModelIsNamedByItsFileAndItsGeneralNameWhenThatSaysMore() {
    using kvchat::app::model_display_name;
    QCOMPARE(model_display_name("/m/stories260K.gguf", "llama", "llama"),
             QStringLiteral("stories260K"));
    QCOMPARE(model_display_name("/m/kjv-demo-f16.gguf", "kjv-demo", "llama"),
             QStringLiteral("kjv-demo-f16"));
    QCOMPARE(model_display_name("/m/tinyllama-q4_k_m.GGUF", "", "llama"),
             QStringLiteral("tinyllama-q4_k_m"));
    QCOMPARE(model_display_name("/m/tinyllama-q4_k_m.gguf", "TinyLlama 1.1B Chat", "llama"),
             QStringLiteral("tinyllama-q4_k_m — TinyLlama 1.1B Chat"));
    QCOMPARE(model_display_name("/m/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "Qwen2.5 0.5B Instruct",
                                "qwen2"),
             QStringLiteral("Qwen2.5-0.5B-Instruct-Q4_K_M"));  // the same letters and digits
    QCOMPARE(model_display_name("", "only a name", "llama"), QStringLiteral("only a name"));
  }

  void aHugeModelNameReachesTheWindowCut() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("named.gguf"));
    QVERIFY(write_named_demo(model, QStringLiteral("'<b>bold</b>\\x1b[31m' + 'N' * 1000000")));
    ChatController chat(dir.filePath(QStringLiteral("data")));
    chat.models()->loadModel(model);
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000));
    const QString name = chat.models()->info().value(QStringLiteral("name")).toString();
    QVERIFY2(name.startsWith(QStringLiteral("<b>bold</b>\x1b[31mNNN")), qPrintable(name.left(60)));
    QVERIFY2(name.size() < 250, qPrintable(QString::number(name.size())));
    // The fake Hub's editor pads the value with spaces to keep the tensor data aligned.
    const QRegularExpressionMatch size =
        QRegularExpression(QStringLiteral("… \\((\\d+) bytes\\)$")).match(name);
    QVERIFY2(size.hasMatch() && size.captured(1).toLongLong() >= 1000015,
             qPrintable(name.right(40)));
  }
};

QTEST_GUILESS_MAIN(DisplayTextTest)
#include "test_display_text.moc"
