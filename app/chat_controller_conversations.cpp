// ChatController, the open conversation against the list (ConversationListController):
// the view state that belongs to each conversation (its KV timeline, its snapshot line,
// its last reply's figures), and what a delete does to the chat (the open one left, its
// state gone once deleted for good, reopened on undo).
#include <QFile>

#include "chat_controller.h"
#include "conversation_model.h"
#include "documents/document_controller.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

void ChatController::switch_conversation_state(qint64 from, qint64 to) {
  if (from) memory_histories_.insert(from, memory_history_);
  memory_history_ = memory_histories_.take(to);
  snapshot_status_.clear();
  snapshot_detail_.clear();
  snapshot_bytes_ = 0;
  for (const char* key : {"file_bytes", "last_written_bytes", "last_tokens_written", "last_rewritten",
                          "last_why_rewritten"}) {
    snapshot_disk_.remove(QLatin1String(key));  // this conversation's figures; the total stays
  }
  emit snapshotChanged();
  emit memoryChanged();
}

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
  switch_conversation_state(current_, 0);
  current_ = 0;
  messages_.reset({});
  // Its KV goes from the session too (Undo restores it from its snapshot, kept till then).
  QMetaObject::invokeMethod(worker_, [w = worker_] { w->clearSession(); }, Qt::QueuedConnection);
  emit currentConversationChanged();
}

void ChatController::reopen_undeleted_conversation(qint64 id) {
  // Back where it was: open again when no other conversation was opened meanwhile.
  if (!current_ && !generating_) selectConversation(id);
}

void ChatController::on_conversation_deleted(qint64 id) {
  const QString snapshot = snapshot_path(id);
  if (QFile::exists(snapshot) && !QFile::remove(snapshot)) {
    emit errorOccurred(tr("The conversation is deleted but its KV snapshot %1 could not be "
                          "removed.").arg(snapshot));
  }
  memory_histories_.remove(id);
  if (documents_) documents_->forget_conversation(id);
  notices_.forget_conversation(id);
}

QVariantMap ChatController::conversation_reply_stats() const {
  // The last reply written with the loaded model: another model's speed is not this one's.
  // A reply stored without its model (older versions) counts as the conversation's model's.
  const QString loaded = model_info_.value(QStringLiteral("identity")).toString();
  if (loaded.isEmpty()) return {};
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  const QString recorded = c ? conversation_model(c->settings).identity : QString();
  const auto& items = messages_.items();
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (it->role != QLatin1String("assistant") || !it->stats.contains(QStringLiteral("generated_tokens")))
      continue;
    const QString model = it->stats.value(QStringLiteral("model_identity")).toString();
    if ((model.isEmpty() ? recorded : model) == loaded) return it->stats;
  }
  return {};
}

void ChatController::forget_session_figures() {
  // Every figure of the previous model's session is stale now: the timelines, the
  // snapshot line (the restore that follows says it again for the new session).
  memory_history_.clear();
  memory_histories_.clear();
  snapshot_status_.clear();
  snapshot_detail_.clear();
  emit snapshotChanged();
  emit memoryChanged();
}

void ChatController::mark_turn_on_timeline() {
  // The point where the reply begins; for the first turn a point for where the
  // conversation stands before it.
  if (memory_history_.isEmpty()) {
    if (memory_.isEmpty()) return;
    memory_history_.push_back(QVariantMap{{"tokens", memory_.value("kv_tokens").toInt()},
                                          {"used", memory_.value("kv_used_bytes")},
                                          {"allocated", memory_.value("kv_allocated_bytes")},
                                          {"turn", true}});
    return;
  }
  QVariantMap last = memory_history_.back().toMap();
  last["turn"] = true;
  memory_history_.back() = last;
}

}  // namespace kvchat::app
