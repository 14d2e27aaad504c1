#include "library/models_page_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <algorithm>

#include "util/byte_size.h"
#include "hub/download_manager.h"
#include "library/models_catalog.h"
#include "hub/hub_client.h"
#include "hub/names.h"
#include "kvchat/gguf_inspect.h"
#include "library/model_recommendation.h"

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
  // A recommendation shows its download's progress.
  connect(this, &ModelsPageController::downloadsChanged, this,
          &ModelsPageController::recommendedChanged);

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
  catalog_ = read_models_catalog(path);
  refreshRecommended();
}

bool ModelsPageController::catalog_sizes_approximate() const {
  return app::catalog_sizes_approximate(catalog_);
}

void ModelsPageController::refreshRecommended() {
  recommended_free_ = gpu_free_ > 0 ? gpu_free_ : available_memory();
  recommended_ = recommend_catalog_models(catalog_, recommended_free_);
  emit recommendedChanged();
}

QVariantList ModelsPageController::recommended() const {
  QVariantList out;
  for (const QVariant& r : recommended_) out.append(recommendation_view(r.toMap()));
  return out;
}

QVariantMap ModelsPageController::recommendation_view(QVariantMap r) const {
  const QString repo = r.value(QStringLiteral("repo")).toString();
  const QString file = r.value(QStringLiteral("file")).toString();
  const QString size = util::format_bytes(r.value(QStringLiteral("size")).toDouble());
  r[QStringLiteral("size_text")] =
      r.value(QStringLiteral("size_approx")).toBool() ? tr("about %1").arg(size) : size;
  const QVariantMap fit = r.value(QStringLiteral("fit")).toMap();
  const QString total = util::format_bytes(fit.value(QStringLiteral("total_bytes")).toDouble());
  const QString free = util::format_bytes(fit.value(QStringLiteral("free_bytes")).toDouble());
  const QString tokens = QLocale().toString(r.value(QStringLiteral("n_ctx")).toInt());
  r[QStringLiteral("fit_text")] =
      gpu_free_ > 0
          ? tr("fits: about %1 with a %2-token conversation, of %3 free on the GPU")
                .arg(total, tokens, free)
          : tr("fits: about %1 with a %2-token conversation, of %3 free").arg(total, tokens, free);
  const QString local = QDir(models_dir_).filePath(QFileInfo(file).fileName());
  r[QStringLiteral("downloaded")] = QFileInfo::exists(local);
  r[QStringLiteral("path")] = local;
  QVariantMap d;  // its latest download
  for (qint64 id : download_order_) {
    const QVariantMap x = downloads_.value(id);
    if (x.value(QStringLiteral("repo")).toString() == repo &&
        x.value(QStringLiteral("file")).toString() == file)
      d = x;
  }
  const QString key = repo + QLatin1Char('\n') + file;
  const bool listing = catalog_file_listing_.contains(key);
  QString status =
      listing ? QStringLiteral("starting") : d.value(QStringLiteral("status")).toString();
  QString message = d.value(QStringLiteral("message")).toString();
  if (status.isEmpty() && catalog_file_errors_.contains(key)) {
    status = QStringLiteral("failed");  // its file tree could not be read
    message = catalog_file_errors_.value(key);
  }
  r[QStringLiteral("download_status")] = status;
  r[QStringLiteral("download_id")] = d.value(QStringLiteral("id"), 0);
  r[QStringLiteral("download_done")] = d.value(QStringLiteral("done"), 0.0);
  r[QStringLiteral("download_total")] =
      d.value(QStringLiteral("total"), r.value(QStringLiteral("size")));
  r[QStringLiteral("download_message")] = message;
  return r;
}

void ModelsPageController::downloadCatalogFile(const QString& repo, const QString& file) {
  const QString local = QDir(models_dir_).filePath(QFileInfo(file).fileName());
  if (QFileInfo::exists(local)) {
    if (open_model_) open_model_(local);
    return;
  }
  const QString key = repo + QLatin1Char('\n') + file;
  if (catalog_file_listing_.contains(key)) return;
  catalog_file_listing_.insert(key);
  catalog_file_errors_.remove(key);
  emit recommendedChanged();
  // The catalog's sizes are approximate and it holds no SHA-256: the Hub's file tree has both.
  client_->list_files(repo, this, [this, repo, file, key](const hub::HubFileList& r) {
    catalog_file_listing_.remove(key);
    if (!r.error.ok()) {
      catalog_file_errors_.insert(key, r.error.message);
      report_error(r.error);
    } else {
      const QList<hub::HubFile> files = r.gguf_files();
      const auto it = std::find_if(files.begin(), files.end(),
                                   [&file](const hub::HubFile& f) { return f.path == file; });
      if (it != files.end())
        start_download(repo, it->path, it->size, it->sha256);
      else
        catalog_file_errors_.insert(key, tr("%1 is no longer in %2 on the Hub.").arg(file, repo));
    }
    emit recommendedChanged();
  });
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
  files_message_.clear();
  listing_ = true;
  emit filesChanged();
  client_->list_files(repo, this, [this, serial, repo](const hub::HubFileList& r) {
    if (serial != list_serial_) return;
    listing_ = false;
    if (!r.error.ok()) {
      report_error(r.error);
      show_listing_failure(repo, r.error);
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

// Not an empty pane: what failed and how to ask again, and for a catalog model what the
// catalog knows (its name, each file's size, whether that file alone fits).
void ModelsPageController::show_listing_failure(const QString& repo, const hub::HubError& error) {
  const QVariantMap entry = catalog_entry(catalog_, repo);
  if (entry.isEmpty()) {
    files_message_ = tr("The Hub could not list the files of %1: %2\n“Try again” asks it again.")
                         .arg(repo, error.message);
    return;
  }
  free_memory_ = gpu_free_ > 0 ? gpu_free_ : available_memory();
  files_ = catalog_file_rows(entry, models_dir_, free_memory_);
  files_message_ =
      tr("The Hub could not list the files of %1 (%2): %3\nShown below is what the "
         "catalog knows: each file's size and whether that file alone fits in "
         "the free memory (the KV cache is counted once the file's header can be read). "
         "Downloads need the Hub: “Try again” asks it again.")
          .arg(entry.value(QStringLiteral("name")).toString(), repo, error.message);
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
  if (was_gpu != (gpu_free_ > 0)) {
    setFitOptions(fit_ctx_, fit_kv_type_);
    refreshRecommended();
  }
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
  start_download(current_repo_, path, qint64(f.value(QStringLiteral("size")).toDouble()),
                 f.value(QStringLiteral("sha256")).toString());
}

void ModelsPageController::start_download(const QString& repo, const QString& path, qint64 size,
                                          const QString& sha256) {
  hub::DownloadRequest request;
  request.repo = repo;
  request.file = path;
  request.url = endpoint_.resolve_url(repo, path);
  request.models_dir = models_dir_;
  request.expected_size = size;
  request.sha256 = sha256;
  QMetaObject::invokeMethod(manager_, [this, m = manager_, request] {
    QString error;
    const qint64 id = m->start(request, &error);
    QMetaObject::invokeMethod(this, [this, id, error, request] {
      if (id == 0) {
        catalog_file_errors_.insert(request.repo + QLatin1Char('\n') + request.file, error);
        set_message(error);
        emit recommendedChanged();
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
