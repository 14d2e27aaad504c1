// ToolsController (tools_controller.h): mcp.json read and written, its servers started on a
// thread of their own, their state shown, the consent the user gave for good, the limits.
#include "tools/tools_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QPointer>
#include <thread>

#include "kvchat/mcp_toolbox.h"
#include "tools/tool_steps.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

const QString kAllowedKey = QStringLiteral("tools/always_allowed");
const QString kMaxCallsKey = QStringLiteral("tools/max_calls");
const QString kMaxResultKey = QStringLiteral("tools/max_result_tokens");
constexpr int kDefaultMaxCalls = 8;
constexpr int kDefaultMaxResultTokens = 8000;
constexpr int kPollMs = 1500;

QString state_name(McpServerState state) { return qstr(std::string(mcp_server_state_name(state))); }

}  // namespace

QStringList split_arguments(const QString& line) {
  QStringList out;
  QString word;
  bool in_word = false;
  QChar quote;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (!quote.isNull()) {
      if (c == quote) {
        quote = QChar();
      } else if (c == QLatin1Char('\\') && quote == QLatin1Char('"') && i + 1 < line.size()) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
      quote = c;
      in_word = true;
    } else if (c == QLatin1Char('\\') && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c.isSpace()) {
      if (in_word) out << word;
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out << word;
  return out;
}

QString join_arguments(const QStringList& args) {
  QStringList quoted;
  for (const QString& a : args) {
    const bool plain =
        !a.isEmpty() && !a.contains(QRegularExpression(QStringLiteral("[\\s'\"\\\\]")));
    quoted << (plain ? a
                     : QLatin1Char('\'') +
                           QString(a).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                           QLatin1Char('\''));
  }
  return quoted.join(QLatin1Char(' '));
}

ToolsController::ToolsController(const QString& data_dir, SettingsAccess& settings, QObject* parent)
    : QObject(parent),
      path_(QDir(data_dir).filePath(QStringLiteral("mcp.json"))),
      settings_(settings) {
  poll_.setInterval(kPollMs);
  connect(&poll_, &QTimer::timeout, this, &ToolsController::refresh);
  poll_.start();
  reload();
}

ToolsController::~ToolsController() {
  // A start under way ends within its servers' start timeout.
  for (StartThread& t : starts_) t.thread.join();
  if (toolbox_) toolbox_->stop();
}

QStringList ToolsController::always_allowed() const {
  return settings_.setting(kAllowedKey).toStringList();
}

int ToolsController::max_calls() const {
  return settings_.setting(kMaxCallsKey, kDefaultMaxCalls).toInt();
}

void ToolsController::set_max_calls(int n) {
  if (n < 1 || n == max_calls()) return;
  settings_.save_setting(kMaxCallsKey, n);
  emit limitsChanged();
}

int ToolsController::max_result_tokens() const {
  return settings_.setting(kMaxResultKey, kDefaultMaxResultTokens).toInt();
}

void ToolsController::set_max_result_tokens(int n) {
  if (n < 16 || n == max_result_tokens()) return;
  settings_.save_setting(kMaxResultKey, n);
  emit limitsChanged();
}

void ToolsController::reload() {
  auto loaded = load_mcp_config(path_.toStdString());
  unreadable_ = !loaded;
  if (!loaded) {
    config_error_ = tr("%1 could not be read: %2").arg(path_, qstr(loaded.message()));
    config_ = {};
  } else {
    config_error_.clear();
    config_ = std::move(loaded).value();
  }
  start(config_);
}

void ToolsController::start(const McpConfig& config) {
  const quint64 generation = ++generation_;
  starting_ = true;
  if (toolbox_) toolbox_->stop();  // a reply holding it sees its servers stopped
  auto toolbox = std::make_shared<McpToolbox>();
  toolbox_ = toolbox;
  refresh();
  // The starts that ended are joined here, so the list stays short.
  starts_.remove_if([](StartThread& t) {
    if (!t.done->load()) return false;
    t.thread.join();
    return true;
  });
  QPointer<ToolsController> self(this);
  auto done = std::make_shared<std::atomic<bool>>(false);
  starts_.push_back({std::thread([self, toolbox, config, generation, done] {
                       McpClientOptions options;
                       options.start_timeout_ms = 20000;
                       toolbox->start(config, options);
                       done->store(true);
                       QMetaObject::invokeMethod(
                           qApp,
                           [self, generation] {
                             if (!self || self->generation_ != generation) return;
                             self->starting_ = false;
                             self->refresh();
                           },
                           Qt::QueuedConnection);
                     }),
                     done});
}

QString ToolsController::save(const McpConfig& config) {
  // A file that did not parse is the user's: never overwritten by what was read of it.
  if (unreadable_)
    return tr("%1 could not be read, so it is not changed here: mend it (or move it aside), "
              "then Reload.")
        .arg(path_);
  if (auto saved = save_mcp_config(config, path_.toStdString()); !saved) {
    return tr("%1 was not saved: %2").arg(path_, qstr(saved.message()));
  }
  config_ = config;
  config_error_.clear();
  start(config_);
  return {};
}

QString ToolsController::addServer(const QString& name, const QString& command, const QString& args,
                                   const QString& env) {
  const QString n = name.trimmed();
  if (n.isEmpty()) return tr("The server needs a name.");
  if (config_.find(n.toStdString())) return tr("A server named %1 is there already.").arg(n);
  if (command.trimmed().isEmpty()) return tr("The server needs a command to start it.");
  McpServerConfig server;
  server.name = n.toStdString();
  // A URL in the command's place: a Streamable HTTP server on this machine ("url").
  if (command.trimmed().contains(QStringLiteral("://"))) {
    if (!args.trimmed().isEmpty()) return tr("A server reached at a URL takes no arguments.");
    server.url = command.trimmed().toStdString();
  } else {
    server.command = command.trimmed().toStdString();
  }
  for (const QString& a : split_arguments(args)) server.args.push_back(a.toStdString());
  for (const QString& line : env.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    const qsizetype eq = line.indexOf(QLatin1Char('='));
    if (eq <= 0) return tr("An environment line is KEY=value, not \"%1\".").arg(line.trimmed());
    server.env[line.left(eq).trimmed().toStdString()] = line.mid(eq + 1).toStdString();
  }
  McpConfig config = config_;
  config.servers.push_back(std::move(server));
  return save(config);
}

QString ToolsController::removeServer(const QString& name) {
  McpConfig config = config_;
  std::erase_if(config.servers, [&](const McpServerConfig& s) { return qstr(s.name) == name; });
  if (config.servers.size() == config_.servers.size()) return tr("No server named %1.").arg(name);
  return save(config);
}

QString ToolsController::setServerEnabled(const QString& name, bool enabled) {
  McpConfig config = config_;
  for (McpServerConfig& s : config.servers) {
    if (qstr(s.name) != name) continue;
    if (s.enabled == enabled) return {};
    s.enabled = enabled;
    return save(config);
  }
  return tr("No server named %1.").arg(name);
}

void ToolsController::revokeTool(const QString& key) {
  QStringList allowed = always_allowed();
  if (!allowed.removeAll(key)) return;
  settings_.save_setting(kAllowedKey, allowed);
  emit alwaysAllowedChanged();
  refresh();
}

void ToolsController::allowToolAlways(const QString& key) {
  QStringList allowed = always_allowed();
  if (key.isEmpty() || allowed.contains(key)) return;
  allowed << key;
  settings_.save_setting(kAllowedKey, allowed);
  emit alwaysAllowedChanged();
  refresh();
}

QStringList ToolsController::readyServers() const {
  QStringList ready;
  for (const QVariant& s : servers_) {
    const QVariantMap m = s.toMap();
    if (m.value(QStringLiteral("state")).toString() == QLatin1String("ready"))
      ready << m.value(QStringLiteral("name")).toString();
  }
  return ready;
}

ReplyTools ToolsController::reply_tools(const QStringList& servers, bool required) const {
  ReplyTools tools;
  const QStringList ready = readyServers();
  for (const QString& s : servers)
    if (ready.contains(s)) tools.servers.push_back(s.toStdString());
  if (tools.servers.empty()) return tools;
  tools.toolbox = toolbox_;
  tools.choice = required ? ToolChoiceMode::Required : ToolChoiceMode::Auto;
  tools.max_calls = max_calls();
  tools.max_result_tokens = max_result_tokens();
  for (const QString& key : always_allowed()) tools.always_allowed.insert(key);
  return tools;
}

void ToolsController::refresh() {
  const std::vector<McpToolbox::ServerStatus> running =
      starting_ || !toolbox_ ? std::vector<McpToolbox::ServerStatus>{} : toolbox_->servers();
  std::vector<std::string> names;
  for (const McpServerConfig& c : config_.servers) names.push_back(c.name);
  const auto functions =
      toolbox_ && !starting_ ? toolbox_->functions(names) : std::vector<McpToolbox::Function>{};
  const QStringList allowed = always_allowed();
  QVariantList servers;
  for (const McpServerConfig& c : config_.servers) {
    QVariantMap m;
    m.insert(QStringLiteral("name"), qstr(c.name));
    m.insert(QStringLiteral("command"), qstr(c.command));
    QStringList args;
    for (const std::string& a : c.args) args << qstr(a);
    m.insert(QStringLiteral("args"), join_arguments(args));
    QStringList env;
    for (const auto& [k, v] : c.env) env << qstr(k) + QLatin1Char('=') + qstr(v);
    m.insert(QStringLiteral("env"), env.join(QLatin1Char('\n')));
    m.insert(QStringLiteral("url"), qstr(c.url));
    m.insert(QStringLiteral("enabled"), c.enabled);
    QString state = !c.enabled ? QStringLiteral("disabled") : QStringLiteral("starting");
    QVariantList tools;
    for (const McpToolbox::ServerStatus& s : running) {
      if (s.name != c.name || !c.enabled) continue;
      state = state_name(s.state);
      m.insert(QStringLiteral("message"), qstr(s.message));
      m.insert(QStringLiteral("stderr"), qstr(s.stderr_log));
      for (const McpTool& t : s.tools) {
        QString function;
        for (const auto& f : functions)
          if (f.server == c.name && f.tool == t.name) function = qstr(f.definition.name);
        const QString key = always_allow_key(qstr(c.name), qstr(t.name));
        tools.append(QVariantMap{{QStringLiteral("name"), qstr(t.name)},
                                 {QStringLiteral("key"), key},
                                 {QStringLiteral("function"), function},
                                 {QStringLiteral("title"), qstr(t.title)},
                                 {QStringLiteral("description"), qstr(t.description)},
                                 {QStringLiteral("schema"), pretty_json(qstr(t.input_schema_json))},
                                 {QStringLiteral("allowed"), allowed.contains(key)}});
      }
    }
    m.insert(QStringLiteral("state"), state);
    m.insert(QStringLiteral("tools"), tools);
    servers.append(m);
  }
  QStringList notes;
  if (toolbox_ && !starting_)
    for (const std::string& n : toolbox_->notes()) notes << qstr(n);
  if (servers == servers_ && notes == notes_) return;
  servers_ = servers;
  notes_ = notes;
  emit serversChanged();
}

}  // namespace kvchat::app
