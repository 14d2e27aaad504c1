// Settings per model: what each model file runs with (KV type, context, context policy,
// sampling), kept per model file path, and checked against what the model is (its
// head_dim, its trained context) before they are applied. Machine-wide settings (backend,
// threads) stay global; a model's chat template override has its own key already
// (ChatController::template_override_key). Qt Core only, no state beyond the values.
#pragma once

#include <QString>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>
#include <QVector>

namespace kvchat::app {

// What a model is, as far as its settings care: from its info map once loaded, remembered
// per model so that a model not loaded yet is checked before the load.
struct ModelFacts {
  QString name;
  int head_dim = 0;     // the key length per head; 0: unknown
  int n_ctx_train = 0;  // the context it was trained for; 0: unknown
  bool known() const { return head_dim > 0; }
  static ModelFacts from_info(const QVariantMap& info);  // model_map() fields
  QVariantMap to_map() const;                            // name, head_dim, n_ctx_train
};

// One setting a model cannot use as given: key ("kv_type", "ctx"), blocking (the model
// cannot run with it: a load would fail) or a warning (it runs, but worse), and why, in
// the window's language.
struct SettingIssue {
  QString key;
  bool blocking = false;
  QString reason;
  QVariantMap to_map() const;  // key, blocking, reason
};

// Values one block of a KV type holds (32 for q8_0 and q4_0, 1 for f16 and f32); 0 for a
// name that is no KV type.
int kv_type_block_values(const QString& kv_type);
// Why this model's keys cannot be cached in `kv_type` (a block type needs head_dim to be a
// multiple of its block); empty when they can or the model is not known yet.
QString kv_type_problem(const QString& kv_type, const ModelFacts& facts);
// The engine settings ("kv_type", "ctx") checked against the model by the engine
// (kvchat::check_session_settings), in the window's words: a KV type that cannot hold its
// keys blocks; a context past the trained length warns (positions it never saw).
QVector<SettingIssue> check_model_settings(const QVariantMap& engine, const ModelFacts& facts);
// The same for a KV type and context (0: the trained length) already read.
QVector<SettingIssue> check_model_settings(const QString& kv_type, int ctx,
                                           const ModelFacts& facts);
bool has_blocking(const QVector<SettingIssue>& issues);
// The blocking issues' reasons, one sentence each.
QString blocking_reasons(const QVector<SettingIssue>& issues);
QVariantList issues_to_list(const QVector<SettingIssue>& issues);

// The settings of every model, by model file path. A model without its own values gets
// the defaults; values stored by older versions (one global "engine" and "sampling"
// setting) are every model's defaults until it has its own.
class ModelSettingsBook {
 public:
  // stored: what to_variant() gave before; legacy_*: the global settings of before.
  explicit ModelSettingsBook(const QVariantMap& stored = {}, const QVariantMap& legacy_engine = {},
                             const QVariantMap& legacy_sampling = {});

  // The engine settings kept per model, and their defaults: kv_type f16, ctx 0 (the
  // trained context), context_policy drop-oldest (a full context drops the oldest turns
  // instead of refusing the next message), gpu_layers -1 (auto: as many layers on the GPU
  // as fit its free memory; a number: that many, the rest on the CPU).
  static const QStringList& engine_keys();
  static QVariantMap default_engine();
  static QVariantMap default_sampling();
  // Named sampling presets: id ("balanced", "precise", "creative"), name (translated),
  // and the values they set (temperature, top_k, top_p, min_p, repeat_penalty).
  static QVariantList sampling_presets();

  QVariantMap engine(const QString& model) const;    // defaults < legacy < the model's own
  QVariantMap sampling(const QString& model) const;  // likewise
  // Keeps the per-model keys of `engine` (engine_keys()); the rest is not the model's.
  void set_engine(const QString& model, const QVariantMap& engine);
  void set_sampling(const QString& model, const QVariantMap& sampling);
  ModelFacts facts(const QString& model) const;
  void set_facts(const QString& model, const ModelFacts& facts);
  bool has_own_settings(const QString& model) const;

  QVariantMap to_variant() const;  // for the store

 private:
  QVariantMap entry(const QString& model) const;
  QVariantMap models_;  // path -> {"engine": {...}, "sampling": {...}, "facts": {...}}
  QVariantMap legacy_engine_;
  QVariantMap legacy_sampling_;
};

}  // namespace kvchat::app
