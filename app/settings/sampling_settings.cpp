#include "settings/sampling_settings.h"

#include "kvchat/sampling_config.h"

namespace kvchat::app {
namespace {

// A sampling field's key in the settings map: its own name.
QString key_of(const SamplingField& f) {
  return QString::fromUtf8(f.name.data(), static_cast<qsizetype>(f.name.size()));
}

}  // namespace

SamplingParams sampling_params(const QVariantMap& s, SamplingParams p) {
  // The fields of kvchat/sampling_config.h under their own names; a value out of its range
  // keeps the default (the Settings page refused it already: sampling_problem()).
  for (const SamplingField& f : sampling_fields()) {
    const QString key = key_of(f);
    if (s.contains(key)) (void)set_sampling_field(p, f.name, s.value(key).toDouble());
  }
  const QString seed_key = QStringLiteral("seed");
  if (s.contains(seed_key)) p.seed = resolve_seed(s.value(seed_key).toLongLong());
  return p;
}

std::optional<FieldError> sampling_problem(const QVariantMap& s) {
  SamplingParams p;
  for (const SamplingField& f : sampling_fields()) {
    const QString key = key_of(f);
    if (!s.contains(key)) continue;
    bool number = false;
    const double v = s.value(key).toDouble(&number);
    if (!number) return FieldError{std::string(f.name), "must be a number"};
    if (auto e = set_sampling_field(p, f.name, v)) return e;
  }
  return std::nullopt;
}

QVariantMap with_reply_seed(QVariantMap s) {
  const QString key = QStringLiteral("seed");
  if (s.contains(key) && s.value(key).toLongLong() < 0) {
    s.insert(key, static_cast<qint64>(resolve_seed(kRandomSeed)));
  }
  return s;
}

}  // namespace kvchat::app
