// RemoteModelsController: Models page → Remote, and the remote engine's memory in the panel
// (QML: Remote). The endpoints of remote_endpoints.json, each with its models as its
// /v1/models lists them (fetched off the window's thread); opening one loads it as a model
// named remote_model_path() (the model controller asks connection() for its URL and key).
// While a remote model is loaded, what its engine publishes of its memory
// (kvchat/remote_memory.h) is polled every few seconds, with this conversation's tokens and,
// when a GGUF of the model was pointed to, the KV estimate by the formula. GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>
#include <memory>

#include "kvchat/remote_client.h"
#include "kvchat/remote_memory.h"
#include "remote/remote_endpoints.h"

namespace kvchat::app {

class RemoteModelsController : public QObject {
  Q_OBJECT
  // One map per endpoint: id, name, url, key ("keyring", "file", ""), key_in_clear, state
  // ("listing", "ready", "failed"), message, models [{id, context_length, path, loaded}].
  Q_PROPERTY(QVariantList endpoints READ endpoints NOTIFY endpointsChanged)
  Q_PROPERTY(QString fileError READ file_error NOTIFY endpointsChanged)
  Q_PROPERTY(QString keyFile READ key_file CONSTANT)
  Q_PROPERTY(bool keyringEnabled READ keyring_enabled CONSTANT)
  // The loaded model is remote; its endpoint's name and its model's id.
  Q_PROPERTY(bool active READ active NOTIFY activeChanged)
  Q_PROPERTY(QString activeName READ active_name NOTIFY activeChanged)
  // The remote engine's figures: source, engine, kv_usage, kv_tokens, running, waiting,
  // prefix_hit_rate, slots, slots_busy, slot_ctx, sessions_busy, sessions_idle,
  // kv_allocated_bytes, kv_shared_bytes, kv_budget_bytes, ram_tier_used_bytes,
  // ram_tier_budget_bytes, kv_type, notes, text (describe_remote_memory), polled_at;
  // conversation_tokens, estimate_kv_bytes and shape_file (the estimate's GGUF, "" none).
  Q_PROPERTY(QVariantMap memory READ memory NOTIFY memoryChanged)

 public:
  RemoteModelsController(const QString& data_dir, QObject* parent = nullptr);
  ~RemoteModelsController() override;

  QVariantList endpoints() const;
  QString file_error() const { return endpoints_.error(); }
  QString key_file() const { return endpoints_.keys().file_path(); }
  bool keyring_enabled() const { return RemoteKeyStore::keyring_enabled(); }
  bool active() const { return !active_path_.isEmpty(); }
  QString active_name() const;
  QVariantMap memory() const;

  // "" when added (its models then listed), else why not.
  Q_INVOKABLE QString addEndpoint(const QString& name, const QString& url, const QString& key);
  Q_INVOKABLE void removeEndpoint(const QString& id);
  Q_INVOKABLE void refresh(const QString& id);  // its /v1/models again
  // The models of every endpoint not listed yet (the Remote tab opened).
  Q_INVOKABLE void listUnlisted();
  // A GGUF of the loaded remote model ("" forgets it): its shape for the KV estimate.
  Q_INVOKABLE QString setShapeFile(const QString& path_or_url);
  Q_INVOKABLE void pollMemoryNow();

  // A remote model's path whose endpoint is still listed (its model may be gone).
  bool knows(const QString& path) const;
  // For the model controller: where the model at `path` is served.
  std::optional<RemoteConnection> connection(const QString& path, QString* why) const;
  // The model loaded now (its path; "" a local one or none): polling starts or stops.
  void set_loaded_model(const QString& path);
  // The conversation's tokens after a reply (usage: prompt + completion).
  void set_conversation_tokens(qint64 tokens);

 signals:
  void endpointsChanged();
  void activeChanged();
  void memoryChanged();

 private:
  struct Listing {
    QString state, message;
    QVariantList models;
  };
  void list_models(const QString& id);
  // shape_ from the GGUF at `path` ("" none): "" or why not.
  QString read_shape(const QString& path);
  RemoteEndpoints endpoints_;
  QMap<QString, Listing> listings_;  // an endpoint not listed yet has none
  QString active_path_;
  // The loaded remote model's client (its key read once, when it loaded) and model id; the
  // polls run on it off the window's thread.
  std::shared_ptr<RemoteClient> active_client_;
  std::string active_model_;
  QVariantMap polled_;  // the last poll's figures (remote_memory_json) and polled_at
  qint64 conversation_tokens_ = -1;
  RemoteModelShape shape_;
  QString shape_file_;
  QTimer poll_;
  std::unique_ptr<QFutureWatcher<RemoteMemory>> poll_watch_;
};

}  // namespace kvchat::app
