// LocalServerController: Settings → Local server (`localServer` in QML). Serves the model
// the window has loaded over the OpenAI-compatible HTTP API (kvchat/server.h: its own
// threads and sessions over the same weights, so the window keeps working) while the user
// has it on; off by default, 127.0.0.1 unless the user chooses another address. The
// choices are kept in the settings; an enabled server starts again once a model is loaded
// (after a restart of the app too) and follows the window to another model. While it runs
// its sessions are polled once a second for the memory panel (each one's KV, the shared
// bytes, how many more such users fit). GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QVariantMap>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kvchat/server.h"

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
  // requests}], kv_allocated_bytes, kv_shared_bytes, kv_budget_bytes, requests,
  // rejected_busy, client_hang_ups, more_users (-1: unknown yet)}; empty while not serving.
  Q_PROPERTY(QVariantMap stats READ stats NOTIFY statsChanged)

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
  // with it (the generations in flight are cancelled, as for a model change).
  void chat_template_changed();

 signals:
  void changed();
  void statsChanged();

 private:
  void restart();
  void stop();
  void poll();

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
  QTimer poll_timer_;
};

}  // namespace kvchat::app
