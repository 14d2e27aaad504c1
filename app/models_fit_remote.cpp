// remote_fit_reader: the fit from a remote header (hub::RemoteHeader).
#include "hub/remote_header.h"
#include "models_fit.h"

namespace kvchat::app {

ModelsPageController::FitReader remote_fit_reader(hub::HubClient* client) {
  auto* header = new hub::RemoteHeader(client, client);
  return [header](const QString& repo, const QString& file, qint64, int ctx, const QString& kv_type,
                  qint64 free_bytes, QObject* context,
                  std::function<void(const QVariantMap&, const QString&)> done) {
    header->fetch(repo, file, context, [ctx, kv_type, free_bytes, done](const hub::RemoteHeaderResult& r) {
      if (!r.error.ok()) {
        done({}, r.error.message);
        return;
      }
      if (!r.inspection.runnable) {
        done(fit_map(r.inspection, nullptr, r.bytes_read), QString());
        return;
      }
      auto fit = r.inspection.fit(ctx, kv_type.toStdString(), uint64_t(std::max<qint64>(free_bytes, 0)));
      if (!fit) {
        done(fit_map(r.inspection, nullptr, r.bytes_read), QString::fromStdString(fit.error().message));
        return;
      }
      done(fit_map(r.inspection, &*fit, r.bytes_read), QString());
    });
  };
}

}  // namespace kvchat::app
