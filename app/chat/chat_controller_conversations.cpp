// ChatController, the open conversation against the list (ConversationListController):
// the view state that belongs to each conversation (its last reply's figures; its KV
// timeline and snapshot line are MemoryState's), and what a delete does to the chat (the
// open one left, its state gone once deleted for good, reopened on undo).
#include <QFile>

#include "chat/chat_controller.h"
#include "conversations/conversation_model.h"
#include "documents/document_controller.h"
#include "engine/engine_worker.h"
#include "memory/ram_tier.h"

namespace kvchat::app {

bool ChatController::may_delete_conversation(qint64 id) {
  if (generating_ && id == current_) return false;
  if (documents_ && documents_->summarizing_into(id)) {
    emit errorOccurred(tr("A summary is being written into this conversation: cancel it first."));
    return false;
  }
  return true;
}

void ChatController::leave_deleted_conversation() {
  // Its rows are stored first, so that Undo brings all of them back.
  QString error;
  note_save(save_unsaved(&error), error);
  memory_state_->switch_conversation(current_, 0);
  // Its KV goes from the session and from RAM too (Undo restores it from its snapshot,
  // kept till then).
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, prefix = ram_tier_prefix(current_)] {
        w->clearSession();
        w->forgetConversation(prefix);
      },
      Qt::QueuedConnection);
  current_ = 0;
  show_messages({});
  emit currentConversationChanged();
}

void ChatController::reopen_undeleted_conversation(qint64 id) {
  // Back where it was: open again when no other conversation was opened meanwhile.
  if (!current_ && !generating_) selectConversation(id);
}

void ChatController::on_conversation_deleted(qint64 id) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, prefix = ram_tier_prefix(id)] { w->forgetConversation(prefix); },
      Qt::QueuedConnection);
  const QString snapshot = memory_state_->snapshot_path(id);
  if (QFile::exists(snapshot) && !QFile::remove(snapshot)) {
    emit errorOccurred(tr("The conversation is deleted but its KV snapshot %1 could not be "
                          "removed.")
                           .arg(snapshot));
  }
  memory_state_->forget_conversation(id);
  if (documents_) documents_->forget_conversation(id);
  notices_.forget_conversation(id);
}

QVariantMap ChatController::conversation_reply_stats() const {
  // The last reply written with the loaded model: another model's speed is not this one's.
  // A reply stored without its model (older versions) counts as the conversation's model's.
  const QString loaded = models_->identity();
  if (loaded.isEmpty()) return {};
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  const QString recorded = c ? conversation_model(c->settings).identity : QString();
  const auto& items = messages_.items();
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (it->role != QLatin1String("assistant") ||
        !it->stats.contains(QStringLiteral("generated_tokens")))
      continue;
    const QString model = it->stats.value(QStringLiteral("model_identity")).toString();
    if ((model.isEmpty() ? recorded : model) == loaded) return it->stats;
  }
  return {};
}

}  // namespace kvchat::app
