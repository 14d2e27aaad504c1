// A reply's tool steps (tool_steps.h): made from the engine's calls and runs, turned back
// into the conversation's turns, written in Markdown, and added up for the memory panel.
#include "tools/tool_steps.h"
#include "util/engine_text.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QStringList>

namespace kvchat::app {

namespace {

const QString kText = QStringLiteral("text");
const QString kCalls = QStringLiteral("calls");
const QString kId = QStringLiteral("id");
const QString kState = QStringLiteral("state");

// A fence longer than any run of backticks in `text`.
QString fence_for(const QString& text) {
  int longest = 0, run = 0;
  for (QChar c : text) {
    run = c == QLatin1Char('`') ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return QString(std::max(3, longest + 1), QLatin1Char('`'));
}

QString fenced(const QString& text, const QString& language = {}) {
  const QString fence = fence_for(text);
  return fence + language + QLatin1Char('\n') + text + QLatin1Char('\n') + fence +
         QLatin1Char('\n');
}

}  // namespace

QVariantMap tool_call_map(const ToolCall& call, const QString& server, const QString& tool) {
  return {{kId, qstr(call.id)},
          {QStringLiteral("name"), qstr(call.name)},
          {QStringLiteral("arguments"), qstr(call.arguments)},
          {QStringLiteral("server"), server},
          {QStringLiteral("tool"), tool},
          {kState, QStringLiteral("waiting")}};
}

QVariantMap tool_run_map(const QVariantMap& call, const ToolRun& run) {
  QVariantMap m = call;
  m.insert(kState, run.denied    ? QStringLiteral("denied")
                   : run.stopped ? QStringLiteral("stopped")
                   : run.failed  ? QStringLiteral("failed")
                                 : QStringLiteral("done"));
  m.insert(QStringLiteral("result"), qstr(run.result));
  m.insert(QStringLiteral("result_tokens"), run.result_tokens);
  m.insert(QStringLiteral("original_tokens"), run.original_tokens);
  m.insert(QStringLiteral("cut_note"), qstr(run.cut_note));
  m.insert(QStringLiteral("kv_bytes"), static_cast<qint64>(run.kv_bytes));
  m.insert(QStringLiteral("seconds"), run.seconds);
  return m;
}

void append_tool_turns(const QVariantList& steps, ChatTurns& turns) {
  for (const QVariant& s : steps) {
    const QVariantMap step = s.toMap();
    const QVariantList calls = step.value(kCalls).toList();
    ChatTurn reply{QStringLiteral("assistant"), step.value(kText).toString()};
    for (const QVariant& c : calls) {
      const QVariantMap call = c.toMap();
      reply.tool_calls.append(QVariantMap{{kId, call.value(kId)},
                                          {QStringLiteral("name"), call.value("name")},
                                          {QStringLiteral("arguments"), call.value("arguments")}});
    }
    turns.push_back(reply);
    for (const QVariant& c : calls) {
      const QVariantMap call = c.toMap();
      // A call that has no result yet (the reply was cut off while it waited) is left out
      // with its result: the model reads only what ran.
      if (!call.contains(QStringLiteral("result"))) continue;
      ChatTurn result{QStringLiteral("tool"), call.value(QStringLiteral("result")).toString()};
      result.tool_call_id = call.value(kId).toString();
      result.name = call.value(QStringLiteral("name")).toString();
      turns.push_back(result);
    }
  }
}

bool replace_tool_call(QVariantList& steps, const QString& call_id, const QVariantMap& call) {
  for (QVariant& s : steps) {
    QVariantMap step = s.toMap();
    QVariantList calls = step.value(kCalls).toList();
    for (QVariant& c : calls) {
      if (c.toMap().value(kId).toString() != call_id) continue;
      c = call;
      step.insert(kCalls, calls);
      s = step;
      return true;
    }
  }
  return false;
}

bool set_tool_call_state(QVariantList& steps, const QString& call_id, const QString& state) {
  for (const QVariant& s : steps) {
    for (const QVariant& c : s.toMap().value(kCalls).toList()) {
      QVariantMap call = c.toMap();
      if (call.value(kId).toString() != call_id) continue;
      call.insert(kState, state);
      return replace_tool_call(steps, call_id, call);
    }
  }
  return false;
}

QString pretty_json(const QString& json) {
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8(), &error);
  if (error.error != QJsonParseError::NoError || doc.isNull()) return json;
  return QString::fromUtf8(doc.toJson(QJsonDocument::Indented)).trimmed();
}

QString tool_call_state_words(const QString& state) {
  if (state == QLatin1String("denied"))
    return QCoreApplication::translate("ToolSteps", "denied by the user: not run");
  if (state == QLatin1String("stopped"))
    return QCoreApplication::translate("ToolSteps", "stopped before it ran");
  if (state == QLatin1String("failed")) return QCoreApplication::translate("ToolSteps", "failed");
  if (state == QLatin1String("done")) return QCoreApplication::translate("ToolSteps", "ran");
  return QCoreApplication::translate("ToolSteps", "not run (the reply ended first)");
}

QString tool_steps_markdown(const QVariantList& steps) {
  QString out;
  for (const QVariant& s : steps) {
    const QVariantMap step = s.toMap();
    const QString text = step.value(kText).toString();
    if (!text.trimmed().isEmpty()) out += text.trimmed() + QStringLiteral("\n\n");
    for (const QVariant& c : step.value(kCalls).toList()) {
      const QVariantMap call = c.toMap();
      const QString state = call.value(kState).toString();
      out += QStringLiteral("**%1**\n\n")
                 .arg(QCoreApplication::translate("ToolSteps", "Tool call: `%1` (%2)")
                          .arg(call.value(QStringLiteral("name")).toString(),
                               tool_call_state_words(state)));
      out += fenced(pretty_json(call.value(QStringLiteral("arguments")).toString()),
                    QStringLiteral("json"));
      if (call.contains(QStringLiteral("result"))) {
        out += QStringLiteral("\n%1\n\n").arg(QCoreApplication::translate("ToolSteps", "Result:")) +
               fenced(call.value(QStringLiteral("result")).toString());
      }
      const QString cut = call.value(QStringLiteral("cut_note")).toString();
      if (!cut.isEmpty())
        out +=
            QStringLiteral("\n*%1*\n")
                .arg(QCoreApplication::translate("ToolSteps", "The result was cut: %1.").arg(cut));
      out += QLatin1Char('\n');
    }
  }
  return out;
}

ToolResultCosts tool_result_costs(const QVector<StoredMessage>& messages) {
  ToolResultCosts costs;
  for (qsizetype row = 0; row < messages.size(); ++row) {
    for (const QVariant& s : messages[row].tool_steps) {
      for (const QVariant& c : s.toMap().value(kCalls).toList()) {
        const QVariantMap call = c.toMap();
        if (!call.contains(QStringLiteral("result"))) continue;
        const qint64 tokens = call.value(QStringLiteral("result_tokens")).toLongLong();
        const qint64 bytes = call.value(QStringLiteral("kv_bytes")).toLongLong();
        costs.rows.append(QVariantMap{{QStringLiteral("message_row"), row},
                                      {QStringLiteral("name"), call.value("name")},
                                      {QStringLiteral("tokens"), tokens},
                                      {QStringLiteral("kv_bytes"), bytes},
                                      {QStringLiteral("cut_note"), call.value("cut_note")},
                                      {kState, call.value(kState)}});
        costs.tokens += tokens;
        costs.kv_bytes += bytes;
      }
    }
  }
  return costs;
}

}  // namespace kvchat::app
