// DownloadManager: downloads into the models directory that resume after a restart (the
// store's rows), checked against the Hub's size and SHA-256; the network half is in
// download_manager_http.cpp.
#include "hub/download_manager.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QStorageInfo>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

#include "util/byte_size.h"
#include "hub/download_http.h"
#include "hub/download_job.h"
#include "hub/hub_endpoint.h"
#include "hub/names.h"

Q_LOGGING_CATEGORY(lcDownload, "kvchat.download")

namespace kvchat::hub {

namespace {

// The SHA-256 state over the first `bytes` bytes of `path` (run off the manager's thread).
Rehash rehash_file(const QString& path, qint64 bytes) {
  Rehash r;
  r.hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return r;
  QByteArray buffer(1 << 20, Qt::Uninitialized);
  while (r.bytes < bytes) {
    const qint64 n = f.read(buffer.data(), std::min<qint64>(buffer.size(), bytes - r.bytes));
    if (n <= 0) return r;
    r.hash->addData(QByteArrayView(buffer.constData(), n));
    r.bytes += n;
  }
  r.ok = true;
  return r;
}

}  // namespace

DownloadManager::DownloadManager(QObject* parent) : QObject(parent) {
  QNetworkProxyFactory::setUseSystemConfiguration(true);
  network_ = new QNetworkAccessManager(this);
  network_->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

DownloadManager::~DownloadManager() {
  for (auto& [id, j] : jobs_) {
    j->stopping = true;
    if (j->reply) j->reply->abort();
    if (j->file.isOpen()) save_progress(*j);
  }
}

bool DownloadManager::open(const QString& db_path, DownloadStore::Table table, QString* error) {
  store_ = DownloadStore::open(db_path, table, error);
  if (!store_) return false;
  for (const DownloadRecord& r : store_->unfinished()) {
    if (r.status == QLatin1String("running") || r.status == QLatin1String("queued")) {
      // Left so by a process that stopped: what is on disk counts.
      store_->set_progress(r.id, QFileInfo(r.part_path).size(), r.etag, nullptr);
      store_->set_status(r.id, QStringLiteral("paused"), QString(), nullptr);
    }
  }
  return true;
}

DownloadManager::Job* DownloadManager::job(qint64 id) const {
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second.get();
}

bool DownloadManager::is_active(qint64 id) const { return job(id) != nullptr; }

QVector<DownloadRecord> DownloadManager::unfinished() const {
  return store_ ? store_->unfinished() : QVector<DownloadRecord>();
}

std::optional<DownloadRecord> DownloadManager::record(qint64 id) const {
  return store_ ? store_->record(id) : std::nullopt;
}

qint64 DownloadManager::free_bytes(const QString& dir) const {
  if (options_.free_space) return options_.free_space(dir);
  return QStorageInfo(dir).bytesAvailable();
}

qint64 DownloadManager::start(const DownloadRequest& request, QString* error) {
  auto refuse = [error](const QString& message) {
    if (error) *error = message;
    qCWarning(lcDownload).noquote() << "refused:" << message;
    return qint64(0);
  };
  if (!store_) return refuse(tr("The download state database is not open."));
  // Names and numbers that came from the network (hub/names.h), then what kvchat makes
  // of the name on disk (download::local_file_name).
  if (const QString why = repo_id_problem(request.repo); !why.isEmpty())
    return refuse(tr("Refused repository name “%1”: %2").arg(request.repo, why));
  if (const QString why = file_path_problem(request.file); !why.isEmpty())
    return refuse(tr("Refused file name “%1”: %2").arg(request.file, why));
  QString why;
  const QString name = download::local_file_name(request.file, &why);
  if (name.isEmpty()) return refuse(tr("Refused file name “%1”: %2.").arg(request.file, why));
  if (sha256_problem(request.sha256.toLower()).size())
    return refuse(
        tr("The Hub gave no SHA-256 for %1: kvchat does not accept a file it cannot verify.")
            .arg(request.file));
  if (const QString problem = file_size_problem(request.expected_size); !problem.isEmpty())
    return refuse(tr("Refused %1: %2").arg(request.file, problem));
  const QUrl url = request.url;
  if (!is_allowed_url(url))
    return refuse(
        tr("Refused URL %1: https only (plain http only to this computer).").arg(url_for_log(url)));
  if (!QDir().mkpath(request.models_dir))
    return refuse(tr("Cannot create the models directory %1.").arg(request.models_dir));
  const QDir dir(request.models_dir);
  const QString dest = QDir::cleanPath(dir.absoluteFilePath(name));
  const QString part =
      QDir::cleanPath(dir.absoluteFilePath(QLatin1Char('.') + name + QStringLiteral(".part")));
  if (QFileInfo::exists(dest))
    return refuse(tr("%1 is already in the models directory.").arg(name));

  DownloadRecord rec;
  if (auto old = store_->by_dest(dest)) {
    if (Job* running = job(old->id)) return running->rec.id;  // already under way
    if (old->sha256.compare(request.sha256, Qt::CaseInsensitive) == 0 &&
        old->url == url.toString()) {
      rec = *old;  // the same file: continue its partial
    } else {
      QFile::remove(old->part_path);  // another file under that name: start over
    }
  }
  rec.repo = request.repo;
  rec.file = request.file;
  rec.url = url.toString();
  rec.dest_path = dest;
  rec.part_path = part;
  if (rec.expected_size <= 0) rec.expected_size = request.expected_size;
  rec.sha256 = request.sha256.toLower();
  rec.bytes_done = QFileInfo(part).size();
  rec.status = QStringLiteral("running");
  rec.error.clear();

  const qint64 remaining = std::max<qint64>(rec.expected_size - rec.bytes_done, 0);
  const qint64 free = free_bytes(request.models_dir);
  if (free >= 0 && free < remaining + options_.disk_margin_bytes)
    return refuse(tr("Not enough disk space for %1: %2 needed, %3 free in %4.")
                      .arg(name, util::format_bytes(remaining + options_.disk_margin_bytes),
                           util::format_bytes(free), request.models_dir));

  QString db_error;
  rec.id = store_->upsert(rec, &db_error);
  if (rec.id == 0) return refuse(db_error);
  auto j = std::make_unique<Job>();
  j->rec = rec;
  Job& ref = *j;
  jobs_[rec.id] = std::move(j);
  if (!prepare(ref, error)) {
    jobs_.erase(rec.id);
    return 0;
  }
  return rec.id;
}

bool DownloadManager::resume(qint64 id, QString* error) {
  if (job(id)) return true;
  auto rec = record(id);
  if (!rec) {
    if (error) *error = tr("No such download.");
    return false;
  }
  if (rec->status == QLatin1String("done")) {
    if (error) *error = tr("%1 is already downloaded.").arg(QFileInfo(rec->dest_path).fileName());
    return false;
  }
  const qint64 on_disk = QFileInfo(rec->part_path).size();
  const qint64 remaining = std::max<qint64>(rec->expected_size - on_disk, 0);
  const QString dir = QFileInfo(rec->dest_path).absolutePath();
  const qint64 free = free_bytes(dir);
  if (free >= 0 && free < remaining + options_.disk_margin_bytes) {
    if (error)
      *error = tr("Not enough disk space for %1: %2 needed, %3 free in %4.")
                   .arg(QFileInfo(rec->dest_path).fileName(),
                        util::format_bytes(remaining + options_.disk_margin_bytes),
                        util::format_bytes(free), dir);
    return false;
  }
  auto j = std::make_unique<Job>();
  j->rec = *rec;
  j->rec.error.clear();
  Job& ref = *j;
  jobs_[id] = std::move(j);
  store_->set_status(id, QStringLiteral("running"), QString(), nullptr);
  if (!prepare(ref, error)) {
    jobs_.erase(id);
    return false;
  }
  return true;
}

bool DownloadManager::prepare(Job& j, QString* error) {
  j.file.setFileName(j.rec.part_path);
  if (!j.file.open(QIODevice::ReadWrite)) {
    if (error) *error = tr("Cannot write %1: %2").arg(j.rec.part_path, j.file.errorString());
    store_->set_status(j.rec.id, QStringLiteral("failed"), j.file.errorString(), nullptr);
    return false;
  }
  j.bytes = j.file.size();
  if (j.rec.expected_size > 0 && j.bytes > j.rec.expected_size) {  // not this file: start over
    j.file.resize(0);
    j.bytes = 0;
  }
  j.best = j.bytes;
  j.file.seek(j.bytes);
  j.url = QUrl(j.rec.url);
  j.clock.start();
  j.meter.reset(j.bytes, 0);
  j.retry.setSingleShot(true);
  const qint64 id = j.rec.id;
  connect(&j.retry, &QTimer::timeout, this, [this, id] {
    if (Job* r = job(id)) send(*r);
  });
  set_status(j, QStringLiteral("running"), QString());
  if (j.bytes > 0) {
    begin_rehash(j);
  } else {
    j.hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    send(j);
  }
  return true;
}

void DownloadManager::begin_rehash(Job& j) {
  qCInfo(lcDownload).noquote() << "rehashing" << j.bytes << "bytes of" << j.rec.part_path;
  set_status(j, QStringLiteral("verifying"),
             tr("Checking the %1 already downloaded").arg(util::format_bytes(j.bytes)));
  auto* watcher = new QFutureWatcher<Rehash>(this);
  j.rehash = watcher;
  const qint64 id = j.rec.id;
  connect(watcher, &QFutureWatcher<Rehash>::finished, this, [this, id, watcher] {
    watcher->deleteLater();
    Job* r = job(id);
    if (!r || r->rehash != watcher) return;  // paused or cancelled meanwhile
    r->rehash = nullptr;
    Rehash result = watcher->result();
    if (!result.ok) {
      r->file.resize(0);
      r->bytes = 0;
      r->hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    } else {
      r->hash = result.hash;  // the worker's state, continued from here
    }
    r->file.seek(r->bytes);
    send(*r);
  });
  watcher->setFuture(QtConcurrent::run(rehash_file, j.rec.part_path, j.bytes));
}

void DownloadManager::complete(Job& j) {
  const qint64 id = j.rec.id;
  set_status(j, QStringLiteral("verifying"), tr("Checking the SHA-256"));
  j.file.flush();
  const QString name = QFileInfo(j.rec.dest_path).fileName();
  if (j.rec.expected_size > 0 && j.bytes != j.rec.expected_size) {
    fail(j,
         tr("%1 has %2 bytes, the Hub said %3: removed.")
             .arg(name)
             .arg(j.bytes)
             .arg(j.rec.expected_size),
         true);
    return;
  }
  const QString got = QString::fromLatin1(j.hash->result().toHex());
  if (got != j.rec.sha256) {
    fail(j,
         tr("%1 is not the Hub's file (SHA-256 %2, expected %3): the download was removed.")
             .arg(name, got.left(16), j.rec.sha256.left(16)),
         true);
    return;
  }
  j.file.close();
  if (QFileInfo::exists(j.rec.dest_path)) {
    fail(j,
         tr("%1 appeared in the models directory meanwhile: the download was removed.").arg(name),
         true);
    return;
  }
  // rename(2): atomic within the directory; a reader sees no file or the whole file.
  if (std::rename(QFile::encodeName(j.rec.part_path).constData(),
                  QFile::encodeName(j.rec.dest_path).constData()) != 0) {
    fail(j, tr("Cannot move the download to %1.").arg(j.rec.dest_path), false);
    return;
  }
  report_progress(j, true);
  store_->set_progress(id, j.bytes, j.rec.etag, nullptr);
  store_->set_status(id, QStringLiteral("done"), QString(), nullptr);
  qCInfo(lcDownload).noquote() << "done:" << j.rec.dest_path << j.bytes
                               << "bytes, SHA-256 verified";
  const QString path = j.rec.dest_path;
  emit statusChanged(id, QStringLiteral("done"), tr("Downloaded and verified"));
  jobs_.erase(id);
  emit finished(id, path);
}

void DownloadManager::fail(Job& j, const QString& message, bool remove_partial) {
  const qint64 id = j.rec.id;
  stop_reply(j);
  if (j.file.isOpen()) {
    j.file.flush();
    j.file.close();
  }
  // An empty partial is no use to a resume: a refused redirect, a 500 or a 416 leave none.
  if (remove_partial || QFileInfo(j.rec.part_path).size() == 0) {
    QFile::remove(j.rec.part_path);
    j.bytes = 0;
  }
  store_->set_progress(id, j.bytes, j.rec.etag, nullptr);
  store_->set_status(id, QStringLiteral("failed"), message, nullptr);
  qCWarning(lcDownload).noquote() << "failed:" << message;
  emit statusChanged(id, QStringLiteral("failed"), message);
  jobs_.erase(id);
  emit failed(id, message);
}

void DownloadManager::stop_reply(Job& j) {
  j.stopping = true;
  j.retry.stop();
  j.rehash = nullptr;
  if (QNetworkReply* r = j.reply) {
    j.reply = nullptr;
    r->abort();
  }
}

void DownloadManager::pause(qint64 id) {
  Job* jp = job(id);
  if (!jp) return;
  stop_reply(*jp);
  save_progress(*jp);
  jp->file.close();
  store_->set_status(id, QStringLiteral("paused"), QString(), nullptr);
  emit statusChanged(id, QStringLiteral("paused"), tr("Paused"));
  jobs_.erase(id);
}

void DownloadManager::cancel(qint64 id) {
  if (Job* jp = job(id)) {
    stop_reply(*jp);
    jp->file.close();
    jobs_.erase(id);
  }
  if (auto rec = record(id)) {
    QFile::remove(rec->part_path);
    store_->remove(id, nullptr);
  }
  emit statusChanged(id, QStringLiteral("cancelled"),
                     tr("Cancelled: the partial file was removed"));
}

void DownloadManager::save_progress(Job& j) {
  if (j.file.isOpen()) j.file.flush();
  j.rec.bytes_done = j.bytes;
  if (store_) store_->set_progress(j.rec.id, j.bytes, j.rec.etag, nullptr);
  j.last_save_ms = j.clock.elapsed();
}

void DownloadManager::report_progress(Job& j, bool force) {
  const qint64 ms = j.clock.elapsed();
  j.meter.sample(j.bytes, ms);
  if (force || ms - j.last_emit_ms >= options_.progress_interval_ms) {
    j.last_emit_ms = ms;
    const double speed = j.meter.bytes_per_second();
    emit progress(
        j.rec.id, j.bytes, j.rec.expected_size, speed > 0 ? speed : -1,
        j.rec.expected_size > 0 ? j.meter.eta_seconds(j.rec.expected_size - j.bytes) : -1);
  }
  if (ms - j.last_save_ms >= 1000) save_progress(j);
}

void DownloadManager::set_status(Job& j, const QString& status, const QString& message) {
  j.rec.status = status;
  emit statusChanged(j.rec.id, status, message);
}

}  // namespace kvchat::hub
