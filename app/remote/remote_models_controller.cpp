#include "remote/remote_models_controller.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QUrl>
#include <QtConcurrent>

#include "kvchat/gguf_inspect.h"
#include "kvchat/remote_client.h"
#include "remote/remote_model_path.h"

namespace kvchat::app {

namespace {

constexpr int kPollMs = 4000;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The poll's figures as the panel reads them (the mapping is kvchat_remote's).
QVariantMap polled_map(const RemoteMemory& r) {
  QVariantMap m = QJsonDocument::fromJson(QByteArray::fromStdString(remote_memory_json(r)))
                      .object()
                      .toVariantMap();
  m.insert(QStringLiteral("polled_at"), QDateTime::currentDateTime().toString(Qt::ISODate));
  return m;
}

}  // namespace

RemoteModelsController::RemoteModelsController(const QString& data_dir, QObject* parent)
    : QObject(parent), endpoints_(data_dir) {
  poll_.setInterval(kPollMs);
  connect(&poll_, &QTimer::timeout, this, &RemoteModelsController::pollMemoryNow);
}

RemoteModelsController::~RemoteModelsController() {
  if (poll_watch_) poll_watch_->waitForFinished();
}

QVariantList RemoteModelsController::endpoints() const {
  QVariantList out;
  for (const RemoteEndpointEntry& e : endpoints_.list()) {
    const Listing l = listings_.value(e.id);
    QVariantList models;
    for (QVariant m : l.models) {
      QVariantMap mm = m.toMap();
      mm.insert(QStringLiteral("loaded"),
                mm.value(QStringLiteral("path")).toString() == active_path_);
      models.push_back(mm);
    }
    out.push_back(
        QVariantMap{{QStringLiteral("id"), e.id},
                    {QStringLiteral("name"), e.name},
                    {QStringLiteral("url"), e.url},
                    {QStringLiteral("key"), e.key_place},
                    {QStringLiteral("key_in_clear"),
                     !e.key_place.isEmpty() && plain_http_beyond_this_machine(e.url.toStdString())},
                    {QStringLiteral("state"), l.state},
                    {QStringLiteral("message"), l.message},
                    {QStringLiteral("models"), models}});
  }
  return out;
}

QString RemoteModelsController::active_name() const {
  const auto ref = parse_remote_model_path(active_path_);
  if (!ref) return {};
  const RemoteEndpointEntry* e = endpoints_.find(ref->endpoint_id);
  return e ? tr("%1 at %2").arg(ref->model, e->name) : ref->model;
}

QString RemoteModelsController::addEndpoint(const QString& name, const QString& url,
                                            const QString& key) {
  QString why;
  const auto id = endpoints_.add(name, url, key, &why);
  if (!id) return why;
  list_models(*id);
  return {};
}

void RemoteModelsController::removeEndpoint(const QString& id) {
  endpoints_.remove(id);
  listings_.remove(id);
  emit endpointsChanged();
}

void RemoteModelsController::refresh(const QString& id) { list_models(id); }

void RemoteModelsController::listUnlisted() {
  for (const RemoteEndpointEntry& e : endpoints_.list()) {
    if (listings_.value(e.id).state.isEmpty()) list_models(e.id);
  }
}

void RemoteModelsController::list_models(const QString& id) {
  QString why;
  const auto c = endpoints_.connection(id, &why);
  Listing& l = listings_[id];
  if (!c) {
    l = {QStringLiteral("failed"), why, {}};
    emit endpointsChanged();
    return;
  }
  l.state = QStringLiteral("listing");
  l.message.clear();
  emit endpointsChanged();
  QPointer<RemoteModelsController> self(this);
  auto* watch = new QFutureWatcher<Result<std::vector<RemoteModel>>>(this);
  connect(watch, &QFutureWatcherBase::finished, this, [this, self, watch, id] {
    watch->deleteLater();
    if (!self || !listings_.contains(id)) return;
    const auto r = watch->result();
    Listing& l = listings_[id];
    l.models.clear();
    if (!r) {
      l = {QStringLiteral("failed"), qs(r.message()), {}};
    } else {
      l.state = QStringLiteral("ready");
      for (const RemoteModel& m : *r) {
        l.models.push_back(
            QVariantMap{{QStringLiteral("id"), qs(m.id)},
                        {QStringLiteral("context_length"), static_cast<qint64>(m.context_length)},
                        {QStringLiteral("path"), remote_model_path(id, qs(m.id))}});
      }
      if (r->empty()) l.message = tr("It lists no model.");
    }
    emit endpointsChanged();
  });
  const RemoteEndpoint endpoint{c->url.toStdString(), c->key.toStdString()};
  watch->setFuture(QtConcurrent::run([endpoint]() -> Result<std::vector<RemoteModel>> {
    auto client = RemoteClient::open(endpoint);
    if (!client) return client.error();
    return (*client)->list_models();
  }));
}

bool RemoteModelsController::knows(const QString& path) const {
  const auto ref = parse_remote_model_path(path);
  return ref && endpoints_.find(ref->endpoint_id);
}

std::optional<RemoteConnection> RemoteModelsController::connection(const QString& path,
                                                                   QString* why) const {
  const auto ref = parse_remote_model_path(path);
  if (!ref) {
    *why = tr("'%1' is not a remote model's name").arg(path);
    return std::nullopt;
  }
  return endpoints_.connection(ref->endpoint_id, why);
}

QVariantMap RemoteModelsController::memory() const {
  QVariantMap m = polled_;
  m.insert(QStringLiteral("conversation_tokens"), conversation_tokens_);
  m.insert(QStringLiteral("shape_file"), shape_file_);
  if (shape_.known() && conversation_tokens_ >= 0) {
    m.insert(QStringLiteral("estimate_kv_bytes"),
             static_cast<qint64>(shape_.kv_bytes(conversation_tokens_)));
    m.insert(QStringLiteral("shape"),
             QVariantMap{{QStringLiteral("n_layers"), static_cast<qint64>(shape_.n_layers)},
                         {QStringLiteral("n_kv_heads"), static_cast<qint64>(shape_.n_kv_heads)},
                         {QStringLiteral("head_dim"), static_cast<qint64>(shape_.head_dim)}});
  }
  return m;
}

void RemoteModelsController::set_loaded_model(const QString& path) {
  const QString now = is_remote_model_path(path) ? path : QString();
  if (now == active_path_) return;
  active_path_ = now;
  active_client_.reset();
  polled_.clear();
  conversation_tokens_ = -1;
  read_shape({});
  poll_.stop();
  if (const auto ref = parse_remote_model_path(active_path_)) {
    const RemoteEndpointEntry* e = endpoints_.find(ref->endpoint_id);
    if (e) read_shape(e->shapes.value(ref->model));
    QString why;
    if (const auto c = endpoints_.connection(ref->endpoint_id, &why)) {
      auto client = RemoteClient::open({c->url.toStdString(), c->key.toStdString()});
      if (client) active_client_ = std::move(*client);
    }
    active_model_ = ref->model.toStdString();
    poll_.start();
    pollMemoryNow();
  }
  emit activeChanged();
  emit memoryChanged();
  emit endpointsChanged();  // which model is loaded
}

void RemoteModelsController::set_conversation_tokens(qint64 tokens) {
  conversation_tokens_ = tokens;
  emit memoryChanged();
}

QString RemoteModelsController::read_shape(const QString& path) {
  shape_ = {};
  shape_file_.clear();
  if (path.isEmpty()) return {};
  auto g = inspect_gguf_file(path.toStdString());
  if (!g) return qs(g.message());
  if (!g->shape_known) return tr("%1 does not say its model's shape").arg(path);
  shape_ = {g->n_layers, g->n_kv_heads, g->head_dim};
  shape_file_ = path;
  return {};
}

QString RemoteModelsController::setShapeFile(const QString& path_or_url) {
  const auto ref = parse_remote_model_path(active_path_);
  if (!ref) return tr("No remote model is loaded.");
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  const QString error = read_shape(path);
  if (error.isEmpty()) endpoints_.set_shape(ref->endpoint_id, ref->model, path);
  emit memoryChanged();
  return error;
}

void RemoteModelsController::pollMemoryNow() {
  if (!active_client_ || (poll_watch_ && poll_watch_->isRunning())) return;
  poll_watch_ = std::make_unique<QFutureWatcher<RemoteMemory>>();
  const QString polled_path = active_path_;
  connect(poll_watch_.get(), &QFutureWatcherBase::finished, this, [this, polled_path] {
    if (polled_path != active_path_) return;
    polled_ = polled_map(poll_watch_->result());
    emit memoryChanged();
  });
  poll_watch_->setFuture(QtConcurrent::run(
      [client = active_client_, model = active_model_] { return client->memory(model); }));
}

}  // namespace kvchat::app
