// ModelController: the model and its per-model settings (`models` in QML). Owns which
// model is loaded or loading (its info, progress, error, the last failed load), the
// settings of every model file (ModelSettingsBook: KV type, context, policy, sampling;
// checked against the model before they are applied) and the machine's (backend,
// threads), each model's chat template override, and the recent models. Loads go to the
// engine thread (EngineWorker) as a ModelLoadRequest. It knows neither the conversation
// nor the banner: the chat follows it through loaded() and loadFailed(). GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>

#include "engine/worker_values.h"
#include "settings/model_settings.h"
#include "settings/settings_access.h"

namespace kvchat::app {

class EngineWorker;
class RemoteModelsController;

class ModelController : public QObject {
  Q_OBJECT
  // The loaded model's LoadedModel::to_map (empty: none yet).
  Q_PROPERTY(QVariantMap modelInfo READ info NOTIFY modelChanged)
  Q_PROPERTY(bool modelLoading READ loading NOTIFY modelChanged)
  Q_PROPERTY(double loadProgress READ load_progress NOTIFY loadProgressChanged)
  Q_PROPERTY(QString modelError READ error NOTIFY modelChanged)
  Q_PROPERTY(QStringList recentModels READ recent_models NOTIFY modelChanged)
  // The engine settings the Settings drawer shows: the settings model's, with the
  // machine's backend and threads.
  Q_PROPERTY(QVariantMap engineSettings READ engine_settings NOTIFY engineSettingsChanged)
  // The model file the Settings drawer shows and applies settings to (the loaded one, or
  // the one that was asked for last, also when its load failed) and what it is
  // (ModelFacts: name, head_dim, n_ctx_train; zeros while unknown).
  Q_PROPERTY(QString settingsModel READ settings_model NOTIFY engineSettingsChanged)
  Q_PROPERTY(QVariantMap settingsModelFacts READ settings_model_facts NOTIFY engineSettingsChanged)
  // The settings model's sampling (the drawer's); replies use the loaded model's.
  Q_PROPERTY(QVariantMap sampling READ sampling WRITE set_sampling NOTIFY samplingChanged)
  Q_PROPERTY(QVariantList samplingPresets READ sampling_presets CONSTANT)

 public:
  // settings: where the book, the machine's settings, overrides and the recent list are
  // kept (legacy_*: the global settings of older versions, every model's defaults).
  ModelController(EngineWorker& worker, SettingsAccess& settings, const QVariantMap& legacy_engine,
                  const QVariantMap& legacy_sampling, QObject* parent = nullptr);

  // Where remote models' URLs and keys come from (remote/remote_model_path.h paths).
  void set_remote(RemoteModelsController* remote) { remote_ = remote; }
  QVariantMap info() const { return info_; }
  bool loaded() const { return !info_.isEmpty(); }
  // The loaded model's file (a remote one: "remote://ENDPOINT/MODEL"); empty: none.
  QString path() const { return path_; }
  QString identity() const { return info_.value(QStringLiteral("identity")).toString(); }
  bool loading() const { return loading_; }
  QString loading_path() const { return loading_path_; }
  double load_progress() const { return load_progress_; }
  QString error() const { return error_; }
  QString failed_path() const { return failed_path_; }  // the last failed load's file
  QStringList recent_models() const;
  // When each recent model was last loaded: path -> ISO 8601 time.
  QVariantMap recent_models_used() const;
  // A removed file leaves the recent list (My models' Remove from disk).
  void forget_recent_model(const QString& path);
  QVariantMap engine_settings() const { return engine_settings_; }
  QString settings_model() const { return settings_model_; }
  QVariantMap settings_model_facts() const { return facts_of(settings_model_).to_map(); }
  QVariantMap sampling() const { return book_.sampling(settings_model_); }
  void set_sampling(const QVariantMap& sampling);
  // What replies are sampled with: the loaded model's settings.
  QVariantMap reply_sampling() const { return reply_sampling_; }
  static QVariantList sampling_presets() { return ModelSettingsBook::sampling_presets(); }
  QString demo_model_path() const { return demo_model_path_; }
  // Where the demo model is (main.cpp: beside the binary); offered when a load fails.
  void set_demo_model_path(const QString& path) { demo_model_path_ = path; }
  // No load starts while a reply is written (ChatController says when one is).
  void set_reply_running(bool running) { reply_running_ = running; }
  // The loaded file's change on disk since the load (cut short, replaced), said once:
  // the reason the first time, empty otherwise.
  QString file_change_once();

  Q_INVOKABLE void loadModel(const QString& path_or_url);
  Q_INVOKABLE void cancelLoad();
  // The settings model's engine settings (backend, threads, ctx, kv_type, context_policy):
  // the loaded model's session is reloaded with them; a model that failed is retried.
  Q_INVOKABLE void setEngineSettings(const QVariantMap& settings);
  // setEngineSettings for a given model file (main.cpp's --ctx / --kv-type before its
  // load, a banner's "drop the oldest turns", the model picker's Load); false when the
  // model cannot use them (refused with errorOccurred, nothing kept). A reload it starts is
  // said (settingNote).
  bool set_engine_settings_for(const QString& model_path, const QVariantMap& settings);
  // A model file's engine settings as its next load would use them (its own, else the
  // defaults) with the machine's backend and threads, and has_own_settings: the model
  // picker's starting values.
  Q_INVOKABLE QVariantMap engineSettingsOf(const QString& path_or_url) const;
  // The model picker's Load: `settings` (ctx, kv_type, gpu_layers, context_policy) become
  // the model's own (set_engine_settings_for), then it is loaded, once (the loaded model,
  // or one whose load failed, is reloaded by the new settings themselves). False, and no
  // load, when the model cannot use them or a reply is being written.
  Q_INVOKABLE bool loadModelWith(const QString& path_or_url, const QVariantMap& settings);
  // The engine settings' problems with the settings model (SettingIssue maps: key,
  // blocking, reason): the drawer shows them before anything is applied.
  Q_INVOKABLE QVariantList checkEngineSettings(const QVariantMap& settings) const;
  // Why the settings model cannot use this KV type; empty when it can.
  Q_INVOKABLE QString kvTypeProblem(const QString& kv_type) const;
  // The loaded model's chat template override, kept per model file: "" = the file's own
  // template, "builtin:<name>" or Jinja text. Applied at once (no reload); a template that
  // does not parse is refused with errorOccurred and the current one stays.
  Q_INVOKABLE void setChatTemplateOverride(const QString& override_text);
  // The loaded model's template switch enable_thinking (Qwen 3's): "" the template's
  // default, "on", "off"; kept per model file like the override.
  Q_INVOKABLE void setEnableThinking(const QString& mode);
  // After a failed load, back to the model still loaded and its settings.
  void keep_loaded_model();
  // Something a setting restarted elsewhere (the local server after a template change),
  // said like the settings' own notes: the status line.
  void note_setting(const QString& note) { emit settingNote(note); }
  // What the status line says when new engine settings reload a model (`loaded`: the
  // loaded one; else one whose load failed, retried).
  static QString reload_note(const QString& model_path, bool loaded);

 signals:
  void modelChanged();  // also recentModels' notification
  void loadProgressChanged();
  void engineSettingsChanged();
  void samplingChanged();
  void loadStarted(const QString& path);
  // The model is loaded and this object's state says so.
  void modelLoaded(const LoadedModel& model);
  // A load failed (this model's settings refused, or the engine's reason); the loaded
  // model, if any, stays.
  void loadFailed(const QString& path, const QString& reason);
  // The chat format changed (an override): its description in the window's language.
  void chatFormatChanged(const QString& description);
  // A setting applied with a warning ("settings", its reason), for the status line.
  void settingNote(const QString& reason);
  void errorOccurred(const QString& message);

 private:
  void on_loaded(const LoadedModel& model);
  void on_load_failed(const QString& message);
  void show_settings_of(const QString& model_path);  // settings_model_, engine_settings_, sampling
  ModelFacts facts_of(const QString& model_path) const;
  static QString template_override_key(const QString& model_path);
  static QString enable_thinking_key(const QString& model_path);
  // The loaded model's template override and enable_thinking, to the worker.
  void send_chat_template();
  void save_book();
  // A remote model's load: its endpoint's URL and key with the request (no file to check).
  void load_remote(const QString& path);

  EngineWorker& worker_;
  SettingsAccess& settings_;
  ModelSettingsBook book_;
  QVariantMap global_engine_;  // backend, threads: the machine's, not a model's
  QString settings_model_;
  QVariantMap engine_settings_;
  QVariantMap reply_sampling_;
  QVariantMap info_;
  QString path_;
  bool loading_ = false;
  QString loading_path_;
  double load_progress_ = 0;
  QString error_;
  QString failed_path_;
  QString demo_model_path_;
  bool reply_running_ = false;
  bool file_change_said_ = false;
  RemoteModelsController* remote_ = nullptr;
};

}  // namespace kvchat::app
