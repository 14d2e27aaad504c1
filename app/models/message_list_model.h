// MessageListModel: the messages of the open conversation, for QML. The streaming reply
// grows in place (append_to_last). Mutated only on the GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

class MessageListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Roles { IdRole = Qt::UserRole + 1, RoleRole, ContentRole, StateRole, StatsRole };
  using QAbstractListModel::QAbstractListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void reset(QVector<StoredMessage> messages);
  void append(const StoredMessage& message);
  void append_to_last(const QString& text);
  void update_last(MessageState state, const QVariantMap& stats);
  void truncate(int count);  // keeps the first `count` messages

  const QVector<StoredMessage>& items() const { return items_; }

 private:
  QVector<StoredMessage> items_;
};

QString message_state_name(MessageState s);

}  // namespace kvchat::app
