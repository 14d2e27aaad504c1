// ChatController: every conversation knows the model it was last used with (path and
// identity, in its settings; a remote model's path is remote/remote_model_path.h's, and its
// endpoint's controller is made here, make_remote). Opening a conversation opens its model (its
// snapshot then restores); a model that is missing, or another model loaded over the conversation,
// is said in the banner with the ways out; the window starts on the last model used.
#include <QFileInfo>

#include "chat/chat_controller.h"
#include "conversations/conversation_model.h"
#include "remote/remote_model_path.h"

namespace kvchat::app {

namespace {
const QString kNoticeKind = QStringLiteral("conversation-model");
// A file's name; a remote model's id.
QString file_name_of(const QString& path) {
  if (const auto ref = parse_remote_model_path(path)) return ref->model;
  return QFileInfo(path).fileName();
}
}  // namespace

bool ChatController::model_available(const QString& path) const {
  if (is_remote_model_path(path)) return remote_ && remote_->knows(path);
  return QFileInfo(path).isFile();
}

void ChatController::make_remote() {
  remote_ = std::make_unique<RemoteModelsController>(data_dir_);
  models_->set_remote(remote_.get());
  // The conversation's tokens for the panel's estimate: its last reply's (the engine's usage:
  // prompt and answer), once the model is loaded, after a reply, and when another
  // conversation or branch is shown.
  auto tell_tokens = [this] {
    if (!remote_->active()) return;
    const QVector<StoredMessage>& shown = message_items();
    const bool replied = !shown.isEmpty() && shown.back().role == QLatin1String("assistant");
    remote_->set_conversation_tokens(
        replied ? shown.back().stats.value(QStringLiteral("n_past"), -1).toLongLong() : -1);
  };
  connect(models_.get(), &ModelController::modelChanged, remote_.get(), [this, tell_tokens] {
    remote_->set_loaded_model(models_->path());
    tell_tokens();
  });
  connect(this, &ChatController::lastReplyStatsChanged, remote_.get(), tell_tokens);
}

QString ChatController::model_to_open_at_start(const QString& asked, const QString& demo) const {
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  return app::model_to_open_at_start(asked, c ? conversation_model(c->settings).path : QString(),
                                     models_->recent_models(), demo,
                                     [this](const QString& path) { return model_available(path); });
}

void ChatController::remember_conversation_model(qint64 id) {
  if (!store_ || !id || models_->path().isEmpty()) return;
  const auto c = store_->conversation(id);
  if (!c) return;
  const ConversationModel now{models_->path(), models_->identity()};
  const ConversationModel was = conversation_model(c->settings);
  if (was.path == now.path && was.identity == now.identity) return;
  QString error;
  if (!store_->set_conversation_settings(id, with_conversation_model(c->settings, now), &error)) {
    qWarning("kvchat: the conversation's model was not saved: %s", qPrintable(error));
  }
  if (id == current_ && notices_.notice_kind() == kNoticeKind) notices_.dismissNotice();
}

void ChatController::follow_conversation_model() {
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  const ConversationModel m = c ? conversation_model(c->settings) : ConversationModel{};
  if (notices_.notice_kind() == kNoticeKind) notices_.dismissNotice();
  // At start nothing is loaded yet: main opens this conversation's model itself.
  if (m.path.isEmpty() || (models_->path().isEmpty() && !models_->loading())) return;
  if (m.path == (models_->loading() ? models_->loading_path() : models_->path())) return;
  if (model_available(m.path)) {
    models_->loadModel(m.path);  // the snapshot is restored once it is loaded
    return;
  }
  check_conversation_model();
}

void ChatController::check_conversation_model() {
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  if (!c || models_->path().isEmpty()) return;
  const ConversationModel m = conversation_model(c->settings);
  if (m.path.isEmpty() || m.path == models_->path()) {
    if (notices_.notice_kind() == kNoticeKind) notices_.dismissNotice();
    return;
  }
  // The same file moved: the conversation follows it without a word.
  if (!m.identity.isEmpty() && m.identity == models_->identity()) {
    remember_conversation_model(current_);
    return;
  }
  const QString title = c->title.isEmpty() ? tr("This conversation") : tr("“%1”").arg(c->title);
  const QString loaded = file_name_of(models_->path());
  QVariantList actions;
  QString text;
  if (model_available(m.path)) {
    text = tr("%1 was written with %2. Its next message goes to %3, which reads the conversation "
              "again.")
               .arg(title, file_name_of(m.path), loaded);
    QVariantMap open =
        NoticeCenter::action("conversation_model", tr("Open %1").arg(file_name_of(m.path)));
    open.insert(QStringLiteral("path"), m.path);
    actions.push_back(open);
  } else {
    text = tr("%1 was written with %2, which is no longer at %3. Its next message goes to %4 "
              "unless you "
              "open that model again.")
               .arg(title, file_name_of(m.path), m.path, loaded);
    actions.push_back(NoticeCenter::action("pick_model", tr("Open a model file…")));
    actions.push_back(NoticeCenter::action("models_page", tr("Find it on the Models page")));
  }
  actions.push_back(NoticeCenter::action("new_chat", tr("New chat")));
  notices_.set_notice(kNoticeKind, text, actions);
}

}  // namespace kvchat::app
