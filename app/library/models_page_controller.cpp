#include "library/models_page_controller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "util/byte_size.h"
#include "hub/download_manager.h"
#include "hub/hub_client.h"
#include "hub/names.h"
#include "kvchat/gguf_inspect.h"

namespace kvchat::app {

namespace {

constexpr int kSearchLimit = 30;
constexpr int kAutoFitFiles = 12;  // files whose fit is checked when a repository opens

qint64 available_memory() { return qint64(kvchat::available_memory_bytes()); }

}  // namespace

ModelsPageController::ModelsPageController(const QString& data_dir, const QString& db_path,
                                           const QString& endpoint_setting,
                                           std::function<void(const QString&)> open_model,
                                           QObject* parent)
    : QObject(parent),
      data_dir_(data_dir),
      models_dir_(QDir(data_dir).filePath(QStringLiteral("models"))),
      db_path_(db_path),
      endpoint_(hub::HubEndpoint::from_setting(endpoint_setting)),
      open_model_(std::move(open_model)) {
  load_catalog_from(QStringLiteral(":/resources/models_catalog.json"));
  free_memory_ = gpu_free_ > 0 ? gpu_free_ : available_memory();
  token_ = qEnvironmentVariable("HF_TOKEN").trimmed();
  client_ = new hub::HubClient(this);
  client_->set_endpoint(endpoint_);
  client_->set_token(token_);
  header_reader_ = remote_header_reader(client_);
  if (!endpoint_.ok()) set_message(endpoint_.error());

  // The downloads run on a thread of their own: file writes, hashing and SQLite never
  // touch the GUI thread.
  download_thread_.setObjectName(QStringLiteral("kvchat-downloads"));
  download_thread_.start();
  manager_ = new hub::DownloadManager();
  manager_->moveToThread(&download_thread_);
  connect(manager_, &hub::DownloadManager::progress, this, &ModelsPageController::on_progress);
  connect(manager_, &hub::DownloadManager::statusChanged, this, &ModelsPageController::on_status);
  connect(manager_, &hub::DownloadManager::finished, this, &ModelsPageController::on_finished);
  const QString token = token_;
  QMetaObject::invokeMethod(manager_, [this, m = manager_, db = db_path, token] {
    QString error;
    const bool ok = m->open(db, hub::DownloadStore::Table::MustExist, &error);
    m->set_access_token(token);
    const QVector<hub::DownloadRecord> left = ok ? m->unfinished() : QVector<hub::DownloadRecord>();
    QMetaObject::invokeMethod(this, [this, ok, error, left] {
      if (!ok) set_message(tr("Downloads are not available: %1").arg(error));
      for (const hub::DownloadRecord& r : left) {
        downloads_[r.id] = QVariantMap{{"id", r.id},
                                       {"repo", r.repo},
                                       {"file", r.file},
                                       {"done", double(r.bytes_done)},
                                       {"total", double(r.expected_size)},
                                       {"speed", -1.0},
                                       {"eta", -1.0},
                                       {"status", r.status},
                                       {"message", r.error}};
        if (!download_order_.contains(r.id)) download_order_.append(r.id);
      }
      refresh_downloads();
    });
  });
}

ModelsPageController::~ModelsPageController() {
  // The manager saves its partial files' progress and is deleted on its own thread.
  QMetaObject::invokeMethod(manager_, [m = manager_] {
    delete m;
    QThread::currentThread()->quit();
  });
  download_thread_.wait();
}

QString ModelsPageController::endpoint() const {
  return endpoint_.ok() ? endpoint_.base().toString() : QString();
}

void ModelsPageController::load_catalog_from(const QString& path) {
  catalog_.clear();
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  const QJsonArray models =
      QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("models")).toArray();
  for (const QJsonValue& m : models) {
    const QVariantMap entry = m.toObject().toVariantMap();
    if (hub::valid_repo_id(entry.value(QStringLiteral("repo")).toString())) catalog_.append(entry);
  }
}

void ModelsPageController::set_message(const QString& text) {
  message_ = text;
  emit noticeChanged();
}

// Offline is normal: said once (the page keeps the notice), not as an error per request.
void ModelsPageController::report_error(const hub::HubError& error) {
  if (error.kind == hub::HubError::Kind::Offline || error.kind == hub::HubError::Kind::Timeout) {
    if (offline_notice_.isEmpty()) {
      offline_notice_ =
          tr("%1 The catalog stays listed; search and downloads work again once the Hub "
             "can be reached.")
              .arg(error.message);
      emit noticeChanged();
    }
    return;
  }
  set_message(error.message);
}

void ModelsPageController::search(const QString& query) {
  const int serial = ++search_serial_;
  searching_ = true;
  emit searchChanged();
  client_->search(
      query.trimmed(), kSearchLimit, this, [this, serial](const hub::HubSearchResult& r) {
        if (serial != search_serial_) return;  // a newer search was started
        searching_ = false;
        search_results_.clear();
        if (!r.error.ok()) {
          report_error(r.error);
        } else {
          if (!offline_notice_.isEmpty()) {
            offline_notice_.clear();
            emit noticeChanged();
          }
          for (const hub::HubModel& m : r.models) {
            search_results_.append(QVariantMap{{"id", m.id},
                                               {"downloads", double(m.downloads)},
                                               {"likes", double(m.likes)},
                                               {"gated", m.gated}});
          }
          set_message(r.models.isEmpty() ? tr("No GGUF repository matches “%1”.").arg(r.query)
                                         : QString());
        }
        emit searchChanged();
      });
}

void ModelsPageController::openRepo(const QString& repo) {
  const int serial = ++list_serial_;
  current_repo_ = repo;
  files_.clear();
  listing_ = true;
  emit filesChanged();
  client_->list_files(repo, this, [this, serial](const hub::HubFileList& r) {
    if (serial != list_serial_) return;
    listing_ = false;
    if (!r.error.ok()) {
      report_error(r.error);
      emit filesChanged();
      return;
    }
    for (const hub::HubFile& f : r.gguf_files()) {
      QString why;
      const QString local = QFileInfo(f.path).fileName();
      files_.append(
          QVariantMap{{"path", f.path},
                      {"size", double(f.size)},
                      {"sha256", f.sha256},
                      {"downloaded", QFileInfo::exists(QDir(models_dir_).filePath(local))},
                      {"fit_state", QStringLiteral("idle")},
                      {"fit", QVariantMap()},
                      {"fit_error", QString()}});
    }
    if (!r.rejected.isEmpty())
      set_message(tr("Left out (unsafe names): %1").arg(r.rejected.join(QStringLiteral("; "))));
    else if (files_.isEmpty())
      set_message(tr("%1 has no GGUF file.").arg(r.repo));
    emit filesChanged();
    for (int i = 0; i < files_.size() && i < kAutoFitFiles; ++i)
      checkFit(files_[i].toMap().value(QStringLiteral("path")).toString());
  });
}

int ModelsPageController::file_index(const QString& path) const {
  for (int i = 0; i < files_.size(); ++i)
    if (files_[i].toMap().value(QStringLiteral("path")).toString() == path) return i;
  return -1;
}

QVariantList ModelsPageController::files() const { return files_; }

void ModelsPageController::checkFit(const QString& path) {
  const int i = file_index(path);
  if (i < 0) return;
  free_memory_ = gpu_free_ > 0 ? gpu_free_ : available_memory();
  const QString key = current_repo_ + QLatin1Char('\n') + path;
  if (const auto it = headers_.constFind(key); it != headers_.constEnd()) {
    apply_fit(i, *it);  // the header is known: only the arithmetic again
    return;
  }
  QVariantMap f = files_[i].toMap();
  if (!header_reader_) {
    f[QStringLiteral("fit_state")] = QStringLiteral("error");
    f[QStringLiteral("fit_error")] = tr("The fit cannot be checked in this build.");
    files_[i] = f;
    emit filesChanged();
    return;
  }
  if (f.value(QStringLiteral("fit_state")).toString() == QLatin1String("reading")) return;
  f[QStringLiteral("fit_state")] = QStringLiteral("reading");
  files_[i] = f;
  emit filesChanged();
  const int serial = list_serial_;
  header_reader_(current_repo_, path, this, [this, key, path, serial](const Header& header) {
    if (header.error.isEmpty()) headers_.insert(key, header);
    if (serial != list_serial_) return;
    const int j = file_index(path);
    if (j >= 0) apply_fit(j, header);
  });
}

// The fit of files_[index] at the page's context and KV type against the free memory.
void ModelsPageController::apply_fit(int index, const Header& header) {
  QVariantMap f = files_[index].toMap();
  QString error = header.error;
  QVariantMap fit;
  if (header.inspection)
    fit = fit_map_for(*header.inspection, fit_ctx_, fit_kv_type_, free_memory_, header.bytes_read,
                      &error);
  f[QStringLiteral("fit_state")] =
      error.isEmpty() ? QStringLiteral("done") : QStringLiteral("error");
  f[QStringLiteral("fit")] = fit;
  f[QStringLiteral("fit_error")] = error;
  files_[index] = f;
  emit filesChanged();
}

void ModelsPageController::set_gpu_free_bytes(qint64 bytes) {
  bytes = std::max<qint64>(bytes, 0);
  if (bytes == gpu_free_) return;
  const bool was_gpu = gpu_free_ > 0;
  gpu_free_ = bytes;
  free_memory_ = gpu_free_ > 0 ? gpu_free_ : available_memory();
  emit fitOptionsChanged();
  // Each new report moves the figure a little: the fits are checked again only when the
  // device comes or goes (a check re-reads nothing: the headers are kept).
  if (was_gpu != (gpu_free_ > 0)) setFitOptions(fit_ctx_, fit_kv_type_);
}

void ModelsPageController::setFitOptions(int ctx, const QString& kv_type) {
  fit_ctx_ = std::max(ctx, 0);
  fit_kv_type_ = kv_type;
  emit fitOptionsChanged();
  for (int i = 0; i < files_.size() && i < kAutoFitFiles; ++i)
    checkFit(files_[i].toMap().value(QStringLiteral("path")).toString());
}

void ModelsPageController::download(const QString& path) {
  const int i = file_index(path);
  if (i < 0) return;
  const QVariantMap f = files_[i].toMap();
  hub::DownloadRequest request;
  request.repo = current_repo_;
  request.file = path;
  request.url = endpoint_.resolve_url(current_repo_, path);
  request.models_dir = models_dir_;
  request.expected_size = qint64(f.value(QStringLiteral("size")).toDouble());
  request.sha256 = f.value(QStringLiteral("sha256")).toString();
  QMetaObject::invokeMethod(manager_, [this, m = manager_, request] {
    QString error;
    const qint64 id = m->start(request, &error);
    QMetaObject::invokeMethod(this, [this, id, error, request] {
      if (id == 0) {
        set_message(error);
        return;
      }
      QVariantMap d = downloads_.value(id);
      d.insert({{"id", id},
                {"repo", request.repo},
                {"file", request.file},
                {"total", double(request.expected_size)},
                {"status", d.value(QStringLiteral("status"), QStringLiteral("running"))}});
      if (!d.contains(QStringLiteral("done"))) d[QStringLiteral("done")] = 0.0;
      downloads_[id] = d;
      if (!download_order_.contains(id)) download_order_.append(id);
      refresh_downloads();
    });
  });
}

void ModelsPageController::pause(qint64 id) {
  QMetaObject::invokeMethod(manager_, [m = manager_, id] { m->pause(id); });
}

void ModelsPageController::resume(qint64 id) {
  QMetaObject::invokeMethod(manager_, [this, m = manager_, id] {
    QString error;
    if (!m->resume(id, &error))
      QMetaObject::invokeMethod(this, [this, error] { set_message(error); });
  });
}

void ModelsPageController::cancel(qint64 id) {
  QMetaObject::invokeMethod(manager_, [m = manager_, id] { m->cancel(id); });
}

void ModelsPageController::setEndpoint(const QString& setting) {
  endpoint_ = hub::HubEndpoint::from_setting(setting.trimmed());
  client_->set_endpoint(endpoint_);
  if (save_setting_) save_setting_(QLatin1String(hub::kHubEndpointSetting), setting.trimmed());
  if (!endpoint_.ok()) {
    set_message(endpoint_.error());
  } else {
    if (!offline_notice_.isEmpty()) offline_notice_.clear();
    set_message(QString());
  }
  search_results_.clear();
  emit searchChanged();
  emit endpointChanged();
}

void ModelsPageController::setAccessToken(const QString& token) {
  token_ = token.trimmed();
  client_->set_token(token_);
  QMetaObject::invokeMethod(manager_, [m = manager_, t = token_] { m->set_access_token(t); });
  emit tokenChanged();
}

QString ModelsPageController::formatBytes(double bytes) const { return util::format_bytes(bytes); }

void ModelsPageController::on_progress(qint64 id, qint64 done, qint64 total, double speed,
                                       double eta) {
  QVariantMap& d = downloads_[id];
  d[QStringLiteral("id")] = id;
  d[QStringLiteral("done")] = double(done);
  d[QStringLiteral("total")] = double(total);
  d[QStringLiteral("speed")] = speed;
  d[QStringLiteral("eta")] = eta;
  if (!download_order_.contains(id)) download_order_.append(id);
  emit downloadsChanged();
}

void ModelsPageController::on_status(qint64 id, const QString& status, const QString& message) {
  if (status == QLatin1String("cancelled")) {
    downloads_.remove(id);
    download_order_.removeAll(id);
  } else {
    QVariantMap& d = downloads_[id];
    d[QStringLiteral("id")] = id;
    d[QStringLiteral("status")] = status;
    d[QStringLiteral("message")] = message;
    if (!download_order_.contains(id)) download_order_.append(id);
  }
  refresh_downloads();
}

void ModelsPageController::on_finished(qint64 id, const QString& path) {
  QVariantMap& d = downloads_[id];
  d[QStringLiteral("status")] = QStringLiteral("done");
  d[QStringLiteral("path")] = path;
  const int i = file_index(d.value(QStringLiteral("file")).toString());
  if (i >= 0) {
    QVariantMap f = files_[i].toMap();
    f[QStringLiteral("downloaded")] = true;
    files_[i] = f;
    emit filesChanged();
  }
  refresh_downloads();
  if (open_model_) open_model_(path);  // opened like any other model (and listed as recent)
  emit modelDownloaded(path);
}

QVariantList ModelsPageController::downloads() const {
  QVariantList out;
  for (qint64 id : download_order_) out.append(downloads_.value(id));
  return out;
}

void ModelsPageController::refresh_downloads() { emit downloadsChanged(); }

}  // namespace kvchat::app
