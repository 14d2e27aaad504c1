#include "engine/sampling_settings.h"

#include <QRandomGenerator>

namespace kvchat::app {

SamplingParams sampling_params(const QVariantMap& s, SamplingParams p) {
  p.temperature = s.value(QStringLiteral("temperature"), p.temperature).toFloat();
  p.top_k = s.value(QStringLiteral("top_k"), p.top_k).toInt();
  p.top_p = s.value(QStringLiteral("top_p"), p.top_p).toFloat();
  p.min_p = s.value(QStringLiteral("min_p"), p.min_p).toFloat();
  p.repeat_penalty = s.value(QStringLiteral("repeat_penalty"), p.repeat_penalty).toFloat();
  p.repeat_last_n = s.value(QStringLiteral("repeat_last_n"), p.repeat_last_n).toInt();
  const qint64 seed =
      with_reply_seed(s).value(QStringLiteral("seed"), static_cast<qint64>(p.seed)).toLongLong();
  p.seed = static_cast<uint64_t>(seed);
  return p;
}

QVariantMap with_reply_seed(QVariantMap s) {
  const QString key = QStringLiteral("seed");
  if (s.contains(key) && s.value(key).toLongLong() < 0) {
    s.insert(key, static_cast<qint64>(QRandomGenerator::global()->bounded(kMaxRandomSeed + 1)));
  }
  return s;
}

}  // namespace kvchat::app
