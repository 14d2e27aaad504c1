#include "engine/sampling_settings.h"

namespace kvchat::app {

SamplingParams sampling_params(const QVariantMap& s, SamplingParams p) {
  p.temperature = s.value(QStringLiteral("temperature"), p.temperature).toFloat();
  p.top_k = s.value(QStringLiteral("top_k"), p.top_k).toInt();
  p.top_p = s.value(QStringLiteral("top_p"), p.top_p).toFloat();
  p.min_p = s.value(QStringLiteral("min_p"), p.min_p).toFloat();
  p.repeat_penalty = s.value(QStringLiteral("repeat_penalty"), p.repeat_penalty).toFloat();
  p.repeat_last_n = s.value(QStringLiteral("repeat_last_n"), p.repeat_last_n).toInt();
  p.seed = s.value(QStringLiteral("seed"), static_cast<qulonglong>(p.seed)).toULongLong();
  return p;
}

}  // namespace kvchat::app
