// ConversationListController: the sidebar's conversation list (`conversationList` in QML).
// Owns the ConversationListModel and what is done to the list: the search (New chat clears
// it, so the new conversation is listed), delete with a few seconds to undo (the pending
// delete and its timer), rename, titles, export (Markdown or JSON), and refresh. The open
// conversation is the chat's: the list reaches it through ConversationListHost
// (ChatController), which calls refresh() when titles or order change and hears of a
// conversation deleted for good through conversationDeleted. Errors go to NoticeCenter.
// GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QVariantMap>
#include <QVector>

#include "conversations/conversation_list_model.h"
#include "store/conversation_store.h"

namespace kvchat::app {

class NoticeCenter;

// What the list needs from the chat that holds the open conversation.
class ConversationListHost {
 public:
  virtual ~ConversationListHost() = default;
  virtual qint64 current_conversation() const = 0;
  // The open conversation's rows as the window shows them (unsaved ones included).
  virtual const QVector<StoredMessage>& message_items() const = 0;
  // Whether those rows are still being read (message_items() is empty until they arrive).
  virtual bool opening() const = 0;
  // Whether `id` may be deleted now; false when not (a reply or a summary being written
  // into it), said to the user where it needs saying.
  virtual bool may_delete_conversation(qint64 id) = 0;
  // The open conversation is being deleted: its unsaved rows are stored first (so that
  // Undo brings all of them back), then it is left (no conversation open).
  virtual void leave_deleted_conversation() = 0;
  // An undone delete: the conversation opens again when no other one was opened meanwhile.
  virtual void reopen_undeleted_conversation(qint64 id) = 0;
};

class ConversationListController : public QObject {
  Q_OBJECT
  Q_PROPERTY(kvchat::app::ConversationListModel* model READ list_model CONSTANT)
  // The sidebar's search (what search() was given); the search field follows it.
  Q_PROPERTY(QString searchText READ search_text NOTIFY searchTextChanged)
  // The conversation deleted last, for kUndoDeleteMs: {id, title} (empty when none). It is
  // gone from the list at once and deleted from the store when the time is up, when another
  // one is deleted, or at exit; undoDelete() brings it back with its messages.
  Q_PROPERTY(QVariantMap pendingDelete READ pending_delete NOTIFY pendingDeleteChanged)
  Q_PROPERTY(int undoDeleteMs READ undo_delete_ms CONSTANT)

 public:
  // store may be null (the database could not be opened): the list stays empty.
  ConversationListController(ConversationListHost& chat, ConversationStore* store,
                             NoticeCenter& notices, QObject* parent = nullptr);

  ConversationListModel* list_model() { return &conversations_; }
  const ConversationListModel& list_model() const { return conversations_; }
  QString search_text() const { return search_text_; }
  QVariantMap pending_delete() const;
  qint64 pending_delete_id() const { return pending_delete_id_; }
  static constexpr int kUndoDeleteMs = 8000;
  int undo_delete_ms() const { return kUndoDeleteMs; }

  // The list read again from the store (the search and the pending delete kept).
  void refresh();
  // Before a new conversation opens: the search goes (a new chat matches none).
  void clear_search();
  // The pending delete done now (the timer's end, the window's; tests call it).
  void commit_pending_delete();
  // An empty conversation already listed (no messages, no system prompt or `fresh_prompt`:
  // the one a new conversation starts with), 0 if none.
  qint64 empty_conversation(const QString& fresh_prompt = {}) const;
  qint64 first_listed() const;
  Q_INVOKABLE void search(const QString& text);
  Q_INVOKABLE void renameConversation(qint64 id, const QString& title);
  // Hides the conversation at once (pendingDelete) and deletes it kUndoDeleteMs later.
  Q_INVOKABLE void deleteConversation(qint64 id);
  Q_INVOKABLE void undoDelete();
  Q_INVOKABLE QString conversationTitle(qint64 id) const;
  // Writes the conversation to a file: JSON when the path ends in .json, else Markdown
  // (export/conversation_export.h). A file:// URL or a path. False, with the error shown,
  // when it could not be written.
  Q_INVOKABLE bool exportConversation(qint64 id, const QString& path_or_url);
  // A file name for the export dialog: the title made safe, suffix ".md" or ".json".
  Q_INVOKABLE QString exportFileName(qint64 id, const QString& format) const;
  // Where the export dialog proposes to write: the Documents folder (the home folder when
  // there is none) and exportFileName.
  Q_INVOKABLE QString defaultExportPath(qint64 id, const QString& format) const;

 signals:
  void searchTextChanged();
  void pendingDeleteChanged();
  void conversationDeleted(qint64 id);  // from the store, for good: its state goes too
  void statusEvent(const QString& kind, const QString& message);  // for the status line

 private:
  ConversationListHost& chat_;
  ConversationStore* store_;
  NoticeCenter& notices_;
  ConversationListModel conversations_;
  QString search_text_;  // kept when the list is refreshed
  QTimer delete_timer_;
  qint64 pending_delete_id_ = 0;
  QString pending_delete_title_;
};

}  // namespace kvchat::app
