#include "models/message_list_model.h"

#include "kvchat/reasoning.h"
#include "models/message_segments.h"

namespace kvchat::app {

ReplyParts reply_parts(const StoredMessage& m) {
  if (m.role != QLatin1String("assistant")) return {{}, m.content};
  const bool opened = m.stats.value(QStringLiteral("thinking_opened_by_prompt")).toBool();
  if (!opened && !m.content.contains(QLatin1String("<think>"))) return {{}, m.content};
  const ReasoningParts parts = split_reasoning(m.content.toStdString(), {}, opened);
  return {QString::fromStdString(parts.thinking), QString::fromStdString(parts.answer)};
}

QString message_state_name(MessageState s) {
  switch (s) {
    case MessageState::Complete: return QStringLiteral("complete");
    case MessageState::Streaming: return QStringLiteral("streaming");
    case MessageState::Interrupted: return QStringLiteral("interrupted");
  }
  return {};
}

int MessageListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= items_.size()) return {};
  const StoredMessage& m = items_[index.row()];
  switch (role) {
    case IdRole: return m.id;
    case RoleRole: return m.role;
    case ContentRole:
    case Qt::DisplayRole: return m.content;
    case StateRole: return message_state_name(m.state);
    case StatsRole: return m.stats;
    case SavedRole: return !unsaved_[index.row()];
    case VersionRole: return m.version;
    case VersionCountRole: return m.version_count;
    case SegmentsRole: return message_segments(reply_parts(m).answer);
    case ThinkingRole: return reply_parts(m).thinking;
    case AnswerRole: return reply_parts(m).answer;
    default: return {};
  }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
  return {{IdRole, "messageId"},      {RoleRole, "role"},
          {ContentRole, "content"},   {StateRole, "state"},
          {StatsRole, "stats"},       {SavedRole, "saved"},
          {VersionRole, "version"},   {VersionCountRole, "versionCount"},
          {SegmentsRole, "segments"}, {ThinkingRole, "thinking"},
          {AnswerRole, "answer"}};
}

void MessageListModel::reset(QVector<StoredMessage> messages) {
  beginResetModel();
  items_ = std::move(messages);
  unsaved_ = QVector<bool>(items_.size(), false);
  endResetModel();
}

void MessageListModel::append(const StoredMessage& message, bool saved) {
  const int row = static_cast<int>(items_.size());
  beginInsertRows({}, row, row);
  items_.push_back(message);
  unsaved_.push_back(!saved);
  endInsertRows();
}

void MessageListModel::set_unsaved(int row) {
  if (row < 0 || row >= items_.size() || unsaved_[row]) return;
  unsaved_[row] = true;
  emit dataChanged(index(row), index(row), {SavedRole});
}

void MessageListModel::set_saved(int row, qint64 id) {
  if (row < 0 || row >= items_.size()) return;
  items_[row].id = id;
  unsaved_[row] = false;
  emit dataChanged(index(row), index(row), {IdRole, SavedRole});
}

void MessageListModel::append_to_last(const QString& text) {
  if (items_.isEmpty()) return;
  items_.back().content += text;
  const QModelIndex i = index(static_cast<int>(items_.size()) - 1);
  emit dataChanged(i, i, {ContentRole, SegmentsRole, ThinkingRole, AnswerRole});
}

void MessageListModel::update_last(MessageState state, const QVariantMap& stats) {
  if (items_.isEmpty()) return;
  items_.back().state = state;
  items_.back().stats = stats;
  const QModelIndex i = index(static_cast<int>(items_.size()) - 1);
  emit dataChanged(i, i, {StateRole, StatsRole, SegmentsRole, ThinkingRole, AnswerRole});
}

void MessageListModel::set_row(int row, const StoredMessage& message) {
  if (row < 0 || row >= items_.size()) return;
  items_[row] = message;
  emit dataChanged(index(row), index(row));
}

void MessageListModel::truncate(int count) {
  if (count >= items_.size()) return;
  beginRemoveRows({}, count, static_cast<int>(items_.size()) - 1);
  items_.resize(count);
  unsaved_.resize(count);
  endRemoveRows();
}

}  // namespace kvchat::app
