#include "conversations/conversation_list_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>
#include <utility>

#include "export/conversation_export.h"
#include "notices/notice_center.h"

namespace kvchat::app {

ConversationListController::ConversationListController(ConversationListHost& chat,
                                                       ConversationStore* store,
                                                       NoticeCenter& notices, QObject* parent)
    : QObject(parent), chat_(chat), store_(store), notices_(notices) {
  delete_timer_.setSingleShot(true);
  delete_timer_.setInterval(kUndoDeleteMs);
  connect(&delete_timer_, &QTimer::timeout, this,
          &ConversationListController::commit_pending_delete);
}

void ConversationListController::search(const QString& text) {
  if (!store_) return;
  search_text_ = text;
  refresh();
  emit searchTextChanged();
}

void ConversationListController::clear_search() {
  if (search_text_.isEmpty()) return;
  search_text_.clear();
  refresh();
  emit searchTextChanged();
}

void ConversationListController::refresh() {
  if (!store_) return;
  QVector<StoredConversation> listed =
      search_text_.trimmed().isEmpty() ? store_->conversations() : store_->search(search_text_);
  listed.removeIf([this](const StoredConversation& c) { return c.id == pending_delete_id_; });
  conversations_.reset(std::move(listed));
}

qint64 ConversationListController::empty_conversation(const QString& fresh_prompt) const {
  if (!store_) return 0;
  for (const StoredConversation& c : store_->conversations()) {
    if (c.id == pending_delete_id_ ||
        (!c.system_prompt.isEmpty() && c.system_prompt != fresh_prompt))
      continue;
    if (!store_->has_messages(c.id)) return c.id;
  }
  return 0;
}

qint64 ConversationListController::first_listed() const {
  if (conversations_.rowCount() == 0) return 0;
  return conversations_.data(conversations_.index(0), ConversationListModel::IdRole).toLongLong();
}

void ConversationListController::renameConversation(qint64 id, const QString& title) {
  QString error;
  if (store_ && !store_->rename_conversation(id, title, &error)) {
    notices_.show_error(tr("The new name was not saved: %1").arg(error));
  }
  refresh();
}

void ConversationListController::deleteConversation(qint64 id) {
  if (!store_ || id <= 0 || id == pending_delete_id_ || !chat_.may_delete_conversation(id)) return;
  const auto conversation = store_->conversation(id);
  if (!conversation) return;
  commit_pending_delete();  // the one before is final now
  pending_delete_id_ = id;
  pending_delete_title_ = conversation->title;
  delete_timer_.start();
  if (id == chat_.current_conversation()) chat_.leave_deleted_conversation();
  refresh();
  emit pendingDeleteChanged();
}

void ConversationListController::undoDelete() {
  if (!pending_delete_id_) return;
  const qint64 id = std::exchange(pending_delete_id_, 0);
  pending_delete_title_.clear();
  delete_timer_.stop();
  refresh();
  emit pendingDeleteChanged();
  chat_.reopen_undeleted_conversation(id);
}

QVariantMap ConversationListController::pending_delete() const {
  if (!pending_delete_id_) return {};
  return {{QStringLiteral("id"), pending_delete_id_},
          {QStringLiteral("title"), pending_delete_title_}};
}

void ConversationListController::commit_pending_delete() {
  if (!pending_delete_id_ || !store_) return;
  const qint64 id = std::exchange(pending_delete_id_, 0);
  pending_delete_title_.clear();
  delete_timer_.stop();
  QString error;
  if (!store_->delete_conversation(id, &error)) {
    notices_.show_error(tr("The conversation was not deleted: %1").arg(error));
  } else {
    emit conversationDeleted(id);
  }
  refresh();  // a conversation that could not be deleted is listed again
  emit pendingDeleteChanged();
}

QString ConversationListController::conversationTitle(qint64 id) const {
  if (!store_) return {};
  const auto c = store_->conversation(id);
  return c ? c->title : QString();
}

bool ConversationListController::exportConversation(qint64 id, const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  const auto conversation = store_ ? store_->conversation(id) : std::nullopt;
  if (!conversation || path.isEmpty()) return false;
  // The open conversation's rows as the window shows them (an unsaved one included): the
  // branch shown; JSON adds the whole tree as stored.
  const QVector<StoredMessage> rows = id == chat_.current_conversation() && !chat_.opening()
                                          ? chat_.message_items()
                                          : store_->messages(id);
  const QByteArray bytes = export_format_for(path) == ExportFormat::Json
                               ? conversation_to_json(*conversation, rows, store_->message_tree(id))
                               : conversation_to_markdown(*conversation, rows);
  QString error;
  if (!write_export_file(path, bytes, &error)) {
    notices_.show_error(error);
    return false;
  }
  emit statusEvent(tr("export"), tr("“%1” written to %2").arg(conversation->title, path));
  return true;
}

QString ConversationListController::exportFileName(qint64 id, const QString& format) const {
  return export_file_name(conversationTitle(id), export_format_for(format));
}

QString ConversationListController::defaultExportPath(qint64 id, const QString& format) const {
  QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  return QDir(dir).filePath(exportFileName(id, format));
}

}  // namespace kvchat::app
