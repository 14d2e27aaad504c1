#include "testing/test_state_file.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace kvchat::app {

bool write_test_state_file(const QString& path, const QByteArray& json) {
  QSaveFile f(path);  // commit() renames over the old file: no moment without one
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(json);
  return f.commit();
}

bool write_test_state_file(const QString& path, const QVariantMap& state) {
  return write_test_state_file(path, QJsonDocument(QJsonObject::fromVariantMap(state)).toJson());
}

}  // namespace kvchat::app
