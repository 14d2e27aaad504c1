// "Will it fit?" for the Models page: the engine's inspection of a GGUF header and its
// fit() at a context length and KV type, as the map the page shows (and the end-to-end
// test compares with `kvchat-cli memory`).
#pragma once

#include <QObject>
#include <QString>
#include <QVariantMap>
#include <functional>
#include <memory>

#include "kvchat/gguf_inspect.h"

namespace kvchat::hub {
class HubClient;
}

namespace kvchat::app {

// A file's header as read from the Hub (the engine's inspection of it) or why not.
struct RemoteGgufHeader {
  std::shared_ptr<const GgufInspection> inspection;
  qint64 bytes_read = 0;
  QString error;
};
// How a header is read (hub::RemoteHeader in the app; tests may inject their own): `done`
// is called on `context`'s thread.
using RemoteHeaderReader =
    std::function<void(const QString& repo, const QString& file, QObject* context,
                       std::function<void(const RemoteGgufHeader&)> done)>;

// name, architecture, runnable, why_not, n_layers, n_kv_heads, head_dim, n_ctx_train,
// n_params, header_bytes, bytes_read, tensor_types [{type, count, bytes, supported}],
// tensor_types_text; with a fit: n_ctx, kv_type, weights_bytes, kv_bytes,
// kv_allocated_bytes, total_bytes, free_bytes, fits, max_ctx, max_ctx_capped,
// concurrent_conversations (without one: fits false and the maxima 0).
QVariantMap fit_map(const GgufInspection& inspection, const GgufFit* fit, qint64 bytes_read);

// The context a model trained on n_ctx_train tokens runs with when `requested` tokens
// are asked for (<= 0: the trained context): at most the trained context, when known.
int run_context(int requested, int n_ctx_train);

// fit_map of the inspection with its fit at run_context(ctx, n_ctx_train) tokens of
// kv_type against free_bytes, plus requested_ctx (ctx) and ctx_cut_to_trained (whether
// ctx was longer than the trained context); a file kvchat cannot run has no fit (and no
// error: why_not says why); a fit that cannot be computed sets *error.
QVariantMap fit_map_for(const GgufInspection& inspection, int ctx, const QString& kv_type,
                        qint64 free_bytes, qint64 bytes_read, QString* error);

// Reads a file's header from the Hub (hub::RemoteHeader: Range requests from the first
// MiB, redirects followed, capped); `client` gives the endpoint, token and timeouts.
RemoteHeaderReader remote_header_reader(hub::HubClient* client);

}  // namespace kvchat::app
