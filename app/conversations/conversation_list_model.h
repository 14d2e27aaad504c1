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
  // For QML: the row of a conversation (-1 when it is not listed), its id at a row (0).
  Q_INVOKABLE int rowOf(qint64 id) const { return row_of(id); }
  Q_INVOKABLE qint64 idAt(int row) const {
    return row >= 0 && row < items_.size() ? items_[row].id : 0;
  }
  Q_INVOKABLE QString titleAt(int row) const {
    return row >= 0 && row < items_.size() ? items_[row].title : QString();
  }

 private:
  QVector<StoredConversation> items_;
};

}  // namespace kvchat::app
