// ChatController's replies beyond the first answer: regenerate (a new branch of any reply,
// with the settings' seed or a reply's own), switching branches (‹ 2/3 › under any message
// with siblings; the KV snapshot follows the branch shown, the title the first message
// shown), Continue (more of the last reply, in place), and what the end-to-end test reads
// of them.
#include <QCoreApplication>
#include <QFile>
#include <algorithm>

#include "chat/chat_controller.h"
#include "engine/engine_worker.h"
#include "memory/ram_tier.h"

namespace kvchat::app {

void ChatController::regenerate() { regenerate_reply(-1); }

void ChatController::regenerateWithSeed(qint64 seed) {
  regenerate_reply(std::max<qint64>(0, seed));
}

void ChatController::regenerateMessage(int row) { regenerate_row(row, -1); }

void ChatController::regenerate_reply(qint64 seed) {
  const int last_user = lastUserRow();
  if (last_user >= 0) regenerate_row(last_user + 1, seed);
}

void ChatController::regenerate_row(int row, qint64 seed) {
  if (!store_ || generating_) return;
  const auto& items = messages_.items();
  // The reply at `row` (or, one past the last row, the answer the last message lacks).
  if (row < 1 || row > items.size() || items[row - 1].role != QStringLiteral("user")) return;
  if (row < items.size() && items[row].role != QStringLiteral("assistant")) return;
  QString error;
  // The rows kept must be stored first: the changes below are by their ids.
  if (!save_unsaved(&error)) {
    note_save(false, error);
    emit errorOccurred(tr("Cannot regenerate now: %1").arg(error));
    return;
  }
  if (row == items.size()) {
    start_reply(/*append_row=*/true, seed);
    return;
  }
  // A new sibling of the reply: it and what follows it stay, as the other branch.
  if (!store_->add_branch(items[row].id, {}, MessageState::Streaming, &error)) {
    emit errorOccurred(tr("Cannot regenerate now: %1").arg(error));
    return;
  }
  show_stored_path_from(row);
  start_reply(/*append_row=*/false, seed, /*continuing=*/false, /*forks_branch=*/true);
}

void ChatController::show_stored_path_from(int row) {
  const QVector<StoredMessage> stored = store_->messages(current_);
  messages_.truncate(row);
  for (int r = row; r < stored.size(); ++r) messages_.append(stored[r]);
}

void ChatController::selectVersion(int row, int version) {
  if (!store_ || generating_) return;
  const auto& items = messages_.items();
  if (row < 0 || row >= items.size() || !items[row].id || version == items[row].version ||
      version < 0 || version >= items[row].version_count)
    return;
  QString error;
  // The rows after it leave the window: they must be stored first.
  if (!save_unsaved(&error)) {
    note_save(false, error);
    emit errorOccurred(tr("Cannot show that version: %1").arg(error));
    return;
  }
  const QVector<StoredMessage> siblings = store_->branches(items[row].id);
  if (version >= siblings.size()) return;
  if (!store_->select_branch(siblings[version].id, &error)) {
    emit errorOccurred(tr("Cannot show that version: %1").arg(error));
    return;
  }
  // The branch chosen and what follows it there; the next turn continues from it.
  show_stored_path_from(row);
  follow_first_message_title(row);
  const auto& shown = messages_.items();
  last_reply_stats_ = !shown.isEmpty() && shown.back().role == QStringLiteral("assistant")
                          ? shown.back().stats
                          : QVariantMap();
  emit lastReplyStatsChanged();
  emit conversationsChanged();
  follow_shown_branch();
}

void ChatController::follow_first_message_title(int row) {
  const auto& items = messages_.items();
  const auto first = std::find_if(items.begin(), items.end(), [](const StoredMessage& m) {
    return m.role == QLatin1String("user");
  });
  if (first == items.end() || row > first - items.begin()) return;  // a later one changed
  QString error;
  bool changed = false;
  if (!store_->retitle_from_first_message(current_, first->content, &error, &changed)) {
    emit errorOccurred(tr("The conversation's title was not updated: %1").arg(error));
    return;
  }
  if (changed) emit conversationsChanged();  // the sidebar shows the new title
}

void ChatController::follow_shown_branch() {
  const QString path = memory_state_->snapshot_path(current_);
  if (!models_->loaded()) {
    // Nothing to cut it to: a snapshot of the other branch must not come back as this one.
    QFile::remove(path);
    return;
  }
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, turns = chat_turns(messages_.items()), prompt = system_prompt(), path,
       budget = memory_state_->snapshot_budget_bytes(), prefix = ram_tier_prefix(current_)] {
        w->followBranch(turns, prompt, path, budget, prefix);
      },
      Qt::QueuedConnection);
}

void ChatController::showAdjacentVersion(int step, int row) {
  const auto& items = messages_.items();
  if (row < 0) {
    // The last message that has siblings.
    for (int r = static_cast<int>(items.size()) - 1; r >= 0 && row < 0; --r) {
      if (items[r].version_count > 1) row = r;
    }
  }
  if (row < 0 || row >= items.size()) return;
  const int version = items[row].version + step;
  if (version >= 0 && version < items[row].version_count) selectVersion(row, version);
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
      !reply.tool_steps.isEmpty() || reply.version_count < 2 || !reply.id)
    return false;
  QString error;
  // Its siblings stay: the last of them is shown again, with what follows it.
  if (!store_->delete_message(reply.id, &error)) {
    emit errorOccurred(error);
    return false;  // it stays, as an empty version
  }
  show_stored_path_from(row);
  last_reply_stats_ = messages_.items().value(row).stats;
  set_generating(false);
  emit conversationsChanged();
  emit errorOccurred(tr("%1: the version before it is shown again.").arg(why));
  emit replyEnded();
  emit replyFinished();
  return true;
}

}  // namespace kvchat::app
