#include "engine/kv_quality_probe.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "kvchat/kv_quality.h"
#include "kvchat/model.h"

namespace kvchat::app {

KvQualityProbe::KvQualityProbe(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, [this] {
    const Outcome o = watcher_.result();
    if (o.error.isEmpty()) {
      emit measured(o.identity, o.figures);
    } else {
      emit failed(o.identity, o.error);
    }
  });
}

KvQualityProbe::~KvQualityProbe() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

void KvQualityProbe::measure(const QString& identity, std::shared_ptr<const Model> model,
                             const SessionOptions& options) {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();  // a cancelled one stops at its next type
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  watcher_.setFuture(QtConcurrent::run([identity, model = std::move(model), options,
                                        cancel = cancel_]() -> Outcome {
    Outcome out;
    out.identity = identity;
    try {
      auto report = measure_kv_quality(model, options, 128, [cancel] { return cancel->load(); });
      if (!report) {
        out.error = QString::fromStdString(report.message());
        return out;
      }
      QVariantMap types;
      for (const KvTypeQuality& q : report->types) {
        types.insert(QString::fromStdString(q.kv_type),
                     QVariantMap{{QStringLiteral("mean_kl"), q.mean_kl},
                                 {QStringLiteral("max_kl"), q.max_kl},
                                 {QStringLiteral("top1_agreement"), q.top1_agreement}});
      }
      // Types this model cannot use: not measured, said why (the panel can mark them).
      QVariantMap unusable;
      for (const KvQualityReport::Unusable& u : report->unusable) {
        unusable.insert(QString::fromStdString(u.kv_type), QString::fromStdString(u.reason));
      }
      out.figures = {{QStringLiteral("tokens"), report->tokens},
                     {QStringLiteral("model"), QString::fromStdString(model->info().name)},
                     {QStringLiteral("types"), types},
                     {QStringLiteral("unusable"), unusable}};
    } catch (const std::exception& e) {
      out.error = QCoreApplication::translate("KvQualityProbe", "Measuring the KV types failed: %1")
                      .arg(QString::fromUtf8(e.what()));
    } catch (...) {
      out.error = QCoreApplication::translate(
          "KvQualityProbe", "Measuring the KV types failed: an unknown exception");
    }
    return out;
  }));
}

}  // namespace kvchat::app
