// remote_header_reader: a file's header from the Hub (hub::RemoteHeader).
#include "hub/remote_header.h"
#include "library/models_fit.h"

namespace kvchat::app {

RemoteHeaderReader remote_header_reader(hub::HubClient* client) {
  auto* reader = new hub::RemoteHeader(client, client);
  return [reader](const QString& repo, const QString& file, QObject* context,
                  std::function<void(const RemoteGgufHeader&)> done) {
    reader->fetch(repo, file, context, [done](const hub::RemoteHeaderResult& r) {
      RemoteGgufHeader h;
      h.bytes_read = r.bytes_read;
      if (r.error.ok()) {
        h.inspection = std::make_shared<const GgufInspection>(r.inspection);
      } else {
        h.error = r.error.message;
      }
      done(h);
    });
  };
}

}  // namespace kvchat::app
