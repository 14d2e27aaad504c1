#include "remote/remote_key_store.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTimer>

#ifdef KVCHAT_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace kvchat::app {

namespace {

const QString kService = QStringLiteral("kvchat");

QString entry_name(const QString& id) { return QStringLiteral("remote-endpoint/") + id; }

#ifdef KVCHAT_HAVE_KEYCHAIN
// Runs `job` (made with new, not started) to its end or 5 s; true when it succeeded, a read
// job's text in *text. The job deletes itself, also when it answers after the 5 s.
bool run_job(QKeychain::Job* job, QString* error, QString* text = nullptr) {
  job->setAutoDelete(false);
  QEventLoop loop;
  bool finished = false;
  // `loop` as the context: the connection goes with it if the job answers late.
  QObject::connect(job, &QKeychain::Job::finished, &loop, [&] {
    finished = true;
    loop.quit();
  });
  QTimer::singleShot(5000, &loop, &QEventLoop::quit);
  job->start();
  if (!finished) loop.exec();
  if (!finished) {
    QObject::connect(job, &QKeychain::Job::finished, job, &QObject::deleteLater);
    if (error) *error = QObject::tr("the keyring did not answer within 5 s");
    return false;
  }
  const bool ok = job->error() == QKeychain::NoError;
  if (!ok && error) *error = job->errorString();
  if (auto* read = qobject_cast<QKeychain::ReadPasswordJob*>(job); ok && read && text)
    *text = read->textData();
  job->deleteLater();
  return ok;
}
#endif

QJsonObject read_keys(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.read(1 << 20)).object();
}

}  // namespace

RemoteKeyStore::RemoteKeyStore(QString data_dir)
    : file_(QDir(data_dir).filePath(QStringLiteral("remote_keys.json"))) {}

bool RemoteKeyStore::keyring_enabled() {
#ifdef KVCHAT_HAVE_KEYCHAIN
  return qEnvironmentVariable("KVCHAT_KEYRING") != QLatin1String("off");
#else
  return false;
#endif
}

QString RemoteKeyStore::write(const QString& id, const QString& key, QString* error) {
#ifdef KVCHAT_HAVE_KEYCHAIN
  if (keyring_enabled()) {
    auto* job = new QKeychain::WritePasswordJob(kService);
    job->setKey(entry_name(id));
    job->setTextData(key);
    if (run_job(job, nullptr)) return QStringLiteral("keyring");
  }
#endif
  return write_file(id, key, error) ? QStringLiteral("file") : QString();
}

bool RemoteKeyStore::write_file(const QString& id, const QString& key, QString* error) const {
  QJsonObject keys = read_keys(file_);
  keys.insert(id, key);
  QSaveFile f(file_);
  // Created 0600 before a byte of the key is written.
  if (!f.open(QIODevice::WriteOnly) ||
      !f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(file_, f.errorString());
    return false;
  }
  f.write(QJsonDocument(keys).toJson());
  if (!f.commit()) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(file_, f.errorString());
    return false;
  }
  return true;
}

QString RemoteKeyStore::read(const QString& id, const QString& place, QString* error) const {
#ifdef KVCHAT_HAVE_KEYCHAIN
  if (place == QLatin1String("keyring")) {
    auto* job = new QKeychain::ReadPasswordJob(kService);
    job->setKey(entry_name(id));
    QString text;
    return run_job(job, error, &text) ? text : QString();
  }
#endif
  if (place == QLatin1String("keyring")) {
    if (error) *error = QObject::tr("this build has no keyring support; enter the key again");
    return {};
  }
  if (place != QLatin1String("file")) return {};
  return read_keys(file_).value(id).toString();
}

void RemoteKeyStore::remove(const QString& id, const QString& place) {
#ifdef KVCHAT_HAVE_KEYCHAIN
  if (place == QLatin1String("keyring")) {
    auto* job = new QKeychain::DeletePasswordJob(kService);
    job->setKey(entry_name(id));
    run_job(job, nullptr);
    return;
  }
#endif
  if (place != QLatin1String("file")) return;
  QJsonObject keys = read_keys(file_);
  if (!keys.contains(id)) return;
  keys.remove(id);
  QSaveFile f(file_);
  if (f.open(QIODevice::WriteOnly) &&
      f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
    f.write(QJsonDocument(keys).toJson());
    f.commit();
  }
}

}  // namespace kvchat::app
