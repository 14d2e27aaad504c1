#include "remote/remote_models_controller.h"

#include <QDateTime>
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

// As QML and JSON read numbers: qint64 (int64_t is `long` here, a type QVariant keeps
// apart) and double.
void put(QVariantMap& m, const char* key, const std::optional<int64_t>& v) {
  if (v) m.insert(QLatin1String(key), static_cast<qint64>(*v));
}
void put(QVariantMap& m, const char* key, const std::optional<double>& v) {
  if (v) m.insert(QLatin1String(key), *v);
}

QVariantMap memory_map(const RemoteMemory& r) {
  QVariantMap m;
  m.insert(QStringLiteral("source"), qs(r.source));
  m.insert(QStringLiteral("engine"), qs(r.engine_version));
  put(m, "kv_usage", r.kv_usage);
  put(m, "kv_tokens", r.kv_tokens);
  put(m, "running", r.running);
  put(m, "waiting", r.waiting);
  put(m, "prefix_hit_rate", r.prefix_hit_rate);
  put(m, "sessions_busy", r.sessions_busy);
  put(m, "sessions_idle", r.sessions_idle);
  put(m, "kv_allocated_bytes", r.kv_allocated_bytes);
  put(m, "kv_shared_bytes", r.kv_shared_bytes);
  put(m, "kv_budget_bytes", r.kv_budget_bytes);
  put(m, "ram_tier_used_bytes", r.ram_tier_used_bytes);
  put(m, "ram_tier_budget_bytes", r.ram_tier_budget_bytes);
  put(m, "prompt_tokens_total", r.prompt_tokens_total);
  if (!r.kv_type.empty()) m.insert(QStringLiteral("kv_type"), qs(r.kv_type));
  if (!r.server_slots.empty()) {
    int busy = 0;
    for (const RemoteSlot& s : r.server_slots) busy += s.busy ? 1 : 0;
    m.insert(QStringLiteral("slots"), static_cast<int>(r.server_slots.size()));
    m.insert(QStringLiteral("slots_busy"), busy);
    m.insert(QStringLiteral("slot_ctx"), static_cast<qint64>(r.server_slots.front().n_ctx));
  }
  QStringList notes;
  for (const std::string& n : r.notes) notes << qs(n);
  m.insert(QStringLiteral("notes"), notes);
  m.insert(QStringLiteral("text"), qs(describe_remote_memory(r, -1)));
  m.insert(QStringLiteral("polled_at"), QDateTime::currentDateTime().toString(Qt::ISODate));
  return m;
}

}  // namespace

RemoteModelsController::RemoteModelsController(const QString& data_dir, QObject* parent)
    : QObject(parent), endpoints_(data_dir) {
  poll_.setInterval(kPollMs);
  connect(&poll_, &QTimer::timeout, this, &RemoteModelsController::pollMemoryNow);
  for (const RemoteEndpointEntry& e : endpoints_.list()) listings_[e.id] = {};
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
    auto client = RemoteClient::open({e.url.toStdString(), e.key_place.isEmpty() ? "" : "k"});
    out.push_back(QVariantMap{{QStringLiteral("id"), e.id},
                              {QStringLiteral("name"), e.name},
                              {QStringLiteral("url"), e.url},
                              {QStringLiteral("key"), e.key_place},
                              {QStringLiteral("key_in_clear"), client && (*client)->key_in_clear()},
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
  listings_[*id] = {};
  emit endpointsChanged();
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

void RemoteModelsController::set_loaded_model(const QString& path) {
  const QString now = is_remote_model_path(path) ? path : QString();
  if (now == active_path_) return;
  active_path_ = now;
  memory_.clear();
  conversation_tokens_ = -1;
  shape_ = {};
  if (active()) {
    const auto ref = parse_remote_model_path(active_path_);
    const RemoteEndpointEntry* e = ref ? endpoints_.find(ref->endpoint_id) : nullptr;
    if (e && e->shapes.contains(ref->model)) setShapeFile(e->shapes.value(ref->model));
    poll_.start();
    pollMemoryNow();
  } else {
    poll_.stop();
  }
  emit activeChanged();
  emit memoryChanged();
  emit endpointsChanged();  // which model is loaded
}

void RemoteModelsController::set_conversation_tokens(qint64 tokens) {
  conversation_tokens_ = tokens;
  estimate();
  emit memoryChanged();
}

QString RemoteModelsController::setShapeFile(const QString& path_or_url) {
  const auto ref = parse_remote_model_path(active_path_);
  if (!ref) return tr("No remote model is loaded.");
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  shape_ = {};
  QString error;
  if (!path.isEmpty()) {
    auto g = inspect_gguf_file(path.toStdString());
    if (!g)
      error = qs(g.message());
    else if (!g->shape_known)
      error = tr("%1 does not say its model's shape").arg(path);
    else
      shape_ = {g->n_layers, g->n_kv_heads, g->head_dim};
  }
  if (error.isEmpty()) endpoints_.set_shape(ref->endpoint_id, ref->model, path);
  memory_.insert(QStringLiteral("shape_file"), error.isEmpty() ? path : QString());
  estimate();
  emit memoryChanged();
  return error;
}

void RemoteModelsController::estimate() {
  memory_.insert(QStringLiteral("conversation_tokens"), conversation_tokens_);
  memory_.remove(QStringLiteral("estimate_kv_bytes"));
  if (shape_.known() && conversation_tokens_ >= 0) {
    memory_.insert(QStringLiteral("estimate_kv_bytes"),
                   static_cast<qint64>(shape_.kv_bytes(conversation_tokens_)));
    memory_.insert(
        QStringLiteral("shape"),
        QVariantMap{{QStringLiteral("n_layers"), static_cast<qint64>(shape_.n_layers)},
                    {QStringLiteral("n_kv_heads"), static_cast<qint64>(shape_.n_kv_heads)},
                    {QStringLiteral("head_dim"), static_cast<qint64>(shape_.head_dim)}});
  }
}

void RemoteModelsController::pollMemoryNow() {
  if (!active() || polling_) return;
  QString why;
  const auto c = connection(active_path_, &why);
  const auto ref = parse_remote_model_path(active_path_);
  if (!c || !ref) return;
  polling_ = true;
  const RemoteEndpoint endpoint{c->url.toStdString(), c->key.toStdString()};
  const std::string model = ref->model.toStdString();
  poll_watch_ = std::make_unique<QFutureWatcher<RemoteMemory>>();
  const QString polled_path = active_path_;
  connect(poll_watch_.get(), &QFutureWatcherBase::finished, this, [this, polled_path] {
    polling_ = false;
    if (polled_path != active_path_) return;
    const QVariantMap keep = memory_;
    memory_ = memory_map(poll_watch_->result());
    for (const char* k : {"conversation_tokens", "estimate_kv_bytes", "shape", "shape_file"}) {
      if (keep.contains(QLatin1String(k)))
        memory_.insert(QLatin1String(k), keep.value(QLatin1String(k)));
    }
    emit memoryChanged();
  });
  poll_watch_->setFuture(QtConcurrent::run([endpoint, model] {
    auto client = RemoteClient::open(endpoint);
    if (!client) {
      RemoteMemory m;
      m.notes.push_back(client.message());
      return m;
    }
    return (*client)->memory(model);
  }));
}

}  // namespace kvchat::app
