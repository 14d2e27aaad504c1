#include "window/launch_options.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

#include "store/conversation_store.h"

namespace kvchat::app {
namespace {

QCommandLineOption option(const char* name, const char* help, const char* value = nullptr,
                          const char* fallback = nullptr) {
  const QStringList names{QString::fromLatin1(name)};
  return value ? QCommandLineOption(names, QString::fromLatin1(help), QString::fromLatin1(value),
                                    QString::fromLatin1(fallback))
               : QCommandLineOption(names, QString::fromLatin1(help));
}

}  // namespace

LaunchOptions LaunchOptions::parse(const QCoreApplication& app) {
  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("kvchat: local chat that shows its KV cache"));
  cli.addHelpOption();
  cli.addVersionOption();
  const QCommandLineOption data_dir = option("data-dir", "Keep everything under DIR.", "DIR");
  const QCommandLineOption model = option("model", "Open this GGUF model.", "FILE");
  const QCommandLineOption theme =
      option("theme", "light, dark or system (default).", "THEME", "system");
  const QCommandLineOption stalls =
      option("benchmark-ui-stalls",
             "Load the model, generate N tokens, print the longest event-loop stalls as JSON "
             "and quit.",
             "N");
  const QCommandLineOption long_messages =
      option("benchmark-long-messages",
             "Open every conversation, page through and copy its long messages, print the "
             "longest event-loop stall of each as JSON and quit (no model).");
  const QCommandLineOption attach = option(
      "attach", "Load this document (text, Markdown, PDF) and show its cost preview.", "FILE");
  const QCommandLineOption ctx =
      option("ctx", "Context length in tokens (kept in the settings).", "N");
  const QCommandLineOption kv_type =
      option("kv-type",
             "Use this KV type (f32, f16, q8_0, q4_0, q8_0r, q4_0r) for the model opened.", "TYPE");
  const QCommandLineOption context_policy = option(
      "context-policy",
      "When the context is full: drop-oldest (default), shift, sink-window or stop (for the model "
      "opened).",
      "POLICY");
  for (const QCommandLineOption* o : {&attach, &ctx, &kv_type, &context_policy, &data_dir, &model,
                                      &theme, &stalls, &long_messages}) {
    cli.addOption(*o);
  }
  cli.addPositionalArgument(QStringLiteral("FILE"),
                            QStringLiteral("A GGUF model to open, or a document to attach."),
                            QStringLiteral("[FILE...]"));
  cli.process(app);

  LaunchOptions o;
  // The database, settings and snapshots: under --data-dir, or $XDG_DATA_HOME/kvchat.
  o.data_dir = cli.isSet(data_dir) ? cli.value(data_dir)
                                   : QFileInfo(ConversationStore::default_path({})).path();
  o.model = cli.value(model);
  o.positional = cli.positionalArguments();
  o.attach = cli.value(attach);
  o.theme = cli.value(theme);
  if (cli.isSet(stalls)) o.benchmark_stall_tokens = cli.value(stalls).toInt();
  o.benchmark_long_messages = cli.isSet(long_messages);
  if (cli.isSet(context_policy))
    o.engine_settings.insert(QStringLiteral("context_policy"), cli.value(context_policy));
  if (cli.isSet(ctx)) o.engine_settings.insert(QStringLiteral("ctx"), cli.value(ctx).toInt());
  if (cli.isSet(kv_type)) o.engine_settings.insert(QStringLiteral("kv_type"), cli.value(kv_type));
  return o;
}

QStringList LaunchOptions::files_to_open() const {
  QStringList files;
  auto add = [&files](const QString& f) {
    if (f.isEmpty()) return;
    files.append(f.contains(QStringLiteral("://")) ? f : QFileInfo(f).absoluteFilePath());
  };
  add(model);
  for (const QString& f : positional) add(f);
  return files;
}

QString LaunchOptions::asked_model() const {
  QString asked = model;
  for (const QString& f : positional) {
    if (model.isEmpty() && is_model_file(f)) asked = f;
  }
  return asked;
}

bool is_model_file(const QString& path) {
  return path.endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive);
}

}  // namespace kvchat::app
