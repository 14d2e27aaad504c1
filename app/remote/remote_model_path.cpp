#include "remote/remote_model_path.h"

#include <QUrl>

namespace kvchat::app {

namespace {
const QString kScheme = QStringLiteral("remote://");
}

QString remote_model_path(const QString& endpoint_id, const QString& model) {
  return kScheme + endpoint_id + QLatin1Char('/') +
         QString::fromLatin1(QUrl::toPercentEncoding(model));
}

bool is_remote_model_path(const QString& path) { return path.startsWith(kScheme); }

std::optional<RemoteModelRef> parse_remote_model_path(const QString& path) {
  if (!is_remote_model_path(path)) return std::nullopt;
  const QString rest = path.mid(kScheme.size());
  const qsizetype slash = rest.indexOf(QLatin1Char('/'));
  if (slash <= 0 || slash + 1 >= rest.size()) return std::nullopt;
  RemoteModelRef r{rest.left(slash), QUrl::fromPercentEncoding(rest.mid(slash + 1).toLatin1())};
  if (r.model.isEmpty()) return std::nullopt;
  return r;
}

}  // namespace kvchat::app
