// Issue 24 point 7 (the window): every QML text that shows what the Hub or a model file
// said — a repository id, a file name, a model or architecture name, an error message —
// is shown as plain text. QML's Text and Label default to AutoText, which renders "<b>",
// "<img src=...>" or "<a href=...>" in such a string as markup, and the attached
// ToolTip.text can not be told otherwise. This reads the QML files that show such strings
// and checks each element whose text binding uses one: it sets textFormat: Text.PlainText
// (itself or in its contentItem), and no attached ToolTip.text shows one.
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

namespace {

// Bindings to strings that come from the Hub or from a file.
const QRegularExpression& hostile_data() {
  static const QRegularExpression re(QStringLiteral(
      R"(modelData\.(id|repo|path|file|name|architecture|license|message|why_not|fit_error)\b)"
      R"(|modelData\.fit\.(architecture|tensor_types_text|why_not)\b)"
      R"(|page\.hub\.(message|offlineNotice|currentRepo|modelsDir)\b|fitSummary\()"
      R"(|errorDialog\.message|infoDialog\.i\.(path|architecture|tokenizer_model|chat_format_description)\b)"
      R"(|chat\.modelError\b|chat\.modelInfo\.name\b|info\.(path|chat_format_description)\b)"
      R"(|banner\.(notice\.text|docs\.message)\b|card\.p\.(name|notice)\b|recentItem\.text\b|modelData\.text\b)"));
  return re;
}

struct Binding {
  qsizetype at = 0;    // where "text:" is
  QString expression;  // the binding, over as many lines as it takes
  bool tool_tip = false;
};

int line_of(const QString& qml, qsizetype at) { return int(qml.left(at).count(u'\n')) + 1; }

// Every "text:" and "ToolTip.text:" binding of `qml`, each up to where it ends: a ';' or
// an unmatched '}' outside brackets, or a line that starts another property or element.
QList<Binding> text_bindings(const QString& qml) {
  static const QRegularExpression start(QStringLiteral(R"((?<![\w.])(ToolTip\.)?text\s*:)"));
  static const QRegularExpression next(QStringLiteral(R"(^\s*([\w.]+\s*:|[A-Z]\w*\s*\{|\}))"));
  QList<Binding> out;
  auto it = start.globalMatch(qml);
  while (it.hasNext()) {
    const auto m = it.next();
    Binding b;
    b.at = m.capturedStart();
    b.tool_tip = !m.captured(1).isEmpty();
    int depth = 0;
    qsizetype i = m.capturedEnd();
    for (; i < qml.size(); ++i) {
      const QChar c = qml[i];
      if (c == u'(' || c == u'[' || c == u'{') ++depth;
      if (c == u')' || c == u']' || (c == u'}' && depth > 0)) --depth;
      if (depth == 0 && (c == u';' || c == u'}')) break;
      if (c == u'\n' && depth == 0) {
        const qsizetype eol = qml.indexOf(u'\n', i + 1);
        if (next.match(qml.mid(i + 1, eol < 0 ? -1 : eol - i - 1)).hasMatch()) break;
      }
    }
    b.expression = qml.mid(m.capturedEnd(), i - m.capturedEnd());
    out.push_back(b);
  }
  return out;
}

// The innermost element "{ ... }" around `at`, braces included.
QString element_around(const QString& qml, qsizetype at) {
  int depth = 0;
  qsizetype open = at;
  for (; open >= 0; --open) {
    if (qml[open] == u'}') ++depth;
    if (qml[open] == u'{' && depth-- == 0) break;
  }
  if (open < 0) return {};
  depth = 0;
  for (qsizetype close = open; close < qml.size(); ++close) {
    if (qml[close] == u'{') ++depth;
    if (qml[close] == u'}' && --depth == 0) return qml.mid(open, close - open + 1);
  }
  return qml.mid(open);
}

// What is wrong in `qml` (one line per problem); empty when every hostile string is plain.
QStringList problems(const QString& name, const QString& qml) {
  QStringList out;
  for (const Binding& b : text_bindings(qml)) {
    if (!b.expression.contains(hostile_data())) continue;
    const QString where = QStringLiteral("%1:%2").arg(name).arg(line_of(qml, b.at));
    if (b.tool_tip) {
      out << where +
                 QStringLiteral(
                     ": ToolTip.text shows a string from the Hub or a file (it renders markup)");
      continue;
    }
    if (!element_around(qml, b.at).contains(QLatin1String("textFormat: Text.PlainText")))
      out << where + QStringLiteral(": no textFormat: Text.PlainText for ") +
                 b.expression.simplified().left(80);
  }
  return out;
}

QString read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class QmlPlainTextTest : public QObject {
  Q_OBJECT
 private slots:
  // The checker itself: it finds the markup-prone bindings it is meant to find.
  void checkerFindsAutoText() {
    QVERIFY(!problems("t.qml", "Label {\n    text: modelData.id\n}\n").isEmpty());
    QVERIFY(
        !problems("t.qml", "Label { elide: Text.ElideRight; text: page.hub.message }\n").isEmpty());
    QVERIFY(
        !problems("t.qml", "Label {\n    text: cond\n        ? modelData.path\n        : \"\"\n}\n")
             .isEmpty());
    QVERIFY(!problems("t.qml", "Label {\n    text: \"x\"\n    ToolTip.text: modelData.message\n}\n")
                 .isEmpty());
    QVERIFY(
        problems("t.qml", "Label {\n    textFormat: Text.PlainText\n    text: modelData.id\n}\n")
            .isEmpty());
    QVERIFY(problems("t.qml", "Label { textFormat: Text.PlainText; text: infoDialog.i.path }\n")
                .isEmpty());
    QVERIFY(problems("t.qml", "Label {\n    text: qsTr(\"Models\")\n}\n").isEmpty());
    QVERIFY(problems("t.qml",
                     "ItemDelegate {\n    id: d\n    contentItem: Label { text: d.text; "
                     "textFormat: Text.PlainText }\n"
                     "    text: modelData.id\n}\n")
                .isEmpty());
    // An element nested in another is judged on its own.
    QVERIFY(!problems("t.qml",
                      "Frame {\n    textFormat: Text.PlainText\n    Label {\n        text: "
                      "modelData.id\n    }\n}\n")
                 .isEmpty());
  }

  void hubAndModelStringsArePlainText() {
    for (const char* file : {"ModelsPage.qml", "Main.qml", "NoticeBanner.qml", "DocumentCard.qml",
                             "ChatTemplateSettings.qml", "PartialSummaries.qml"}) {
      const QString qml = read(QStringLiteral(KVCHAT_SOURCE_DIR "/ui/") + QLatin1String(file));
      QVERIFY2(!qml.isEmpty(), file);
      QVERIFY2(qml.contains(hostile_data()), file);  // it does show such strings
      const QStringList found = problems(QLatin1String(file), qml);
      QVERIFY2(found.isEmpty(), qPrintable(found.join(u'\n')));
    }
  }
};

QTEST_GUILESS_MAIN(QmlPlainTextTest)
#include "test_qml_plain_text.moc"
