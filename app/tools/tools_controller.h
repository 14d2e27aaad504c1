// ToolsController: Settings → Tools and what a reply may call (QML: Tools). The tool servers
// of <data dir>/mcp.json (kvchat/mcp_config.h; the shape LM Studio and Claude Desktop use),
// started together on a thread of their own when the window opens and after every change
// (kvchat/mcp_toolbox.h), each with its state, its stderr and its tools; the tools the user
// allowed for good ("server/tool", revocable); the limits on calls in a row and on a
// result's length. A reply gets the tools of the servers its conversation offers
// (reply_tools). GUI thread; the toolbox itself is thread-safe and shared with the engine
// thread for the reply in progress.
#pragma once

#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QVariantList>
#include <atomic>
#include <list>
#include <memory>
#include <thread>

#include "engine/engine_worker.h"
#include "kvchat/mcp_config.h"
#include "settings/settings_access.h"

namespace kvchat {
class McpToolbox;
}

namespace kvchat::app {

class ToolsController : public QObject {
  Q_OBJECT
  // One map per server of mcp.json, in its order: name, command, args (a line, quoted where
  // needed), env ("KEY=value" lines), enabled, state ("disabled", "starting", "ready",
  // "failed", "stopped"), message (why it failed), tools [{name, function, title,
  // description, schema (indented JSON), allowed}], stderr (its last bytes), url.
  Q_PROPERTY(QVariantList servers READ servers NOTIFY serversChanged)
  Q_PROPERTY(QString configPath READ config_path CONSTANT)
  // The file could not be read or written ("" when it was).
  Q_PROPERTY(QString configError READ config_error NOTIFY serversChanged)
  // Tools left out because their input schema cannot be a grammar ("server/tool: why").
  Q_PROPERTY(QStringList notes READ notes NOTIFY serversChanged)
  // "server/tool" of every tool that runs without asking (Always allow).
  Q_PROPERTY(QStringList alwaysAllowed READ always_allowed NOTIFY alwaysAllowedChanged)
  // Calls in a row before the user is asked again (default 8); a result's tokens kept
  // (default 8,000; a longer one is cut and the cut said).
  Q_PROPERTY(int maxCalls READ max_calls WRITE set_max_calls NOTIFY limitsChanged)
  Q_PROPERTY(
      int maxResultTokens READ max_result_tokens WRITE set_max_result_tokens NOTIFY limitsChanged)

 public:
  ToolsController(const QString& data_dir, SettingsAccess& settings, QObject* parent = nullptr);
  ~ToolsController() override;

  QVariantList servers() const { return servers_; }
  QString config_path() const { return path_; }
  QString config_error() const { return config_error_; }
  QStringList notes() const { return notes_; }
  QStringList always_allowed() const;
  int max_calls() const;
  void set_max_calls(int n);
  int max_result_tokens() const;
  void set_max_result_tokens(int n);

  // Reads mcp.json again and (re)starts its enabled servers.
  Q_INVOKABLE void reload();
  // Adds a server (args: a line split as a shell would, quotes kept together; env: "KEY=value"
  // lines; a command holding "://" is the URL of a Streamable HTTP server on this machine);
  // "" when added (and started), else why not (the name taken or empty, no command).
  Q_INVOKABLE QString addServer(const QString& name, const QString& command, const QString& args,
                                const QString& env);
  Q_INVOKABLE QString removeServer(const QString& name);
  Q_INVOKABLE QString setServerEnabled(const QString& name, bool enabled);
  Q_INVOKABLE void revokeTool(const QString& key);  // "server/tool"
  Q_INVOKABLE void allowToolAlways(const QString& key);
  // The names of the servers that are ready now (a conversation may offer their tools).
  Q_INVOKABLE QStringList readyServers() const;

  // What a reply of a conversation that offers `servers` may call.
  ReplyTools reply_tools(const QStringList& servers, bool required) const;

 signals:
  void serversChanged();
  void alwaysAllowedChanged();
  void limitsChanged();

 private:
  void start(const McpConfig& config);
  QString save(const McpConfig& config);  // "" or why not (the servers restart)
  void refresh();                         // servers_ from the toolbox's state
  QString path_;
  SettingsAccess& settings_;
  McpConfig config_;
  QString config_error_;
  bool unreadable_ = false;              // mcp.json did not parse: it is left as it is
  std::shared_ptr<McpToolbox> toolbox_;  // the running one (replaced on every start)
  quint64 generation_ = 0;               // the start under way (an older one's end is ignored)
  struct StartThread {
    std::thread thread;                       // McpToolbox::start, off the window's thread
    std::shared_ptr<std::atomic<bool>> done;  // it returned
  };
  std::list<StartThread> starts_;
  bool starting_ = false;
  QVariantList servers_;
  QStringList notes_;
  QTimer poll_;  // the servers' state, stderr and tool lists follow while the window is open
};

// A command line's arguments as a shell splits them (spaces; '...' and "..." keep spaces;
// \ escapes the next character outside single quotes), and back (quoted where needed).
QStringList split_arguments(const QString& line);
QString join_arguments(const QStringList& args);

}  // namespace kvchat::app
