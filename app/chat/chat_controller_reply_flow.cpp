// ChatController, a reply as it is written: started on the worker, streamed into the last
// row (saved at least every kPersistEveryMs, shown about 30 times a second), finished or
// failed (a full context offers its ways out), stopped; an edit that resends.
#include <QDir>

#include "chat/chat_controller.h"
#include "documents/document_controller.h"
#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "memory/ram_tier.h"
#include "settings/sampling_settings.h"

namespace kvchat::app {

namespace {
constexpr int kPersistEveryMs = 250;  // a streaming reply is saved at least this often
}  // namespace

void ChatController::start_reply(bool append_row, qint64 seed, bool continuing, bool forks_branch) {
  if (refuse_while_opening()) return;
  const int rows = messages_.rowCount();
  continuing_ = continuing;
  if (!continuing) reply_base_stats_.clear();
  const ChatTurns messages =
      chat_turns(messages_.items(), continuing || append_row ? rows : rows - 1);
  if (append_row) {
    StoredMessage reply;
    reply.conversation_id = current_;
    reply.role = QStringLiteral("assistant");
    reply.state = MessageState::Streaming;
    // Stored now (empty, streaming) or with the next save; the reply is generated either way.
    messages_.append(reply, false);
  }
  QString error;
  note_save(save_unsaved(&error), error);
  emit conversationsChanged();
  set_generating(true);
  since_persist_.start();
  memory_state_->mark_turn_on_timeline();
  QVariantMap sampling = models_->reply_sampling();
  if (seed >= 0) sampling.insert(QStringLiteral("seed"), seed);
  // The seed actually used is chosen here and comes back in the reply's stats.
  sampling = with_reply_seed(sampling);
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, messages, prompt = system_prompt(), s = reply_sampling(sampling), continuing,
       fork = forks_branch ? ram_tier_prefix(current_) : QString(), tools = reply_tools()] {
        if (continuing) {
          w->continueReply(messages, prompt, s, tools);
        } else {
          w->generate(messages, prompt, s, fork, tools);
        }
      },
      Qt::QueuedConnection);
}

bool ChatController::stop() {
  // The reply first: the two run side by side.
  if (generating_) {
    worker_->request_stop();
    return true;
  }
  if (documents_ && documents_->summarizing()) {
    documents_->cancelSummary();
    return true;
  }
  return false;
}

bool ChatController::editMessage(int row, const QString& text) {
  if (!store_ || generating_ || text.trimmed().isEmpty()) return false;
  const auto& items = messages_.items();
  if (row < 0 || row >= items.size() || items[row].role != QStringLiteral("user")) return false;
  QString error;
  if (!save_unsaved(&error)) {
    note_save(false, error);
    emit errorOccurred(tr("Cannot edit now: %1").arg(error));
    return false;
  }
  // A new branch at the message: the old text and what follows it stay as the other one.
  if (!store_->add_branch(items[row].id, text, MessageState::Complete, &error)) {
    emit errorOccurred(tr("The edit was not saved: %1").arg(error));
    return false;
  }
  show_stored_path_from(row);
  follow_first_message_title(row);
  // The engine re-evaluates only from the edited message on; the old branch waits in RAM.
  start_reply(/*append_row=*/true, /*seed=*/-1, /*continuing=*/false, /*forks_branch=*/true);
  return true;
}

int ChatController::lastUserRow() const {
  const auto& items = messages_.items();
  for (int row = int(items.size()) - 1; row >= 0; --row) {
    if (items[row].role == QLatin1String("user")) return row;
  }
  return -1;
}

void ChatController::persist_reply(MessageState state, const QVariantMap& stats) {
  if (!store_ || messages_.rowCount() == 0) return;
  const int last = messages_.rowCount() - 1;
  messages_.update_last(state, over_reply_base(stats));
  messages_.set_unsaved(last);
  QString error;
  note_save(save_unsaved(&error), error);
  since_persist_.restart();
}

void ChatController::on_reply_opens_thinking() {
  // Kept with the streaming row's stats (and so saved with it): the bubble splits the text
  // from its start as reasoning.
  reply_base_stats_.insert(QStringLiteral("thinking_opened_by_prompt"), true);
  if (!messages_.items().isEmpty())
    messages_.update_last(MessageState::Streaming, over_reply_base(messages_.items().back().stats));
}

void ChatController::on_reply_chunk(const QString& text) {
  pending_text_ += text;
  if (!ui_refresh_.isActive()) ui_refresh_.start();
}

void ChatController::flush_to_ui() {
  if (!pending_text_.isEmpty()) {
    messages_.append_to_last(pending_text_);
    pending_text_.clear();
    if (since_persist_.elapsed() >= kPersistEveryMs) persist_reply(MessageState::Streaming, {});
  }
}

void ChatController::flush_now() {
  ui_refresh_.stop();
  flush_to_ui();
  memory_state_->flush();
}

void ChatController::on_reply_finished(const QVariantMap& stats) {
  flush_now();
  last_reply_stats_ = stats;
  // Which KV type the figures were measured with (a KV-type change makes them history).
  last_reply_stats_.insert(QStringLiteral("kv_type"),
                           memory_state_->memory().value(QStringLiteral("kv_type")));
  // And which model: the memory panel shows a reply's figures only with its model loaded.
  last_reply_stats_.insert(QStringLiteral("model_identity"), models_->identity());
  // A reply that wrote nothing leaves no empty bubble; a full context offers its actions.
  const QString stop_reason = stats.value("stop_reason").toString();
  const bool context_full = stop_reason == QStringLiteral("context-full");
  if (drop_empty_reply(stop_reason == QStringLiteral("cancelled")
                           ? tr("It was stopped before its first word.")
                           : tr("The model ended its reply without writing anything."),
                       context_full)) {
    return;
  }
  if (context_full) {
    offer_context_actions(tr("The reply was cut where the context ran out of room (%1).")
                              .arg(context_meter_->usage_text()));
  } else if (notices_.notice_kind() == QLatin1String("context-full")) {
    notices_.dismissNotice();  // this reply found room: the full context is behind us
  }
  const bool cancelled = stats.value("stop_reason").toString() == QStringLiteral("cancelled");
  const MessageState state = cancelled ? MessageState::Interrupted : MessageState::Complete;
  persist_reply(state, last_reply_stats_);
  emit lastReplyStatsChanged();
  set_generating(false);
  emit conversationsChanged();
  // Keep the conversation's KV state so reopening it later costs no re-evaluation.
  QDir().mkpath(QDir(data_dir_).filePath(QStringLiteral("snapshots")));
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, path = memory_state_->snapshot_path(current_),
       budget = memory_state_->snapshot_budget_bytes()] { w->saveSnapshot(path, budget); },
      Qt::QueuedConnection);
  emit replyEnded();
  emit replyFinished();
}

void ChatController::on_reply_failed(const QString& message) {
  flush_now();
  if (drop_empty_reply(message, context_full_seen_)) return;
  if (context_full_seen_ && continuing_) return keep_reply_after_refused_continue();
  persist_reply(MessageState::Interrupted, {{"error", message}});
  set_generating(false);
  // The session may hold less than the snapshot on disk now (an edit's fork point).
  if (models_->loaded()) follow_shown_branch();
  emit errorOccurred(message);
}

}  // namespace kvchat::app
