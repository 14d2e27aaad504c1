#include "settings/model_settings.h"

#include <QCoreApplication>

#include "settings/sampling_settings.h"
#include "kvchat/chat_model.h"

namespace kvchat::app {

namespace {

QVariantMap merged(QVariantMap base, const QVariantMap& over) {
  for (auto it = over.begin(); it != over.end(); ++it) base.insert(it.key(), it.value());
  return base;
}

QVariantMap only_keys(const QVariantMap& m, const QStringList& keys) {
  QVariantMap out;
  for (const QString& k : keys) {
    if (m.contains(k)) out.insert(k, m.value(k));
  }
  return out;
}

const QStringList& sampling_keys() {
  static const QStringList keys{QStringLiteral("temperature"),    QStringLiteral("top_k"),
                                QStringLiteral("top_p"),          QStringLiteral("min_p"),
                                QStringLiteral("repeat_penalty"), QStringLiteral("seed"),
                                QStringLiteral("max_tokens"),     QStringLiteral("preset")};
  return keys;
}

}  // namespace

// ---- what a model is ------------------------------------------------------------------

ModelFacts ModelFacts::from_info(const QVariantMap& info) {
  ModelFacts f;
  f.name = info.value(QStringLiteral("name")).toString();
  f.head_dim = info.value(QStringLiteral("head_dim")).toInt();
  f.n_ctx_train = info.value(QStringLiteral("n_ctx_train")).toInt();
  return f;
}

QVariantMap ModelFacts::to_map() const {
  return {{QStringLiteral("name"), name},
          {QStringLiteral("head_dim"), head_dim},
          {QStringLiteral("n_ctx_train"), n_ctx_train}};
}

QVariantMap SettingIssue::to_map() const {
  return {{QStringLiteral("key"), key},
          {QStringLiteral("blocking"), blocking},
          {QStringLiteral("reason"), reason}};
}

// ---- validation -----------------------------------------------------------------------

namespace {

ModelShape shape_of(const ModelFacts& facts) {
  return ModelShape{facts.head_dim, facts.n_ctx_train};
}

// An engine's setting problem (kvchat/chat_model.h) in the window's words.
QString problem_text(const SettingProblem& p, const QString& kv_type, int ctx,
                     const ModelFacts& facts) {
  switch (p.kind) {
    case SettingProblem::Kind::UnknownKvType:
      return QCoreApplication::translate(
                 "ModelSettings", "%1 is not a KV type (f32, f16, q8_0, q4_0, q8_0r or q4_0r).")
          .arg(kv_type);
    case SettingProblem::Kind::KvTypeRotation:
      return QCoreApplication::translate(
                 "ModelSettings",
                 "%1 rotates each head before quantizing it (a Walsh–Hadamard transform), which "
                 "needs a power-of-two head size; this model's heads have %2: it cannot be used "
                 "with this model.")
          .arg(kv_type)
          .arg(facts.head_dim);
    case SettingProblem::Kind::KvTypeBlock:
      return QCoreApplication::translate(
                 "ModelSettings",
                 "%1 stores keys in blocks of %2 values, but this model's heads have %3 (head_dim "
                 "%3 is not a multiple of %2): it cannot be used with this model.")
          .arg(kv_type)
          .arg(p.block)
          .arg(facts.head_dim);
    case SettingProblem::Kind::NegativeContext:
      return QCoreApplication::translate(
          "ModelSettings", "The context cannot be negative (0 = the trained length).");
    case SettingProblem::Kind::ContextBeyondTraining:
      return QCoreApplication::translate(
                 "ModelSettings",
                 "A context of %1 tokens is longer than the %2 this model was trained "
                 "for: past %2 it sees positions it never learned, and replies usually "
                 "turn to noise.")
          .arg(ctx)
          .arg(facts.n_ctx_train);
  }
  return QString::fromStdString(p.error.problem);
}

}  // namespace

int kv_type_block_values(const QString& kv_type) {
  return kvchat::kv_type_block_values(kv_type.toStdString());
}

QString kv_type_problem(const QString& kv_type, const ModelFacts& facts) {
  for (const SettingIssue& issue : check_model_settings(kv_type, 0, facts)) {
    if (issue.key == QLatin1String("kv_type")) return issue.reason;
  }
  return {};
}

QVector<SettingIssue> check_model_settings(const QVariantMap& engine, const ModelFacts& facts) {
  return check_model_settings(
      engine.value(QStringLiteral("kv_type"), QStringLiteral("f16")).toString(),
      engine.value(QStringLiteral("ctx"), 0).toInt(), facts);
}

QVector<SettingIssue> check_model_settings(const QString& kv_type, int ctx,
                                           const ModelFacts& facts) {
  QVector<SettingIssue> issues;
  for (const SettingProblem& p :
       check_session_settings(kv_type.toStdString(), ctx, shape_of(facts))) {
    issues.push_back(
        {QString::fromStdString(p.error.field), p.blocking, problem_text(p, kv_type, ctx, facts)});
  }
  return issues;
}

bool has_blocking(const QVector<SettingIssue>& issues) {
  for (const SettingIssue& i : issues) {
    if (i.blocking) return true;
  }
  return false;
}

QString blocking_reasons(const QVector<SettingIssue>& issues) {
  QStringList reasons;
  for (const SettingIssue& i : issues) {
    if (i.blocking) reasons << i.reason;
  }
  return reasons.join(QLatin1Char(' '));
}

QVariantList issues_to_list(const QVector<SettingIssue>& issues) {
  QVariantList list;
  for (const SettingIssue& i : issues) list.push_back(i.to_map());
  return list;
}

// ---- the book -------------------------------------------------------------------------

ModelSettingsBook::ModelSettingsBook(const QVariantMap& stored, const QVariantMap& legacy_engine,
                                     const QVariantMap& legacy_sampling)
    : models_(stored),
      legacy_engine_(only_keys(legacy_engine, engine_keys())),
      legacy_sampling_(only_keys(legacy_sampling, sampling_keys())) {
  // "stop" was the old default, saved with every other engine setting whether chosen or
  // not; the new default (keep the conversation going) replaces it.
  if (legacy_engine_.value(QStringLiteral("context_policy")).toString() == QLatin1String("stop")) {
    legacy_engine_.remove(QStringLiteral("context_policy"));
  }
  // Likewise seed 0: the old default (its box could not go lower), with which Regenerate
  // wrote the same reply again; the new default draws a fresh seed for every reply.
  if (legacy_sampling_.contains(QStringLiteral("seed")) &&
      legacy_sampling_.value(QStringLiteral("seed")).toLongLong() == 0) {
    legacy_sampling_.remove(QStringLiteral("seed"));
  }
}

const QStringList& ModelSettingsBook::engine_keys() {
  static const QStringList keys{QStringLiteral("kv_type"), QStringLiteral("ctx"),
                                QStringLiteral("context_policy"), QStringLiteral("gpu_layers")};
  return keys;
}

QVariantMap ModelSettingsBook::default_engine() {
  return {{QStringLiteral("kv_type"), QStringLiteral("f16")},
          {QStringLiteral("ctx"), 0},
          {QStringLiteral("context_policy"),
           QString::fromStdString(std::string(context_policy_name(kDefaultChatContextPolicy)))},
          {QStringLiteral("gpu_layers"), -1}};
}

QVariantMap ModelSettingsBook::default_sampling() {
  // The engine's defaults (kvchat::SamplingParams), as the decimals they were written as
  // (0.8f is 0.800000011920929 as a double), and a fresh seed for every reply.
  const SamplingParams d;
  auto decimal = [](float v) { return QString::number(static_cast<double>(v), 'g', 6).toDouble(); };
  return {{QStringLiteral("temperature"), decimal(d.temperature)},
          {QStringLiteral("top_k"), d.top_k},
          {QStringLiteral("top_p"), decimal(d.top_p)},
          {QStringLiteral("min_p"), decimal(d.min_p)},
          {QStringLiteral("repeat_penalty"), decimal(d.repeat_penalty)},
          {QStringLiteral("seed"), static_cast<qint64>(kRandomSeed)},
          {QStringLiteral("max_tokens"), 256}};
}

QVariantList ModelSettingsBook::sampling_presets() {
  auto preset = [](const char* id, const QString& name, double temperature, int top_k, double top_p,
                   double min_p, double repeat_penalty) {
    return QVariantMap{{QStringLiteral("id"), QLatin1String(id)},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("values"),
                        QVariantMap{{QStringLiteral("temperature"), temperature},
                                    {QStringLiteral("top_k"), top_k},
                                    {QStringLiteral("top_p"), top_p},
                                    {QStringLiteral("min_p"), min_p},
                                    {QStringLiteral("repeat_penalty"), repeat_penalty}}}};
  };
  return {preset("balanced", QCoreApplication::translate("ModelSettings", "Balanced"), 0.8, 40,
                 0.95, 0.05, 1.0),
          preset("precise",
                 QCoreApplication::translate("ModelSettings", "Precise (factual, repeatable)"), 0.2,
                 20, 0.9, 0.1, 1.05),
          preset("creative", QCoreApplication::translate("ModelSettings", "Creative (varied)"), 1.1,
                 100, 0.98, 0.02, 1.0)};
}

QVariantMap ModelSettingsBook::entry(const QString& model) const {
  return models_.value(model).toMap();
}

QVariantMap ModelSettingsBook::engine(const QString& model) const {
  return merged(merged(default_engine(), legacy_engine_),
                entry(model).value(QStringLiteral("engine")).toMap());
}

QVariantMap ModelSettingsBook::sampling(const QString& model) const {
  return merged(merged(default_sampling(), legacy_sampling_),
                entry(model).value(QStringLiteral("sampling")).toMap());
}

void ModelSettingsBook::set_engine(const QString& model, const QVariantMap& engine) {
  QVariantMap e = entry(model);
  e.insert(QStringLiteral("engine"), only_keys(engine, engine_keys()));
  models_.insert(model, e);
}

void ModelSettingsBook::set_sampling(const QString& model, const QVariantMap& sampling) {
  QVariantMap e = entry(model);
  e.insert(QStringLiteral("sampling"), only_keys(sampling, sampling_keys()));
  models_.insert(model, e);
}

ModelFacts ModelSettingsBook::facts(const QString& model) const {
  return ModelFacts::from_info(entry(model).value(QStringLiteral("facts")).toMap());
}

void ModelSettingsBook::set_facts(const QString& model, const ModelFacts& facts) {
  QVariantMap e = entry(model);
  e.insert(QStringLiteral("facts"), facts.to_map());
  models_.insert(model, e);
}

bool ModelSettingsBook::has_own_settings(const QString& model) const {
  const QVariantMap e = entry(model);
  return e.contains(QStringLiteral("engine")) || e.contains(QStringLiteral("sampling"));
}

QVariantMap ModelSettingsBook::to_variant() const { return models_; }

}  // namespace kvchat::app
