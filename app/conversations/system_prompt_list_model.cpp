#include "conversations/system_prompt_list_model.h"

namespace kvchat::app {

int SystemPromptListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant SystemPromptListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= items_.size()) return {};
  const StoredSystemPrompt& p = items_[index.row()];
  switch (role) {
    case IdRole: return p.id;
    case NameRole:
    case Qt::DisplayRole: return p.name;
    case TextRole: return p.text;
    case UsedByRole: return p.used_by;
    case UpdatedRole: return p.updated;
    default: return {};
  }
}

QHash<int, QByteArray> SystemPromptListModel::roleNames() const {
  return {{IdRole, "promptId"},
          {NameRole, "name"},
          {TextRole, "text"},
          {UsedByRole, "usedBy"},
          {UpdatedRole, "updated"}};
}

void SystemPromptListModel::reset(QVector<StoredSystemPrompt> prompts) {
  const bool count_changed = prompts.size() != items_.size();
  beginResetModel();
  items_ = std::move(prompts);
  endResetModel();
  if (count_changed) emit countChanged();
}

const StoredSystemPrompt* SystemPromptListModel::find(qint64 id) const {
  const int row = row_of(id);
  return row < 0 ? nullptr : &items_[row];
}

int SystemPromptListModel::row_of(qint64 id) const {
  for (int i = 0; i < items_.size(); ++i) {
    if (items_[i].id == id) return i;
  }
  return -1;
}

qint64 SystemPromptListModel::idAt(int row) const {
  return row >= 0 && row < items_.size() ? items_[row].id : 0;
}

QString SystemPromptListModel::nameAt(int row) const {
  return row >= 0 && row < items_.size() ? items_[row].name : QString();
}

QString SystemPromptListModel::textAt(int row) const {
  return row >= 0 && row < items_.size() ? items_[row].text : QString();
}

}  // namespace kvchat::app
