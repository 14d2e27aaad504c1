// LocalServerController: Settings → Local server (`localServer` in QML). Serves the model
// the window has loaded over the OpenAI-compatible HTTP API (kvchat/server.h: its own
// threads and sessions over the same weights, so the window keeps working) while the user
// has it on; off by default, 127.0.0.1 unless the user chooses another address. The
// choices are kept in the settings; an enabled server starts again once a model is loaded
// (after a restart of the app too) and follows the window to another model. While it runs
// its sessions are polled once a second for the memory panel and the server view (each
// one's KV, the shared bytes, its last client, how many more such users fit), with the
// request log. A restart says why (lastRestart, restarted) and keeps the counters and the
// log of the same server (ServerHistory). GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVariantMap>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kvchat/server.h"
#include "server/server_history.h"

namespace kvchat::app {

class LocalServerController : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool enabled READ enabled NOTIFY changed)
  Q_PROPERTY(QString host READ host NOTIFY changed)
  Q_PROPERTY(int port READ port NOTIFY changed)
  Q_PROPERTY(QString apiKey READ api_key NOTIFY changed)
  // An address beyond loopback without a key is served only when the user ticked this
  // (ServerOptions::allow_no_key; the server refuses otherwise and error says why).
  Q_PROPERTY(bool allowNoKey READ allow_no_key NOTIFY changed)
  Q_PROPERTY(int parallel READ parallel NOTIFY changed)
  Q_PROPERTY(bool running READ running NOTIFY changed)
  // The base URL clients use ("http://127.0.0.1:8080/v1"); empty while not serving.
  Q_PROPERTY(QString url READ url NOTIFY changed)
  Q_PROPERTY(QString modelId READ model_id NOTIFY changed)
  // Why it does not serve although enabled ("no model is loaded", the port in use, ...).
  Q_PROPERTY(QString error READ error NOTIFY changed)
  // The sessions as users: {sessions: [{index, busy, tokens, kv_bytes, shared_bytes,
  // requests, client_address, user_agent, model}], slots, busy, kv_allocated_bytes,
  // kv_shared_bytes, kv_budget_bytes, requests, rejected_busy, client_hang_ups,
  // prompt_tokens_evaluated, connections_refused, requests_timed_out, more_users (-1:
  // unknown yet)}; the counters summed over restarts of the same server; empty while not
  // serving.
  Q_PROPERTY(QVariantMap stats READ stats NOTIFY statsChanged)
  // The last requests answered, newest first, at most kRequestLogSize (request_record_map's
  // maps), over restarts of the same server.
  Q_PROPERTY(QVariantList requestLog READ request_log NOTIFY statsChanged)
  // The routes the server offers ("GET /v1/models", ...).
  Q_PROPERTY(QStringList endpoints READ endpoints CONSTANT)
  // The last restart: {reason (said), time (ms since the epoch), counters_kept}; empty: none
  // since the app started.
  Q_PROPERTY(QVariantMap lastRestart READ last_restart NOTIFY changed)
  // The request log records the last user message's first 200 characters too (off by
  // default; saved). Turned off, the texts already recorded are dropped.
  Q_PROPERTY(bool logMessageText READ log_message_text WRITE setLogMessageText NOTIFY changed)

 public:
  // How the window renders its conversations, so that clients get the same prompts: the
  // override as ChatFormat::for_model takes it ("" = the file's template, "builtin:<name>",
  // or Jinja source) and the template's enable_thinking switch.
  struct ChatTemplateChoice {
    std::string override_text;
    std::optional<bool> enable_thinking;
    bool operator==(const ChatTemplateChoice&) const = default;
  };
  struct Hooks {
    std::function<std::shared_ptr<const Model>()> model;  // the window's; null: none
    std::function<SessionOptions()> session_options;      // the window's sessions' options
    std::function<ChatTemplateChoice()> chat_template;    // the window's; unset: the file's
    std::function<QVariant(const QString&, const QVariant&)> load_setting;
    std::function<void(const QString&, const QVariant&)> save_setting;
    std::function<uint64_t()> available_bytes;  // the machine's free memory, for more_users
  };
  explicit LocalServerController(Hooks hooks, QObject* parent = nullptr);
  ~LocalServerController() override;

  bool enabled() const { return enabled_; }
  QString host() const { return host_; }
  int port() const { return port_; }
  QString api_key() const { return api_key_; }
  bool allow_no_key() const { return allow_no_key_; }
  int parallel() const { return parallel_; }
  bool running() const { return server_ != nullptr; }
  QString url() const;
  QString model_id() const;
  QString error() const { return error_; }
  QVariantMap stats() const { return stats_; }
  QVariantList request_log() const { return request_log_; }
  static QStringList endpoints();
  QVariantMap last_restart() const { return last_restart_; }
  bool log_message_text() const { return log_message_text_; }
  void setLogMessageText(bool on);

  static constexpr size_t kRequestLogSize = 200;

  // Saves the choices and starts, restarts or stops the server accordingly.
  Q_INVOKABLE void apply(bool enabled, const QString& host, int port, const QString& api_key,
                         int parallel, bool allow_no_key = false);
  // A random key of 32 letters and digits (the system's random source).
  Q_INVOKABLE QString generateKey() const;
  // True for 127.0.0.0/8, ::1, localhost (server_host_is_loopback): only this machine
  // can connect.
  Q_INVOKABLE static bool isLoopback(const QString& host);
  // The window's model changed (loaded, replaced, unloaded): serve the new one.
  void model_changed();
  // The window's chat template or its Thinking switch changed: a running server restarts
  // with it (the generations in flight are cancelled, as for a model change). Returns what
  // to say about it (the window's status line); empty when nothing restarted.
  QString chat_template_changed();

 signals:
  void changed();
  void statsChanged();
  // A running server was replaced by a new one: `message` says so and why.
  void restarted(const QString& message);

 private:
  // Why restart() was called; a restart (a running server replaced) says it.
  enum class Why { Settings, Model, ChatTemplate };
  void restart(Why why);
  void start(std::shared_ptr<const Model> model);
  void stop();
  void poll();
  void note_restart(Why why, bool counters_kept);

  Hooks hooks_;
  bool enabled_ = false;
  QString host_ = QStringLiteral("127.0.0.1");
  int port_ = 8080;
  QString api_key_;
  bool allow_no_key_ = false;
  int parallel_ = 4;
  QString error_;
  std::shared_ptr<const Model> served_;  // the model the server runs on
  ChatTemplateChoice served_template_;   // and the template it renders with
  std::unique_ptr<Server> server_;
  QVariantMap stats_;
  QVariantList request_log_;
  ServerHistory history_;  // the replaced instances of the same server
  QVariantMap last_restart_;
  bool log_message_text_ = false;
  QTimer poll_timer_;
};

}  // namespace kvchat::app
