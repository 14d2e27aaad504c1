#include "server/local_server_controller.h"

#include <QRandomGenerator>
#include <QVariantList>
#include <vector>

#include "server/server_users.h"

namespace kvchat::app {
namespace {

const QString kEnabled = QStringLiteral("server/enabled");
const QString kHost = QStringLiteral("server/host");
const QString kPort = QStringLiteral("server/port");
const QString kKey = QStringLiteral("server/api_key");
const QString kParallel = QStringLiteral("server/parallel");
const QString kAllowNoKey = QStringLiteral("server/allow_no_key");

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
  restart();
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
  restart();
}

void LocalServerController::chat_template_changed() {
  if (!server_ || !hooks_.chat_template || hooks_.chat_template() == served_template_) return;
  restart();
}

void LocalServerController::stop() {
  poll_timer_.stop();
  if (server_) server_->stop();  // cancels the generations in flight, waits for them
  server_.reset();
  served_.reset();
  stats_.clear();
}

void LocalServerController::restart() {
  stop();
  error_.clear();
  if (enabled_) {
    std::shared_ptr<const Model> model = hooks_.model ? hooks_.model() : nullptr;
    if (!model) {
      error_ = tr("No model is loaded: the server starts once one is.");
    } else {
      ServerOptions o;
      o.host = host_.toStdString();
      o.port = port_;
      o.api_key = api_key_.toStdString();
      o.allow_no_key = allow_no_key_;
      o.parallel = parallel_;
      if (hooks_.session_options) o.session = hooks_.session_options();
      o.session.kv_budget_bytes = 0;  // each session grows on demand; the pool has no budget
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
      if (started) {
        server_ = std::move(started).value();
        served_ = std::move(model);
        poll_timer_.start();
        poll();
      } else {
        error_ = QString::fromStdString(started.message());
      }
    }
  }
  emit changed();
  emit statsChanged();
}

void LocalServerController::poll() {
  if (!server_) return;
  const ServerStats s = server_->stats();
  QVariantList sessions;
  std::vector<uint64_t> kv;
  for (const ServerSessionStats& st : s.sessions) {
    if (!st.created) continue;
    sessions.append(QVariantMap{{QStringLiteral("index"), st.index},
                                {QStringLiteral("busy"), st.busy},
                                {QStringLiteral("tokens"), st.tokens},
                                {QStringLiteral("kv_bytes"), qint64(st.kv_allocated_bytes)},
                                {QStringLiteral("shared_bytes"), qint64(st.kv_shared_bytes)},
                                {QStringLiteral("requests"), qint64(st.requests)}});
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
      {QStringLiteral("more_users"), qint64(more_users_fit(s.kv_budget_bytes, available, kv))}};
  emit statsChanged();
}

}  // namespace kvchat::app
