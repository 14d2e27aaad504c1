#include "server/local_server_controller.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QVariantList>
#include <vector>

#include "memory/ram_tier.h"
#include "server/server_users.h"

namespace kvchat::app {
namespace {

const QString kEnabled = QStringLiteral("server/enabled");
const QString kHost = QStringLiteral("server/host");
const QString kPort = QStringLiteral("server/port");
const QString kKey = QStringLiteral("server/api_key");
const QString kParallel = QStringLiteral("server/parallel");
const QString kAllowNoKey = QStringLiteral("server/allow_no_key");
const QString kLogText = QStringLiteral("server/log_message_text");

QVariantMap session_map(const ServerSessionStats& st) {
  return QVariantMap{{QStringLiteral("index"), st.index},
                     {QStringLiteral("busy"), st.busy},
                     {QStringLiteral("tokens"), st.tokens},
                     {QStringLiteral("kv_bytes"), qint64(st.kv_allocated_bytes)},
                     {QStringLiteral("shared_bytes"), qint64(st.kv_shared_bytes)},
                     {QStringLiteral("requests"), qint64(st.requests)},
                     {QStringLiteral("client_address"), QString::fromStdString(st.client_address)},
                     {QStringLiteral("user_agent"), QString::fromStdString(st.user_agent)},
                     {QStringLiteral("model"), QString::fromStdString(st.model)}};
}

}  // namespace

LocalServerController::LocalServerController(Hooks hooks, QObject* parent)
    : QObject(parent), hooks_(std::move(hooks)) {
  if (hooks_.load_setting) {
    enabled_ = hooks_.load_setting(kEnabled, false).toBool();
    host_ = hooks_.load_setting(kHost, host_).toString();
    port_ = hooks_.load_setting(kPort, port_).toInt();
    api_key_ = hooks_.load_setting(kKey, QString()).toString();
    parallel_ = hooks_.load_setting(kParallel, parallel_).toInt();
    allow_no_key_ = hooks_.load_setting(kAllowNoKey, false).toBool();
    log_message_text_ = hooks_.load_setting(kLogText, false).toBool();
  }
  poll_timer_.setInterval(1000);
  connect(&poll_timer_, &QTimer::timeout, this, &LocalServerController::poll);
}

LocalServerController::~LocalServerController() { stop(); }

QString LocalServerController::url() const {
  return server_ ? QString::fromStdString(server_->url()) + QStringLiteral("/v1") : QString();
}

QString LocalServerController::model_id() const {
  return server_ ? QString::fromStdString(server_->stats().model_id) : QString();
}

void LocalServerController::apply(bool enabled, const QString& host, int port,
                                  const QString& api_key, int parallel, bool allow_no_key) {
  enabled_ = enabled;
  host_ = host.trimmed().isEmpty() ? QStringLiteral("127.0.0.1") : host.trimmed();
  port_ = port;
  api_key_ = api_key.trimmed();
  parallel_ = parallel;
  allow_no_key_ = allow_no_key;
  if (hooks_.save_setting) {
    hooks_.save_setting(kAllowNoKey, allow_no_key_);
    hooks_.save_setting(kEnabled, enabled_);
    hooks_.save_setting(kHost, host_);
    hooks_.save_setting(kPort, port_);
    hooks_.save_setting(kKey, api_key_);
    hooks_.save_setting(kParallel, parallel_);
  }
  restart(Why::Settings);
}

QStringList LocalServerController::endpoints() {
  QStringList out;
  for (const std::string& e : server_endpoints()) out << QString::fromStdString(e);
  return out;
}

void LocalServerController::setLogMessageText(bool on) {
  if (on == log_message_text_) return;
  log_message_text_ = on;
  if (hooks_.save_setting) hooks_.save_setting(kLogText, on);
  if (server_) server_->set_log_message_text(on);
  if (!on) history_.drop_message_texts();
  poll();  // the log without the texts at once
  emit changed();
}

QString LocalServerController::generateKey() const {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  QString key;
  for (int i = 0; i < 32; ++i) {
    key += QLatin1Char(kAlphabet[QRandomGenerator::system()->bounded(62)]);
  }
  return key;
}

bool LocalServerController::isLoopback(const QString& host) {
  const QString h = host.trimmed();
  return h.isEmpty() || server_host_is_loopback(h.toStdString());  // empty: 127.0.0.1
}

void LocalServerController::model_changed() {
  const std::shared_ptr<const Model> now = hooks_.model ? hooks_.model() : nullptr;
  if (now == served_ && (server_ || !enabled_)) return;
  restart(Why::Model);
}

QString LocalServerController::chat_template_changed() {
  if (!server_ || !hooks_.chat_template || hooks_.chat_template() == served_template_) return {};
  restart(Why::ChatTemplate);  // said by restarted() when it serves again
  if (running()) return last_restart_.value(QStringLiteral("message")).toString();
  return tr("The local server stopped to take the new chat template and did not start again: %1")
      .arg(error_);
}

void LocalServerController::stop() {
  poll_timer_.stop();
  if (server_) server_->stop();  // cancels the generations in flight, waits for them
  server_.reset();
  served_.reset();
  stats_.clear();
  request_log_.clear();
}

void LocalServerController::restart(Why why) {
  std::shared_ptr<const Model> next = enabled_ && hooks_.model ? hooks_.model() : nullptr;
  const bool replacing = server_ != nullptr && next != nullptr;  // a running one gets a successor
  // The counters and the log go on while the same model is served (a new chat template,
  // Settings' Restart, another address or port included: still the user's local server);
  // they start again when the user turns it off or it serves another model (or none).
  const bool same_server = replacing && next == served_;
  if (server_) server_->stop();  // its generations cancelled, its log complete
  if (same_server) {
    history_.carry(server_->stats(), server_->recent_requests(kRequestLogSize), kRequestLogSize);
  } else {
    history_.clear();
  }
  stop();
  error_.clear();
  if (enabled_) start(std::move(next));
  if (replacing) note_restart(why, same_server);
  emit changed();
  emit statsChanged();
}

void LocalServerController::start(std::shared_ptr<const Model> model) {
  if (!model) {
    error_ = tr("No model is loaded: the server starts once one is.");
    return;
  }
  ServerOptions o;
  o.host = host_.toStdString();
  o.port = port_;
  o.api_key = api_key_.toStdString();
  o.allow_no_key = allow_no_key_;
  o.parallel = parallel_;
  o.request_log_size = kRequestLogSize;
  o.log_message_text = log_message_text_;
  if (hooks_.session_options) o.session = hooks_.session_options();
  o.session.kv_budget_bytes = 0;  // each session grows on demand
  o.ram_tier = app_ram_tier();    // idle sessions count in the app's one RAM tier
  served_template_ = hooks_.chat_template ? hooks_.chat_template() : ChatTemplateChoice{};
  o.chat_template = served_template_.override_text;
  o.enable_thinking = served_template_.enable_thinking;
  auto started = Server::start(model, o);
  if (!started && o.api_key.empty() && !o.allow_no_key && !isLoopback(host_)) {
    started = Error{tr("Not serving on %1 without an API key: other machines could use the "
                       "model and read the conversations. Set a key, or tick \"Serve "
                       "without a key anyway\".")
                        .arg(host_)
                        .toStdString()};
  }
  if (!started) {
    error_ = QString::fromStdString(started.message());
    return;
  }
  server_ = std::move(started).value();
  served_ = std::move(model);
  poll_timer_.start();
  poll();
}

void LocalServerController::note_restart(Why why, bool counters_kept) {
  QString reason;
  switch (why) {
    case Why::ChatTemplate: reason = tr("the chat template changed"); break;
    case Why::Model: reason = tr("another model was loaded"); break;
    case Why::Settings: reason = tr("settings changed (Restart)"); break;
  }
  const QString message = tr("The local server restarted: %1.").arg(reason);
  last_restart_ = QVariantMap{{QStringLiteral("reason"), reason},
                              {QStringLiteral("message"), message},
                              {QStringLiteral("time"), QDateTime::currentMSecsSinceEpoch()},
                              {QStringLiteral("counters_kept"), counters_kept}};
  emit restarted(message);
}

void LocalServerController::poll() {
  if (!server_) return;
  const ServerStats s = history_.with_earlier(server_->stats());
  QVariantList sessions;
  std::vector<uint64_t> kv;
  for (const ServerSessionStats& st : s.sessions) {
    if (!st.created) continue;
    sessions.append(session_map(st));
    kv.push_back(st.kv_allocated_bytes);
  }
  const uint64_t available = hooks_.available_bytes ? hooks_.available_bytes() : 0;
  stats_ = QVariantMap{
      {QStringLiteral("sessions"), sessions},
      {QStringLiteral("slots"), static_cast<int>(s.sessions.size())},
      {QStringLiteral("busy"), s.busy},
      {QStringLiteral("kv_allocated_bytes"), qint64(s.kv_allocated_bytes)},
      {QStringLiteral("kv_shared_bytes"), qint64(s.kv_shared_bytes)},
      {QStringLiteral("kv_budget_bytes"), qint64(s.kv_budget_bytes)},
      {QStringLiteral("requests"), qint64(s.requests)},
      {QStringLiteral("rejected_busy"), qint64(s.rejected_busy)},
      {QStringLiteral("client_hang_ups"), qint64(s.client_hang_ups)},
      {QStringLiteral("prompt_tokens_evaluated"), qint64(s.prompt_tokens_evaluated)},
      {QStringLiteral("connections_refused"), qint64(s.connections_refused)},
      {QStringLiteral("requests_timed_out"), qint64(s.requests_timed_out)},
      {QStringLiteral("more_users"), qint64(more_users_fit(s.kv_budget_bytes, available, kv))}};
  request_log_.clear();
  for (const ServerRequestRecord& r :
       history_.log_with_earlier(server_->recent_requests(kRequestLogSize), kRequestLogSize)) {
    request_log_.append(request_record_map(r));
  }
  emit statsChanged();
}

}  // namespace kvchat::app
