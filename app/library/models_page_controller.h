// ModelsPageController: what the Models page (ui/ModelsPage.qml) talks to. The curated
// catalog (resources/models_catalog.json), a search of the Hub for GGUF repositories
// (hub::HubClient), a repository's files with their size and SHA-256, "Will it fit?" for
// each file (its remote header read with Range requests: weights + KV at the chosen
// context and KV type against this machine's free memory, the longest context that fits,
// how many such conversations fit, whether kvchat can run it), and the downloads
// (hub::DownloadManager on a thread of its own, its state in the app's database).
// Network calls are asynchronous; nothing here waits on the GUI thread. Without a
// network the page says so once; local models and the demo model are untouched.
// The access token lives in memory only (from HF_TOKEN, or typed on the page). The first
// run's welcome asks it for the catalog's chat models that fit this computer and downloads
// one by its catalog name (recommended, downloadCatalogFile).
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThread>
#include <QVariantList>
#include <QVariantMap>
#include <functional>
#include <memory>

#include "hub/hub_endpoint.h"
#include "kvchat/gguf_inspect.h"
#include "library/models_fit.h"

namespace kvchat::hub {
class DownloadManager;
class HubClient;
struct HubError;
}  // namespace kvchat::hub

namespace kvchat::app {

class ModelsPageController : public QObject {
  Q_OBJECT
  // The catalog's entries (library/models_catalog.h: each with its size_text).
  Q_PROPERTY(QVariantList catalog READ catalog CONSTANT)
  // Whether the catalog shows approximate sizes (its heading says so only then).
  Q_PROPERTY(bool catalogSizesApproximate READ catalog_sizes_approximate CONSTANT)
  Q_PROPERTY(QVariantList searchResults READ search_results NOTIFY searchChanged)
  Q_PROPERTY(bool searching READ searching NOTIFY searchChanged)
  Q_PROPERTY(QString currentRepo READ current_repo NOTIFY filesChanged)
  Q_PROPERTY(QVariantList files READ files NOTIFY filesChanged)
  Q_PROPERTY(bool listing READ listing NOTIFY filesChanged)
  // Why the chosen repository's files are not listed from the Hub, what is shown instead
  // and how to ask again; empty while they are (or are being) listed.
  Q_PROPERTY(QString filesMessage READ files_message NOTIFY filesChanged)
  Q_PROPERTY(QVariantList downloads READ downloads NOTIFY downloadsChanged)
  Q_PROPERTY(QString offlineNotice READ offline_notice NOTIFY noticeChanged)
  Q_PROPERTY(QString message READ message NOTIFY noticeChanged)
  Q_PROPERTY(int fitContext READ fit_context NOTIFY fitOptionsChanged)
  Q_PROPERTY(QString fitKvType READ fit_kv_type NOTIFY fitOptionsChanged)
  Q_PROPERTY(double freeMemoryBytes READ free_memory_bytes NOTIFY fitOptionsChanged)
  // True when the fits are against the GPU's free memory (the CUDA backend runs the chat).
  Q_PROPERTY(bool freeMemoryIsGpu READ free_memory_is_gpu NOTIFY fitOptionsChanged)
  Q_PROPERTY(bool hasToken READ has_token NOTIFY tokenChanged)
  Q_PROPERTY(QString endpoint READ endpoint NOTIFY endpointChanged)
  Q_PROPERTY(QString endpointSource READ endpoint_source NOTIFY endpointChanged)
  Q_PROPERTY(QString modelsDir READ models_dir CONSTANT)
  // The welcome's "Recommended for this computer" (library/model_recommendation.h): at most
  // three chat models of the catalog that fit the free memory at 4,096 tokens, smallest
  // first; each with size_text, fit_text, downloaded, and its download's state
  // (download_status "", "starting" while its file tree is read, or the download's:
  // "running", "waiting", "verifying", "paused", "failed", "done"; download_id,
  // download_done, download_total, download_message).
  Q_PROPERTY(QVariantList recommended READ recommended NOTIFY recommendedChanged)
  // The free memory the recommendations were checked against (the GPU's when it runs the chat).
  Q_PROPERTY(double recommendedFreeBytes READ recommended_free_bytes NOTIFY recommendedChanged)

 public:
  // data_dir: the app's (models go to data_dir/models); db_path: the app's database,
  // already migrated; open_model: how a finished download is opened (ChatController::loadModel);
  // endpoint_setting: the Hub address from the settings ("" = HF_ENDPOINT or the default).
  ModelsPageController(const QString& data_dir, const QString& db_path,
                       const QString& endpoint_setting,
                       std::function<void(const QString&)> open_model, QObject* parent = nullptr);
  // How setEndpoint() keeps the setting (ChatController::setUiSetting in the app).
  void set_setting_saver(std::function<void(const QString& key, const QVariant& value)> save) {
    save_setting_ = std::move(save);
  }
  ~ModelsPageController() override;

  QVariantList catalog() const { return catalog_; }
  bool catalog_sizes_approximate() const;
  QVariantList search_results() const { return search_results_; }
  bool searching() const { return searching_; }
  QString current_repo() const { return current_repo_; }
  QVariantList files() const;
  bool listing() const { return listing_; }
  QString files_message() const { return files_message_; }
  QVariantList downloads() const;
  QString offline_notice() const { return offline_notice_; }
  QString message() const { return message_; }
  int fit_context() const { return fit_ctx_; }
  QString fit_kv_type() const { return fit_kv_type_; }
  double free_memory_bytes() const { return double(free_memory_); }
  bool free_memory_is_gpu() const { return gpu_free_ > 0; }
  // The GPU's free memory as the chat's session reports it (its memory report's
  // device_free_bytes; 0: the CPU runs the chat): the fits are checked against it, since
  // the weights and the KV cache would live there.
  void set_gpu_free_bytes(qint64 bytes);
  bool has_token() const { return !token_.isEmpty(); }
  QString endpoint() const;
  // "setting", "HF_ENDPOINT" or "default".
  QString endpoint_source() const { return endpoint_.source(); }
  QString models_dir() const { return models_dir_; }
  QVariantList recommended() const;
  double recommended_free_bytes() const { return double(recommended_free_); }

  Q_INVOKABLE void search(const QString& query);
  // Lists the repository's files (and checks the fit of its GGUF files). When the Hub
  // cannot list them, filesMessage says so, and a catalog model's files are the catalog's
  // (their sizes, whether each file alone fits); openRepo again asks the Hub again.
  Q_INVOKABLE void openRepo(const QString& repo);
  Q_INVOKABLE void checkFit(const QString& path);
  // The context length (tokens) and KV type of the fit; every listed file is checked again.
  Q_INVOKABLE void setFitOptions(int ctx, const QString& kv_type);
  Q_INVOKABLE void download(const QString& path);
  // A catalog file by its repository and name (the welcome's "Download and open"): its
  // exact size and SHA-256 are read from the Hub's file tree, then it downloads like any
  // other and is opened once verified (every finished download is). Already in the models
  // directory: opened at once.
  Q_INVOKABLE void downloadCatalogFile(const QString& repo, const QString& file);
  // The recommendations again, against the free memory now (the welcome, when it opens).
  Q_INVOKABLE void refreshRecommended();
  Q_INVOKABLE void pause(qint64 id);
  Q_INVOKABLE void resume(qint64 id);
  Q_INVOKABLE void cancel(qint64 id);
  // The Hub's address as the setting hub/endpoint ("" = HF_ENDPOINT, else the default);
  // saved through save_setting. A refused value (plain http to another computer) is said.
  Q_INVOKABLE void setEndpoint(const QString& setting);
  // Kept in memory only (never in the database nor the log); "" forgets it.
  Q_INVOKABLE void setAccessToken(const QString& token);
  Q_INVOKABLE QString formatBytes(double bytes) const;

  // A file's header as read from the Hub, and how it is read (library/models_fit.h).
  using Header = RemoteGgufHeader;
  using HeaderReader = RemoteHeaderReader;
  void set_header_reader(HeaderReader reader) { header_reader_ = std::move(reader); }
  // The catalog from another file than the one built into the app (tests).
  void load_catalog_from(const QString& path);

 signals:
  void searchChanged();
  void filesChanged();
  void downloadsChanged();
  void noticeChanged();
  void fitOptionsChanged();
  void tokenChanged();
  void endpointChanged();
  void recommendedChanged();
  // A download finished, verified, and was handed to open_model.
  void modelDownloaded(const QString& path);

 private:
  void report_error(const hub::HubError& error);
  void show_listing_failure(const QString& repo, const hub::HubError& error);
  void set_message(const QString& text);
  void on_progress(qint64 id, qint64 done, qint64 total, double speed, double eta);
  void on_status(qint64 id, const QString& status, const QString& message);
  void on_finished(qint64 id, const QString& path);
  void refresh_downloads();
  void apply_fit(int index, const Header& header);
  int file_index(const QString& path) const;
  void start_download(const QString& repo, const QString& path, qint64 size, const QString& sha256);
  // A recommendation with its texts, whether it is on disk, and its download's state.
  QVariantMap recommendation_view(QVariantMap r) const;

  QString data_dir_, models_dir_, db_path_;
  hub::HubEndpoint endpoint_;
  std::function<void(const QString&)> open_model_;
  std::function<void(const QString&, const QVariant&)> save_setting_;
  hub::HubClient* client_ = nullptr;
  QThread download_thread_;
  hub::DownloadManager* manager_ = nullptr;  // lives on download_thread_
  HeaderReader header_reader_;
  QHash<QString, Header> headers_;  // by repo + '\n' + path: read once, the fit recomputed here
  QString token_;

  QVariantList catalog_;
  QVariantList recommended_;  // recommend_catalog_models at the last refresh
  qint64 recommended_free_ = 0;
  QSet<QString> catalog_file_listing_;           // repo + '\n' + file: its file tree being read
  QHash<QString, QString> catalog_file_errors_;  // repo + '\n' + file: why it did not start
  QVariantList search_results_;
  bool searching_ = false;
  QString current_repo_;
  QVariantList files_;  // maps: path, size, sha256, gguf, fit, fit_state, fit_error, downloaded
  bool listing_ = false;
  QString files_message_;
  QHash<qint64, QVariantMap> downloads_;  // by id
  QList<qint64> download_order_;
  QString offline_notice_;
  QString message_;
  int fit_ctx_ = 4096;
  QString fit_kv_type_ = QStringLiteral("f16");
  qint64 free_memory_ = 0;
  qint64 gpu_free_ = 0;  // 0: no GPU runs the chat (RAM is what counts)
  int search_serial_ = 0, list_serial_ = 0;
};

}  // namespace kvchat::app
