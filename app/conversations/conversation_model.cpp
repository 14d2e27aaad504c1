#include "conversations/conversation_model.h"

namespace kvchat::app {

namespace {
const QString kPathKey = QStringLiteral("model_path");
const QString kIdentityKey = QStringLiteral("model_identity");
}  // namespace

ConversationModel conversation_model(const QVariantMap& settings) {
  return {settings.value(kPathKey).toString(), settings.value(kIdentityKey).toString()};
}

QVariantMap with_conversation_model(QVariantMap settings, const ConversationModel& model) {
  settings.insert(kPathKey, model.path);
  settings.insert(kIdentityKey, model.identity);
  return settings;
}

QString model_to_open_at_start(const QString& asked, const QString& conversation_model_path,
                               const QStringList& recent, const QString& demo,
                               const std::function<bool(const QString&)>& exists) {
  if (!asked.isEmpty()) return asked;
  if (!conversation_model_path.isEmpty() && exists(conversation_model_path))
    return conversation_model_path;
  for (const QString& path : recent) {
    if (!path.isEmpty() && exists(path)) return path;
  }
  return demo;
}

}  // namespace kvchat::app
