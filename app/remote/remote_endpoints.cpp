#include "remote/remote_endpoints.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QUrl>

#include "kvchat/remote_client.h"

namespace kvchat::app {

RemoteEndpoints::RemoteEndpoints(const QString& data_dir)
    : path_(QDir(data_dir).filePath(QStringLiteral("remote_endpoints.json"))), keys_(data_dir) {
  load();
}

void RemoteEndpoints::load() {
  QFile f(path_);
  if (!f.exists()) return;
  if (!f.open(QIODevice::ReadOnly)) {
    error_ = QObject::tr("cannot read %1: %2").arg(path_, f.errorString());
    unreadable_ = true;
    return;
  }
  QJsonParseError pe{};
  const QJsonDocument doc = QJsonDocument::fromJson(f.read(8 << 20), &pe);
  if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
    error_ = QObject::tr("%1 is not the endpoints file kvchat writes (%2); it is left as it is")
                 .arg(path_, pe.errorString());
    unreadable_ = true;
    return;
  }
  for (const QJsonValue& v : doc.object().value(QStringLiteral("endpoints")).toArray()) {
    const QJsonObject o = v.toObject();
    RemoteEndpointEntry e{o.value(QStringLiteral("id")).toString(),
                          o.value(QStringLiteral("name")).toString(),
                          o.value(QStringLiteral("url")).toString(),
                          o.value(QStringLiteral("key")).toString(),
                          {}};
    const QJsonObject shapes = o.value(QStringLiteral("shapes")).toObject();
    for (auto it = shapes.begin(); it != shapes.end(); ++it)
      e.shapes.insert(it.key(), it.value().toString());
    if (!e.id.isEmpty() && !e.url.isEmpty()) entries_.push_back(e);
  }
}

bool RemoteEndpoints::save() {
  if (unreadable_) return false;  // never over a file the user may want back
  QJsonArray list;
  for (const RemoteEndpointEntry& e : entries_) {
    QJsonObject shapes;
    for (auto it = e.shapes.begin(); it != e.shapes.end(); ++it)
      shapes.insert(it.key(), it.value());
    list.append(QJsonObject{{QStringLiteral("id"), e.id},
                            {QStringLiteral("name"), e.name},
                            {QStringLiteral("url"), e.url},
                            {QStringLiteral("key"), e.key_place},
                            {QStringLiteral("shapes"), shapes}});
  }
  QSaveFile f(path_);
  if (!f.open(QIODevice::WriteOnly)) {
    error_ = QObject::tr("cannot write %1: %2").arg(path_, f.errorString());
    return false;
  }
  f.write(QJsonDocument(QJsonObject{{QStringLiteral("endpoints"), list}}).toJson());
  if (!f.commit()) {
    error_ = QObject::tr("cannot write %1: %2").arg(path_, f.errorString());
    return false;
  }
  error_.clear();
  return true;
}

const RemoteEndpointEntry* RemoteEndpoints::find(const QString& id) const {
  for (const RemoteEndpointEntry& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

std::optional<QString> RemoteEndpoints::add(const QString& name, const QString& url,
                                            const QString& key, QString* why) {
  if (unreadable_) {
    *why = error_;
    return std::nullopt;
  }
  const QString trimmed = url.trimmed();
  auto client = RemoteClient::open({trimmed.toStdString(), key.trimmed().toStdString()});
  if (!client) {
    *why = QString::fromStdString(client.message());
    return std::nullopt;
  }
  RemoteEndpointEntry e;
  e.id = QStringLiteral("e%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
  e.name = name.trimmed().isEmpty() ? QUrl(trimmed).host() : name.trimmed();
  e.url = trimmed;
  if (!key.trimmed().isEmpty()) {
    e.key_place = keys_.write(e.id, key.trimmed(), why);
    if (e.key_place.isEmpty()) return std::nullopt;
  }
  entries_.push_back(e);
  if (!save()) {
    entries_.pop_back();
    keys_.remove(e.id, e.key_place);
    *why = error_;
    return std::nullopt;
  }
  return e.id;
}

void RemoteEndpoints::remove(const QString& id) {
  for (qsizetype i = 0; i < entries_.size(); ++i) {
    if (entries_[i].id != id) continue;
    keys_.remove(id, entries_[i].key_place);
    entries_.removeAt(i);
    save();
    return;
  }
}

void RemoteEndpoints::set_shape(const QString& id, const QString& model, const QString& gguf) {
  for (RemoteEndpointEntry& e : entries_) {
    if (e.id != id) continue;
    if (gguf.isEmpty())
      e.shapes.remove(model);
    else
      e.shapes.insert(model, gguf);
    save();
  }
}

std::optional<RemoteConnection> RemoteEndpoints::connection(const QString& id, QString* why) const {
  const RemoteEndpointEntry* e = find(id);
  if (!e) {
    *why = QObject::tr("the remote endpoint of this model was removed (Models page → Remote)");
    return std::nullopt;
  }
  RemoteConnection c{e->url, {}, e->name};
  if (!e->key_place.isEmpty()) {
    QString error;
    c.key = keys_.read(id, e->key_place, &error);
    if (c.key.isEmpty()) {
      *why = QObject::tr("the API key of %1 could not be read from the %2: %3")
                 .arg(e->name,
                      e->key_place == QLatin1String("keyring") ? QObject::tr("keyring")
                                                               : keys_.file_path(),
                      error.isEmpty() ? QObject::tr("it is not there") : error);
      return std::nullopt;
    }
  }
  return c;
}

}  // namespace kvchat::app
