// The remote endpoints the user added (Models page → Remote), kept in
// <data dir>/remote_endpoints.json: each one's id, name, base URL, where its API key is
// (remote_key_store.h: "keyring", "file" or "" for none) and, per model, a GGUF file of the
// same model whose header gives the shape for the KV estimate. A file that does not parse
// is said and never overwritten. GUI thread.
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <optional>

#include "remote/remote_key_store.h"

namespace kvchat::app {

struct RemoteEndpointEntry {
  QString id, name, url;
  QString key_place;              // "keyring", "file" or "" (no key)
  QMap<QString, QString> shapes;  // model id -> a GGUF file of that model
};

// Where a remote model's requests go: the endpoint's URL and its key (read from where it
// is kept).
struct RemoteConnection {
  QString url, key, name;
};

class RemoteEndpoints {
 public:
  explicit RemoteEndpoints(const QString& data_dir);
  const QList<RemoteEndpointEntry>& list() const { return entries_; }
  const RemoteEndpointEntry* find(const QString& id) const;
  QString error() const { return error_; }  // the file could not be read or written
  QString path() const { return path_; }
  const RemoteKeyStore& keys() const { return keys_; }

  // A new endpoint (the URL checked as the client would take it; a name given or empty:
  // the URL's host); its id, or nullopt with *why.
  std::optional<QString> add(const QString& name, const QString& url, const QString& key,
                             QString* why);
  void remove(const QString& id);
  void set_shape(const QString& id, const QString& model, const QString& gguf);
  // The URL and key of endpoint `id`; nullopt with *why when it is gone or its key unreadable.
  std::optional<RemoteConnection> connection(const QString& id, QString* why) const;

 private:
  void load();
  bool save();
  QString path_;
  RemoteKeyStore keys_;
  QList<RemoteEndpointEntry> entries_;
  QString error_;
  bool unreadable_ = false;
};

}  // namespace kvchat::app
