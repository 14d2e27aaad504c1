#include "model/model_controller.h"

#include "remote/remote_model_path.h"
#include "remote/remote_models_controller.h"

#include "settings/sampling_settings.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QUrl>

#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "kvchat/model.h"
#include "model/instruction_tuned.h"

namespace kvchat::app {

namespace {

const QString kModelSettingsKey = QStringLiteral("model_settings");
const QString kGlobalEngineKey = QStringLiteral("engine_global");
const QString kRecentKey = QStringLiteral("recent_models");
const QString kRecentUsedKey = QStringLiteral("recent_models_used");
constexpr int kRecentCount = 8;

}  // namespace

ModelController::ModelController(EngineWorker& worker, SettingsAccess& settings,
                                 const QVariantMap& legacy_engine,
                                 const QVariantMap& legacy_sampling, QObject* parent)
    : QObject(parent), worker_(worker), settings_(settings) {
  book_ = ModelSettingsBook(settings_.setting(kModelSettingsKey).toMap(), legacy_engine,
                            legacy_sampling);
  global_engine_ = {{QStringLiteral("backend"),
                     legacy_engine.value(QStringLiteral("backend"), QStringLiteral("auto"))},
                    {QStringLiteral("threads"), legacy_engine.value(QStringLiteral("threads"), 0)}};
  const QVariantMap global = settings_.setting(kGlobalEngineKey).toMap();
  for (auto it = global.begin(); it != global.end(); ++it)
    global_engine_.insert(it.key(), it.value());
  show_settings_of(QString());

  // Queued: the worker's signals arrive on the GUI thread.
  connect(&worker_, &EngineWorker::modelLoaded, this, &ModelController::on_loaded);
  connect(&worker_, &EngineWorker::modelLoadFailed, this, &ModelController::on_load_failed);
  connect(&worker_, &EngineWorker::modelInspected, this,
          [this](const QString& path, const ModelFacts& facts) {
            book_.set_facts(path, facts);
            save_book();
            if (path == settings_model_) emit engineSettingsChanged();
          });
  connect(&worker_, &EngineWorker::loadProgress, this, [this](double f) {
    load_progress_ = f;
    emit loadProgressChanged();
  });
  connect(&worker_, &EngineWorker::chatFormatChanged, this, [this](const ChatFormatInfo& format) {
    info_.insert(format.to_map());
    info_.insert(QStringLiteral("instruction_tuned"), instruction_tuned(info_));
    emit modelChanged();
    emit chatFormatChanged(format.description);
  });
  connect(&worker_, &EngineWorker::chatFormatFailed, this, [this](const QString& message) {
    emit errorOccurred(tr("Chat template: %1").arg(message));
  });
}

void ModelController::save_book() { settings_.save_setting(kModelSettingsKey, book_.to_variant()); }

// ---- settings per model ---------------------------------------------------------------

void ModelController::show_settings_of(const QString& model_path) {
  settings_model_ = model_path;
  engine_settings_ = book_.engine(model_path);
  for (auto it = global_engine_.begin(); it != global_engine_.end(); ++it) {
    engine_settings_.insert(it.key(), it.value());
  }
  // Replies use the loaded model's sampling, also while another model's settings are shown
  // (its load failed and the loaded one stays).
  reply_sampling_ = book_.sampling(path_.isEmpty() ? model_path : path_);
  emit engineSettingsChanged();
  emit samplingChanged();
}

ModelFacts ModelController::facts_of(const QString& model_path) const {
  if (!model_path.isEmpty() && model_path == path_ && !info_.isEmpty())
    return ModelFacts::from_info(info_);
  return book_.facts(model_path);
}

QVariantList ModelController::checkEngineSettings(const QVariantMap& settings) const {
  QVariantMap engine = engine_settings_;
  for (auto it = settings.begin(); it != settings.end(); ++it) engine.insert(it.key(), it.value());
  return issues_to_list(check_model_settings(engine, facts_of(settings_model_)));
}

QString ModelController::kvTypeProblem(const QString& kv_type) const {
  return kv_type_problem(kv_type, facts_of(settings_model_));
}

void ModelController::set_sampling(const QVariantMap& sampling) {
  // Checked by the engine's ranges (kvchat/sampling_config.h) before it is kept.
  if (const auto problem = sampling_problem(sampling)) {
    emit errorOccurred(
        tr("Not applied: %1 %2.")
            .arg(QString::fromStdString(problem->field), QString::fromStdString(problem->problem)));
    emit samplingChanged();  // the drawer shows the values in force again
    return;
  }
  book_.set_sampling(settings_model_, sampling);
  save_book();
  reply_sampling_ = book_.sampling(path_.isEmpty() ? settings_model_ : path_);
  emit samplingChanged();
}

void ModelController::setEngineSettings(const QVariantMap& settings) {
  set_engine_settings_for(settings_model_, settings);
}

bool ModelController::set_engine_settings_for(const QString& model_path,
                                              const QVariantMap& settings) {
  QVariantMap engine = book_.engine(model_path);
  for (auto it = settings.begin(); it != settings.end(); ++it) engine.insert(it.key(), it.value());
  // Checked against the model before anything is applied: what it cannot run with is
  // refused with the reason (the drawer already shows it and disables it).
  const QVector<SettingIssue> issues = check_model_settings(engine, facts_of(model_path));
  if (has_blocking(issues)) {
    emit errorOccurred(tr("Not applied: %1").arg(blocking_reasons(issues)));
    emit engineSettingsChanged();  // the drawer shows the values in force again
    return false;
  }
  for (const char* key : {"backend", "threads"}) {
    if (settings.contains(QLatin1String(key)))
      global_engine_.insert(QLatin1String(key), settings.value(QLatin1String(key)));
  }
  settings_.save_setting(kGlobalEngineKey, global_engine_);
  book_.set_engine(model_path, engine);
  save_book();
  if (model_path == settings_model_) show_settings_of(model_path);
  // Fixing the setting of a model that failed to load retries it; the loaded model's
  // session is reloaded with its new settings. What is reloaded is said as it starts
  // (the status line), after the warnings about the values.
  const bool reload = !model_path.isEmpty() && !loading_ && !reply_running_ &&
                      (failed_path_ == model_path || model_path == path_);
  QStringList notes;
  for (const SettingIssue& issue : issues) notes << issue.reason;
  if (reload) notes << reload_note(model_path, model_path == path_);
  if (!notes.isEmpty()) emit settingNote(notes.join(QLatin1Char(' ')));
  if (reload) loadModel(model_path);
  return true;
}

QString ModelController::reload_note(const QString& model_path, bool loaded) {
  const QString file = QFileInfo(model_path).fileName();
  return loaded ? tr("Reloading %1 with the new engine settings: the conversation is computed "
                     "again.")
                      .arg(file)
                : tr("Loading %1 again with the new engine settings.").arg(file);
}

QVariantMap ModelController::engineSettingsOf(const QString& path_or_url) const {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  QVariantMap engine = book_.engine(path);
  for (auto it = global_engine_.begin(); it != global_engine_.end(); ++it)
    engine.insert(it.key(), it.value());
  engine.insert(QStringLiteral("has_own_settings"), book_.has_own_settings(path));
  return engine;
}

bool ModelController::loadModelWith(const QString& path_or_url, const QVariantMap& settings) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  if (reply_running_ || path.isEmpty()) return false;
  // A load of this file already under way runs with its old settings: loaded again below.
  const bool was_loading_it = loading_ && loading_path_ == path;
  if (!set_engine_settings_for(path, settings)) return false;
  if (was_loading_it || !loading_ || loading_path_ != path) loadModel(path);
  return true;
}

QString ModelController::template_override_key(const QString& model_path) {
  return QStringLiteral("chat_template_override/") + model_path;
}

QString ModelController::enable_thinking_key(const QString& model_path) {
  return QStringLiteral("enable_thinking/") + model_path;
}

void ModelController::setChatTemplateOverride(const QString& override_text) {
  if (path_.isEmpty()) return;
  settings_.save_setting(template_override_key(path_), override_text);
  send_chat_template();
}

void ModelController::setEnableThinking(const QString& mode) {
  if (path_.isEmpty()) return;
  settings_.save_setting(enable_thinking_key(path_), thinking_switch_name(thinking_switch(mode)));
  send_chat_template();
}

void ModelController::send_chat_template() {
  const QString override_text = settings_.setting(template_override_key(path_)).toString();
  const QString thinking = settings_.setting(enable_thinking_key(path_)).toString();
  QMetaObject::invokeMethod(
      &worker_,
      [w = &worker_, override_text, thinking] {
        w->setChatTemplateOverride(override_text, thinking);
      },
      Qt::QueuedConnection);
}

// ---- loading ----------------------------------------------------------------------------

void ModelController::loadModel(const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  if (reply_running_ || path.isEmpty()) return;
  show_settings_of(path);
  loading_path_ = path;
  load_progress_ = 0;
  loading_ = true;
  error_.clear();
  emit loadStarted(path);
  emit modelChanged();
  if (is_remote_model_path(path)) return load_remote(path);
  QVariantMap settings = engine_settings_;
  settings.insert(QStringLiteral("chat_template_override"),
                  settings_.setting(template_override_key(path)).toString());
  // A model read before is checked now, without touching the loaded one; a new one is
  // checked by the worker once its file is read.
  const QVector<SettingIssue> issues = check_model_settings(settings, book_.facts(path));
  if (has_blocking(issues)) {
    on_load_failed(blocking_reasons(issues));
    return;
  }
  auto options = session_options(settings);
  if (!options) {
    on_load_failed(QString::fromStdString(options.message()));
    return;
  }
  const ModelLoadRequest request{
      path, *options, settings.value(QStringLiteral("chat_template_override")).toString(),
      settings_.setting(enable_thinking_key(path)).toString()};
  QMetaObject::invokeMethod(
      &worker_, [w = &worker_, request] { w->loadModel(request); }, Qt::QueuedConnection);
}

void ModelController::load_remote(const QString& path) {
  QString why = tr("remote models are not available in this window");
  const auto c = remote_ ? remote_->connection(path, &why) : std::nullopt;
  if (!c) return on_load_failed(why);
  ModelLoadRequest request;
  request.path = path;
  request.remote_url = c->url;
  request.remote_key = c->key;
  request.remote_name = c->name;
  QMetaObject::invokeMethod(
      &worker_, [w = &worker_, request] { w->loadModel(request); }, Qt::QueuedConnection);
}

void ModelController::cancelLoad() {
  if (loading_) worker_.request_cancel_load();
}

void ModelController::on_loaded(const LoadedModel& model) {
  info_ = model.to_map();
  file_change_said_ = false;
  path_ = info_.value(QStringLiteral("path")).toString();
  loading_ = false;
  error_.clear();
  failed_path_.clear();
  book_.set_facts(path_, ModelFacts::from_info(info_));
  save_book();
  show_settings_of(path_);  // its settings and facts in the drawer, its sampling for replies
  // The recent list first: modelChanged is also recentModels' notification.
  QStringList recent = recent_models();
  recent.removeAll(path_);
  recent.prepend(path_);
  recent = recent.mid(0, kRecentCount);
  settings_.save_setting(kRecentKey, recent);
  QVariantMap used;  // only the listed ones are kept
  const QVariantMap before = recent_models_used();
  for (const QString& p : recent) used.insert(p, before.value(p));
  used.insert(path_, QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
  settings_.save_setting(kRecentUsedKey, used);
  emit modelChanged();
  emit modelLoaded(model);
}

void ModelController::on_load_failed(const QString& message) {
  loading_ = false;
  error_ = message;
  failed_path_ = loading_path_;
  emit modelChanged();  // the loaded model (if any) stays
  emit loadFailed(failed_path_, message);
}

void ModelController::keep_loaded_model() {
  failed_path_.clear();
  error_.clear();
  show_settings_of(path_);
  emit modelChanged();
}

QString ModelController::file_change_once() {
  if (file_change_said_) return {};
  const auto model = worker_.shared_model();
  if (!model) return {};
  const Status file = model->check_file();
  if (file) return {};
  file_change_said_ = true;
  return QString::fromStdString(file.message());
}

// ---- recent models ------------------------------------------------------------------------

QStringList ModelController::recent_models() const {
  return settings_.setting(kRecentKey).toStringList();
}

QVariantMap ModelController::recent_models_used() const {
  return settings_.setting(kRecentUsedKey).toMap();
}

void ModelController::forget_recent_model(const QString& path) {
  QStringList recent = recent_models();
  QVariantMap used = recent_models_used();
  const bool listed = recent.removeAll(path) > 0;
  if (used.remove(path) == 0 && !listed) return;
  settings_.save_setting(kRecentKey, recent);
  settings_.save_setting(kRecentUsedKey, used);
  emit modelChanged();
}

}  // namespace kvchat::app
