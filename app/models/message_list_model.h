// MessageListModel: the messages of the open conversation, for QML. The streaming reply
// grows in place (append_to_last). A row the store could not take yet (disk full, I/O
// error) stays, marked unsaved (role "saved" false; id 0 when it was never written) until
// the controller's next save writes it. Mutated only on the GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

class MessageListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  // version / versionCount: which reply version the row shows (0-based) of how many.
  // thinking / answer: a reply's reasoning and the rest (reply_parts()); segments: the
  // answer (a user's text) split at fenced code blocks (message_segments.h), for the bubble.
  enum Roles {
    IdRole = Qt::UserRole + 1,
    RoleRole,
    ContentRole,
    StateRole,
    StatsRole,
    SavedRole,
    VersionRole,
    VersionCountRole,
    SegmentsRole,
    ThinkingRole,
    AnswerRole
  };
  using QAbstractListModel::QAbstractListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void reset(QVector<StoredMessage> messages);
  void append(const StoredMessage& message, bool saved = true);
  void append_to_last(const QString& text);
  void update_last(MessageState state, const QVariantMap& stats);
  void truncate(int count);                             // keeps the first `count` messages
  void set_row(int row, const StoredMessage& message);  // another version of it, say
  // Unsaved rows: appended with append(m, false), or marked after a failed update.
  void set_unsaved(int row);
  void set_saved(int row, qint64 id);  // written: its store id
  bool saved(int row) const { return row >= 0 && row < unsaved_.size() && !unsaved_[row]; }
  int unsaved_count() const { return static_cast<int>(unsaved_.count(true)); }

  const QVector<StoredMessage>& items() const { return items_; }

 private:
  QVector<StoredMessage> items_;
  QVector<bool> unsaved_;  // per row
};

QString message_state_name(MessageState s);

// A message's text as the bubble shows it: a reply's reasoning (kvchat/reasoning.h; it
// starts inside it when its stats say the prompt opened it: "thinking_opened_by_prompt")
// apart from its answer; a user's text is all answer. The stored content stays the raw
// sampled text (the model's template decides how history renders it).
struct ReplyParts {
  QString thinking, answer;
};
ReplyParts reply_parts(const StoredMessage& m);

}  // namespace kvchat::app
