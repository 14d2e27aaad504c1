#include "export/conversation_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

#include "messages/message_list_model.h"
#include "tools/tool_steps.h"

namespace kvchat::app {

namespace {

QString tr_export(const char* text) {
  return QCoreApplication::translate("ConversationExport", text);
}

QString iso_utc(const QDateTime& t) {
  return t.isValid() ? t.toUTC().toString(Qt::ISODate) : QString();
}

}  // namespace

ExportFormat export_format_for(const QString& path_or_suffix) {
  const QString s = path_or_suffix.trimmed().toLower();
  return (s == QLatin1String("json") || s.endsWith(QLatin1String(".json")))
             ? ExportFormat::Json
             : ExportFormat::Markdown;
}

QByteArray conversation_to_markdown(const StoredConversation& conversation,
                                    const QVector<StoredMessage>& messages) {
  QString out;
  const QString title = conversation.title.simplified();
  out += QStringLiteral("# %1\n\n").arg(title.isEmpty() ? tr_export("Conversation") : title);
  out +=
      QStringLiteral("*%1*\n\n")
          .arg(tr_export("Exported from kvchat: %1 messages, last changed %2 UTC")
                   .arg(messages.size())
                   .arg(conversation.updated.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm"))));
  if (!conversation.system_prompt.trimmed().isEmpty()) {
    out += QStringLiteral("**%1**\n\n").arg(tr_export("System prompt"));
    for (const QString& line : conversation.system_prompt.split(QLatin1Char('\n'))) {
      out += QStringLiteral("> %1\n").arg(line);
    }
    out += QLatin1Char('\n');
  }
  for (const StoredMessage& m : messages) {
    const bool user = m.role == QLatin1String("user");
    out += QStringLiteral("## %1\n\n").arg(user ? tr_export("You") : tr_export("Assistant"));
    out += tool_steps_markdown(m.tool_steps);  // the reply's calls, then its answer
    out += m.content;
    if (!m.content.endsWith(QLatin1Char('\n'))) out += QLatin1Char('\n');
    if (m.state == MessageState::Interrupted) {
      out += QStringLiteral("\n*%1*\n").arg(tr_export("(stopped before the end)"));
    }
    out += QLatin1Char('\n');
  }
  return out.toUtf8();
}

namespace {
QJsonObject message_json(const StoredMessage& m) {
  QJsonObject json{{QStringLiteral("role"), m.role},
                   {QStringLiteral("content"), m.content},
                   {QStringLiteral("state"), message_state_name(m.state)},
                   {QStringLiteral("created"), iso_utc(m.created)},
                   {QStringLiteral("stats"), QJsonObject::fromVariantMap(m.stats)}};
  // A reply's tool calls, each with its arguments and result (app/tools/tool_steps.h).
  if (!m.tool_steps.isEmpty())
    json.insert(QStringLiteral("tool_steps"), QJsonArray::fromVariantList(m.tool_steps));
  return json;
}
}  // namespace

QByteArray conversation_to_json(const StoredConversation& conversation,
                                const QVector<StoredMessage>& messages,
                                const QVector<StoredMessage>& tree) {
  QJsonArray list;
  for (const StoredMessage& m : messages) list.append(message_json(m));
  QJsonArray nodes;
  for (const StoredMessage& m : tree) {
    QJsonObject node = message_json(m);
    node.insert(QStringLiteral("id"), m.id);
    node.insert(QStringLiteral("parent"), m.parent_id ? QJsonValue(m.parent_id) : QJsonValue());
    node.insert(QStringLiteral("branch"), m.version);
    node.insert(QStringLiteral("branches"), m.version_count);
    node.insert(QStringLiteral("selected"), m.selected);
    node.insert(QStringLiteral("shown"), m.shown);
    nodes.append(node);
  }
  const QJsonObject root{
      {QStringLiteral("format"), QStringLiteral("kvchat-conversation")},
      {QStringLiteral("version"), 2},
      {QStringLiteral("title"), conversation.title},
      {QStringLiteral("system_prompt"), conversation.system_prompt},
      {QStringLiteral("created"), iso_utc(conversation.created)},
      {QStringLiteral("updated"), iso_utc(conversation.updated)},
      {QStringLiteral("settings"), QJsonObject::fromVariantMap(conversation.settings)},
      {QStringLiteral("messages"), list},
      {QStringLiteral("tree"), nodes}};
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString export_file_name(const QString& title, ExportFormat format) {
  static const QRegularExpression refused(QStringLiteral("[\\\\/:*?\"<>|\\x00-\\x1f]"));
  QString base = title.simplified();
  base.replace(refused, QStringLiteral(" "));
  base = base.simplified().left(60).trimmed();
  while (base.startsWith(QLatin1Char('.'))) base.remove(0, 1);
  if (base.isEmpty()) base = QStringLiteral("conversation");
  return base + (format == ExportFormat::Json ? QStringLiteral(".json") : QStringLiteral(".md"));
}

bool write_export_file(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) {
      *error = tr_export("The conversation could not be written to %1: %2")
                   .arg(QFileInfo(path).absoluteFilePath(), file.errorString());
    }
    return false;
  }
  return true;
}

}  // namespace kvchat::app
