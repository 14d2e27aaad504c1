// ChatController, the conversation list's half: the sidebar's search (cleared by New chat,
// so the new conversation is listed), the view state that belongs to each
// conversation (its KV timeline, its snapshot line, its last reply's figures), delete with
// a few seconds to undo, an empty conversation reused by New chat, and export.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>
#include <utility>

#include "chat_controller.h"
#include "conversation_model.h"
#include "documents/document_controller.h"
#include "export/conversation_export.h"

namespace kvchat::app {

void ChatController::search(const QString& text) {
  if (!store_) return;
  search_text_ = text;
  refresh_conversations();
  emit searchTextChanged();
  write_test_state();
}

void ChatController::clear_search() {
  if (search_text_.isEmpty()) return;
  search_text_.clear();
  refresh_conversations();
  emit searchTextChanged();
}

void ChatController::refresh_conversations() {
  if (!store_) return;
  QVector<StoredConversation> listed =
      search_text_.trimmed().isEmpty() ? store_->conversations() : store_->search(search_text_);
  listed.removeIf([this](const StoredConversation& c) { return c.id == pending_delete_id_; });
  conversations_.reset(std::move(listed));
}

qint64 ChatController::empty_conversation() const {
  if (!store_) return 0;
  for (const StoredConversation& c : store_->conversations()) {
    if (c.id == pending_delete_id_ || !c.system_prompt.isEmpty()) continue;
    if (store_->messages(c.id).isEmpty()) return c.id;
  }
  return 0;
}

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

void ChatController::undoDelete() {
  if (!pending_delete_id_) return;
  const qint64 id = std::exchange(pending_delete_id_, 0);
  pending_delete_title_.clear();
  delete_timer_.stop();
  refresh_conversations();
  emit pendingDeleteChanged();
  // Back where it was: open again when no other conversation was opened meanwhile.
  if (!current_ && !generating_) selectConversation(id);
  write_test_state();
}

QVariantMap ChatController::pending_delete() const {
  if (!pending_delete_id_) return {};
  return {{QStringLiteral("id"), pending_delete_id_},
          {QStringLiteral("title"), pending_delete_title_}};
}

void ChatController::commit_pending_delete() {
  if (!pending_delete_id_ || !store_) return;
  const qint64 id = std::exchange(pending_delete_id_, 0);
  pending_delete_title_.clear();
  delete_timer_.stop();
  QString error;
  if (!store_->delete_conversation(id, &error)) {
    emit errorOccurred(tr("The conversation was not deleted: %1").arg(error));
  } else {
    const QString snapshot = snapshot_path(id);
    if (QFile::exists(snapshot) && !QFile::remove(snapshot)) {
      emit errorOccurred(tr("The conversation is deleted but its KV snapshot %1 could not be "
                            "removed.").arg(snapshot));
    }
    memory_histories_.remove(id);
    if (documents_) documents_->forget_conversation(id);
  }
  refresh_conversations();  // a conversation that could not be deleted is listed again
  emit pendingDeleteChanged();
  write_test_state();
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
    if (it->role != QLatin1String("assistant") || !it->stats.contains(QStringLiteral("generated_tokens")))
      continue;
    const QString model = it->stats.value(QStringLiteral("model_identity")).toString();
    if ((model.isEmpty() ? recorded : model) == loaded) return it->stats;
  }
  return {};
}

QString ChatController::conversationTitle(qint64 id) const {
  if (!store_) return {};
  const auto c = store_->conversation(id);
  return c ? c->title : QString();
}

bool ChatController::exportConversation(qint64 id, const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  const auto conversation = store_ ? store_->conversation(id) : std::nullopt;
  if (!conversation || path.isEmpty()) return false;
  // The open conversation's rows as the window shows them (an unsaved one included).
  const QVector<StoredMessage> rows = id == current_ ? messages_.items() : store_->messages(id);
  const QByteArray bytes = export_format_for(path) == ExportFormat::Json
                               ? conversation_to_json(*conversation, rows)
                               : conversation_to_markdown(*conversation, rows);
  QString error;
  if (!write_export_file(path, bytes, &error)) {
    emit errorOccurred(error);
    return false;
  }
  on_session_event(tr("export"), tr("“%1” written to %2").arg(conversation->title, path));
  return true;
}

QString ChatController::exportFileName(qint64 id, const QString& format) const {
  return export_file_name(conversationTitle(id), export_format_for(format));
}

QString ChatController::defaultExportPath(qint64 id, const QString& format) const {
  QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  return QDir(dir).filePath(exportFileName(id, format));
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
