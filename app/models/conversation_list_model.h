// ConversationListModel: the sidebar's conversations (most recent first), for QML.
// Mutated only on the GUI thread, from the store.
#pragma once

#include <QAbstractListModel>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

class ConversationListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Roles { IdRole = Qt::UserRole + 1, TitleRole, UpdatedRole };
  using QAbstractListModel::QAbstractListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void reset(QVector<StoredConversation> conversations);
  int row_of(qint64 id) const;

 private:
  QVector<StoredConversation> items_;
};

}  // namespace kvchat::app
