// Which model file a conversation belongs to: the one it was last used with (its path and
// the engine's identity of that file), kept in the conversation's settings JSON; and the
// model the window opens at start.
#pragma once

#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <functional>

namespace kvchat::app {

struct ConversationModel {
  QString path;      // absolute path of the GGUF file; empty: never used with a model
  QString identity;  // ModelInfo::identity as 16 hex digits ("" when not known)
};

// The conversation's model as stored in its settings ("model_path", "model_identity").
ConversationModel conversation_model(const QVariantMap& settings);
// `settings` with the model set; the other keys as they were.
QVariantMap with_conversation_model(QVariantMap settings, const ConversationModel& model);

// The model to open when the window starts: the one asked for on the command line; else
// the reopened conversation's model when its file exists; else the most recent model that
// exists; else the demo model.
QString model_to_open_at_start(const QString& asked, const QString& conversation_model_path,
                               const QStringList& recent, const QString& demo,
                               const std::function<bool(const QString&)>& exists);

}  // namespace kvchat::app
