// KvQualityProbe: the memory panel's KV-type quality figures for the loaded model. It
// measures them once per model (kvchat::measure_kv_quality: each KV type against f16
// K/V on a short built-in text) on a pool thread, on sessions of its own over the shared
// weights, so chat goes on meanwhile; the caller caches the figures per model identity.
// GUI thread object; the measurement runs elsewhere.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QVariantMap>
#include <atomic>
#include <memory>

#include "kvchat/session.h"

namespace kvchat {
class Model;
}

namespace kvchat::app {

class KvQualityProbe : public QObject {
  Q_OBJECT
 public:
  explicit KvQualityProbe(QObject* parent = nullptr);
  ~KvQualityProbe() override;  // cancels a measurement in flight and waits for it

  // Measures `model` with `options` (backend, threads); a measurement in flight for
  // another model is cancelled. `identity` names the model in the signals.
  void measure(const QString& identity, std::shared_ptr<const Model> model,
               const SessionOptions& options);
  bool busy() const { return watcher_.isRunning(); }

 signals:
  // figures: "tokens", "model" (its name), "types": {"f32": {"mean_kl", "max_kl",
  // "top1_agreement"}, "q8_0": ..., "q4_0": ...}.
  void measured(const QString& identity, const QVariantMap& figures);
  void failed(const QString& identity, const QString& message);

 private:
  struct Outcome {
    QString identity;
    QVariantMap figures;
    QString error;
  };
  QFutureWatcher<Outcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
};

}  // namespace kvchat::app
