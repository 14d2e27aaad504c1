#include "conversations/conversation_list_model.h"

namespace kvchat::app {

int ConversationListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= items_.size()) return {};
  const StoredConversation& c = items_[index.row()];
  switch (role) {
    case IdRole: return c.id;
    case TitleRole:
    case Qt::DisplayRole: return c.title;
    case UpdatedRole: return c.updated;
    default: return {};
  }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const {
  return {{IdRole, "conversationId"}, {TitleRole, "title"}, {UpdatedRole, "updated"}};
}

void ConversationListModel::reset(QVector<StoredConversation> conversations) {
  beginResetModel();
  items_ = std::move(conversations);
  endResetModel();
}

int ConversationListModel::row_of(qint64 id) const {
  for (int i = 0; i < items_.size(); ++i) {
    if (items_[i].id == id) return i;
  }
  return -1;
}

}  // namespace kvchat::app
