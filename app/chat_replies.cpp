// ChatController's replies beyond the first answer: regenerate (a new version of the
// last reply, with the settings' seed or a reply's own), switching versions, Continue
// (more of the last reply, in place), and what the end-to-end test reads of them.
#include <QCoreApplication>
#include <algorithm>

#include "chat_controller.h"

namespace kvchat::app {

void ChatController::regenerate() { regenerate_reply(-1); }

void ChatController::regenerateWithSeed(qint64 seed) {
  regenerate_reply(std::max<qint64>(0, seed));
}

void ChatController::regenerate_reply(qint64 seed) {
  if (!store_ || generating_) return;
  const auto& items = messages_.items();
  int last_user = -1;
  for (int i = static_cast<int>(items.size()) - 1; i >= 0; --i) {
    if (items[i].role == QStringLiteral("user")) {
      last_user = i;
      break;
    }
  }
  if (last_user < 0) return;
  QString error;
  // The rows kept must be stored first: the changes below are by their ids.
  if (!save_unsaved(&error)) {
    note_save(false, error);
    emit errorOccurred(tr("Cannot regenerate now: %1").arg(error));
    return;
  }
  const int reply_row = last_user + 1;
  if (reply_row == items.size() - 1 && items[reply_row].role == QStringLiteral("assistant")) {
    // The reply keeps its versions: the one shown is kept, a new one is written.
    const int version = store_->add_message_version(items[reply_row].id, &error);
    if (version < 0) {
      emit errorOccurred(tr("Cannot regenerate now: %1").arg(error));
      return;
    }
    StoredMessage reply = items[reply_row];
    reply.content.clear();
    reply.state = MessageState::Streaming;
    reply.stats.clear();
    reply.version = version;
    reply.version_count = version + 1;
    messages_.set_row(reply_row, reply);
    start_reply(/*append_row=*/false, seed);
    return;
  }
  if (!store_->delete_messages_after(items[last_user].id, &error)) {
    note_save(false, error);
    emit errorOccurred(tr("Cannot regenerate now: %1").arg(error));
    return;
  }
  messages_.truncate(last_user + 1);
  start_reply(/*append_row=*/true, seed);
}

void ChatController::selectVersion(int row, int version) {
  if (!store_ || generating_) return;
  const auto& items = messages_.items();
  // Only the last reply switches: the next turn continues from the version shown.
  if (row != items.size() - 1 || row < 0 || items[row].role != QStringLiteral("assistant") ||
      !items[row].id || version == items[row].version)
    return;
  QString error;
  if (!store_->select_message_version(items[row].id, version, &error)) {
    emit errorOccurred(tr("Cannot show that version: %1").arg(error));
    return;
  }
  const QVector<StoredMessage> stored = store_->messages(current_);
  if (row < stored.size()) messages_.set_row(row, stored[row]);
  last_reply_stats_ = stored.value(row).stats;
}

void ChatController::showAdjacentVersion(int step) {
  const auto& items = messages_.items();
  if (items.isEmpty()) return;
  const int version = items.back().version + step;
  if (version >= 0 && version < items.back().version_count)
    selectVersion(static_cast<int>(items.size()) - 1, version);
}

void ChatController::continueReply() {
  if (!store_ || generating_ || !models_->loaded()) return;
  const auto& items = messages_.items();
  if (items.isEmpty() || items.back().role != QStringLiteral("assistant")) return;
  reply_base_stats_ = items.back().stats;
  const int last = static_cast<int>(items.size()) - 1;
  messages_.update_last(MessageState::Streaming, reply_base_stats_);
  messages_.set_unsaved(last);
  start_reply(/*append_row=*/false, /*seed=*/-1, /*continuing=*/true);
}

QVariantMap ChatController::over_reply_base(const QVariantMap& stats) const {
  QVariantMap merged = reply_base_stats_;
  for (auto it = stats.begin(); it != stats.end(); ++it) merged.insert(it.key(), it.value());
  return merged;
}

QVariantMap ChatController::finished_reply_stats(const QVariantMap& part) {
  if (!continuing_) return part;
  // One reply in parts: its first part's seed, the tokens of all parts, this part's speed
  // and how it ended.
  QVariantMap stats = over_reply_base(part);
  stats.insert(QStringLiteral("generated_tokens"),
               reply_base_stats_.value(QStringLiteral("generated_tokens")).toInt() +
                   part.value(QStringLiteral("generated_tokens")).toInt());
  stats.insert(QStringLiteral("continued"),
               reply_base_stats_.value(QStringLiteral("continued")).toInt() + 1);
  stats.insert(QStringLiteral("continue_seed"), part.value(QStringLiteral("seed")));
  if (reply_base_stats_.contains(QStringLiteral("seed")))
    stats.insert(QStringLiteral("seed"), reply_base_stats_.value(QStringLiteral("seed")));
  if (!messages_.items().isEmpty())
    stats.insert(QStringLiteral("text"), messages_.items().back().content);
  continuing_ = false;
  reply_base_stats_.clear();
  return stats;
}

bool ChatController::discard_empty_version(const QString& why) {
  flush_now();
  if (continuing_ || !store_ || messages_.items().isEmpty()) return false;
  const int row = static_cast<int>(messages_.items().size()) - 1;
  const StoredMessage& reply = messages_.items()[row];
  if (reply.role != QStringLiteral("assistant") || !reply.content.isEmpty() ||
      reply.version_count < 2 || !reply.id)
    return false;
  QString error;
  if (!store_->discard_shown_version(reply.id, &error)) {
    emit errorOccurred(error);
    return false;  // it stays, as an empty version
  }
  const QVector<StoredMessage> stored = store_->messages(current_);
  if (row < stored.size()) messages_.set_row(row, stored[row]);
  last_reply_stats_ = stored.value(row).stats;
  set_generating(false);
  emit conversationsChanged();
  emit errorOccurred(tr("%1: the version before it is shown again.").arg(why));
  emit replyEnded();
  emit replyFinished();
  return true;
}

}  // namespace kvchat::app
