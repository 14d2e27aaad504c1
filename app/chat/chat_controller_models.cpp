// ChatController and the model: what the chat does when a model is loaded (its figures
// start again, the conversation's snapshot restores) and what a failed load offers
// (retry, the previous model, the demo model, the settings); and what a full context
// offers (a new chat, the conversation summarized into a new one, another context
// policy). A reply that wrote nothing leaves no empty bubble. The model itself and its
// settings are ModelController's.
#include <QDateTime>
#include <QFileInfo>
#include <QUrl>

#include "chat/chat_controller.h"
#include "engine/engine_maps.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

namespace {

QString file_name(const QString& path) { return QFileInfo(path).fileName(); }

// Banners that belong to the open conversation (a load failure belongs to the window).
bool conversation_notice(const QString& kind) {
  return kind == QLatin1String("context-full") || kind == QLatin1String("no-reply");
}

}  // namespace

void ChatController::connect_model_signals() {
  // The banner's actions come back from NoticeCenter.
  connect(&notices_, &NoticeCenter::actionRequested, this, &ChatController::on_notice_action);
  connect(models_.get(), &ModelController::modelLoaded, this, &ChatController::on_model_loaded);
  connect(models_.get(), &ModelController::loadFailed, this, &ChatController::on_model_load_failed);
  connect(models_.get(), &ModelController::loadStarted, this, [this] {
    if (notices_.notice_kind() == QLatin1String("load-failed")) notices_.dismissNotice();
  });
  connect(models_.get(), &ModelController::errorOccurred, this, &ChatController::errorOccurred);
  connect(models_.get(), &ModelController::settingNote, this,
          [this](const QString& reason) { on_session_event(tr("settings"), reason); });
  connect(worker_, &EngineWorker::replyStarted, this, [this] {
    context_full_seen_ = false;
    context_full_detail_.clear();
  });
  connect(worker_, &EngineWorker::replyContextFull, this, [this](int prompt_tokens, int n_ctx) {
    context_full_seen_ = true;
    context_full_detail_ = tr("The conversation comes to %1 tokens; the context holds %2.")
                               .arg(count_text(prompt_tokens), count_text(n_ctx));
  });
  connect(worker_, &EngineWorker::contextPolicyApplied, this,
          &ChatController::on_context_policy_applied);
  connect(worker_, &EngineWorker::conversationSummarized, this,
          &ChatController::on_conversation_summarized);
  connect(worker_, &EngineWorker::conversationSummaryFailed, this,
          &ChatController::on_conversation_summary_failed);
  // What the policy did, and a full context's banner, are the open conversation's.
  connect(this, &ChatController::currentConversationChanged, this, [this] {
    if (summarizing_from_) return;
    if (!context_notice_.isEmpty()) {
      context_notice_.clear();
      emit contextNoticeChanged();
    }
    if (conversation_notice(notices_.notice_kind())) notices_.dismissNotice();
  });
}

// ---- a model loaded, or not ----------------------------------------------------------

void ChatController::on_model_loaded(const LoadedModel& model) {
  if (notices_.notice_kind() == QLatin1String("load-failed")) notices_.dismissNotice();
  memory_state_->forget_session_figures();
  memory_state_->measure_kv_quality(model.identity());
  // Which chat format the conversation goes through, and why (Settings can change it).
  on_session_event(tr("chat"), model.format.description);
  check_conversation_model();  // written with another model: said, with the ways out
  // The open conversation's KV state: from its snapshot when one fits this model.
  if (current_) {
    QMetaObject::invokeMethod(
        worker_,
        [w = worker_, path = memory_state_->snapshot_path(current_)] { w->restoreSnapshot(path); },
        Qt::QueuedConnection);
  }
  if (retry_after_load_) {
    retry_after_load_ = false;
    retry_unanswered();
  }
}

void ChatController::on_model_load_failed(const QString& failed, const QString& message) {
  retry_after_load_ = false;
  const QString loaded = models_->path();
  const QString demo = models_->demo_model_path();
  // What can be done from here, in the banner (not only the status bar).
  QVariantList actions{NoticeCenter::action("retry", tr("Retry"))};
  QString text = tr("%1 could not be loaded: %2").arg(file_name(failed), message);
  if (!loaded.isEmpty() && loaded != failed) {
    text += QLatin1Char(' ') + tr("%1 is still loaded.").arg(file_name(loaded));
    actions.push_back(NoticeCenter::action("previous", tr("Keep %1").arg(file_name(loaded))));
  } else {
    for (const QString& recent : models_->recent_models()) {
      if (recent != failed && recent != demo && QFileInfo::exists(recent)) {
        QVariantMap previous =
            NoticeCenter::action("previous", tr("Open %1").arg(file_name(recent)));
        previous.insert(QStringLiteral("path"), recent);
        actions.push_back(previous);
        break;
      }
    }
  }
  if (!demo.isEmpty() && failed != demo && loaded != demo) {
    actions.push_back(NoticeCenter::action("demo", tr("Demo model")));
  }
  actions.push_back(
      NoticeCenter::action("settings", tr("Settings for %1…").arg(file_name(failed))));
  notices_.set_notice(QStringLiteral("load-failed"), text, actions);
}

// ---- the banner and its actions -------------------------------------------------------

void ChatController::on_notice_action(const QString& id, const QVariantMap& chosen) {
  if (id == QLatin1String("retry")) {
    models_->loadModel(models_->failed_path());
  } else if (id == QLatin1String("previous")) {
    const QString path = chosen.value(QStringLiteral("path")).toString();
    if (!path.isEmpty()) {
      models_->loadModel(path);
    } else {  // the previous model is still loaded: back to it and its settings
      notices_.dismissNotice();
      models_->keep_loaded_model();
    }
  } else if (id == QLatin1String("conversation_model")) {
    models_->loadModel(chosen.value(QStringLiteral("path")).toString());
  } else if (id == QLatin1String("pick_model")) {
    emit openModelRequested();
  } else if (id == QLatin1String("models_page")) {
    emit modelsPageRequested();
  } else if (id == QLatin1String("demo")) {
    models_->loadModel(models_->demo_model_path());
  } else if (id == QLatin1String("settings")) {
    emit settingsRequested();
  } else if (id == QLatin1String("new_chat")) {
    notices_.dismissNotice();
    newConversation();
  } else if (id == QLatin1String("summarize")) {
    summarizeAndContinue();
  } else if (id == QLatin1String("change_policy")) {
    // Drop the oldest turns from now on (this model's setting), then answer again.
    notices_.dismissNotice();
    retry_after_load_ = true;
    models_->set_engine_settings_for(
        models_->path(), {{QStringLiteral("context_policy"), QStringLiteral("drop-oldest")}});
    if (!models_->loading()) retry_after_load_ = false;
  } else if (id == QLatin1String("retry_reply")) {
    notices_.dismissNotice();
    retry_unanswered();
  }
}

// ---- a reply that wrote nothing, a full context ------------------------------------------

bool ChatController::drop_empty_reply(const QString& why, bool context_full) {
  const int last = messages_.rowCount() - 1;
  if (last < 1) return false;
  const StoredMessage reply = messages_.items()[last];
  if (reply.role != QLatin1String("assistant") || !reply.content.isEmpty() ||
      !reply.tool_steps.isEmpty())  // its calls are kept, with their results
    return false;
  // A reply with other versions is never deleted here (discard_empty_version drops only
  // the empty one; if that failed, the empty version stays rather than all of them).
  if (reply.version_count >= 2) return false;
  QString error;
  if (reply.id && store_ && !store_->delete_message(reply.id, &error)) {
    qWarning("kvchat: the empty reply was not removed from the store: %s", qPrintable(error));
  }
  messages_.truncate(last);  // the user's message stays
  set_generating(false);
  emit conversationsChanged();
  if (context_full) {
    offer_context_actions(
        tr("There is no room in the context for a reply (%1). Your message is kept.")
            .arg(context_meter_->usage_text()) +
        (context_full_detail_.isEmpty() ? QString() : QLatin1Char(' ') + context_full_detail_));
  } else {
    notices_.set_notice(QStringLiteral("no-reply"),
                        tr("No reply was written: %1 Your message is kept.").arg(why),
                        {NoticeCenter::action("retry_reply", tr("Try again"))});
  }
  emit replyEnded();
  return true;
}

// Continue found no room: the reply fills what the context holds and no earlier turn is
// left to drop. The reply stays as it was (its text, its stats, not "interrupted"), and the
// banner says why, once, with the ways out.
void ChatController::keep_reply_after_refused_continue() {
  persist_reply(MessageState::Complete, {});  // the stats before the Continue (the base)
  continuing_ = false;
  reply_base_stats_.clear();
  set_generating(false);
  offer_context_actions(
      tr("This reply cannot be continued (%1): it is all the context holds and there is no "
         "earlier turn to drop. Start a new chat, summarize and continue, or give this model a "
         "longer context in Settings.")
          .arg(context_meter_->usage_text()),
      /*say_next=*/false);
  emit replyEnded();
}

void ChatController::offer_context_actions(const QString& what_happened, bool say_next) {
  // What happened, then what the next message will meet: the meter's words.
  context_meter_->mark_full();
  const QString text =
      say_next ? tr("%1 Next message: %2.").arg(what_happened, context_meter_->when_full())
               : what_happened;
  QVariantList actions{NoticeCenter::action("new_chat", tr("New chat")),
                       NoticeCenter::action("summarize", tr("Summarize and continue"))};
  if (models_->engine_settings().value(QStringLiteral("context_policy")).toString() ==
      QLatin1String("stop")) {
    actions.push_back(NoticeCenter::action("change_policy", tr("Drop oldest turns and retry")));
  }
  actions.push_back(NoticeCenter::action("settings", tr("Settings…")));
  notices_.set_notice(QStringLiteral("context-full"), text, actions);
}

void ChatController::retry_unanswered() {
  if (generating_ || !models_->loaded() || messages_.rowCount() == 0) return;
  if (messages_.items().back().role != QLatin1String("user")) return;
  start_reply();
}

void ChatController::on_context_policy_applied(const QString& kind, int before, int after,
                                               int reevaluated) {
  const int freed = before - after;
  // Counts grouped as everywhere in the window; "0 evaluated again" is not said.
  const QString n = count_text(freed), b = count_text(before), a = count_text(after);
  if (kind != QLatin1String("turns-dropped") &&
      context_meter_->policy() == QLatin1String("sink-window")) {
    context_notice_ = tr("The oldest tokens after the start left to make room: %1 tokens (%2 → %3 "
                         "in context; the first tokens and the system prompt stay).")
                          .arg(n, b, a);
  } else if (kind != QLatin1String("turns-dropped")) {
    context_notice_ =
        tr("Oldest tokens shifted out to make room: %1 tokens (%2 → %3 in context).").arg(n, b, a);
  } else if (reevaluated > 0) {
    context_notice_ =
        tr("Oldest turns dropped to make room: %1 tokens (%2 → %3 in context, %4 evaluated again).")
            .arg(n, b, a, count_text(reevaluated));
  } else {
    context_notice_ =
        tr("Oldest turns dropped to make room: %1 tokens (%2 → %3 in context).").arg(n, b, a);
  }
  emit contextNoticeChanged();
}

// ---- summarize and continue ---------------------------------------------------------------

void ChatController::summarizeAndContinue() {
  if (generating_ || !models_->loaded() || !current_ || refuse_while_opening() ||
      messages_.rowCount() == 0)
    return;
  const ChatTurns history = chat_turns(messages_.items());
  summarizing_from_ = current_;
  notices_.set_notice(QStringLiteral("summarizing"),
                      tr("Summarizing this conversation to continue in a new one… (Esc stops)"),
                      {});
  set_generating(true);
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, history, prompt = system_prompt()] {
        w->summarizeConversation(history, prompt);
      },
      Qt::QueuedConnection);
}

void ChatController::on_conversation_summarized(const QString& summary,
                                                const ConversationSummaryStats&) {
  const qint64 from = summarizing_from_;
  set_generating(false);
  QString title, unanswered;
  if (store_) {
    if (auto c = store_->conversation(from)) title = c->title;
    const QVector<StoredMessage> old = store_->messages(from);
    if (!old.isEmpty() && old.back().role == QLatin1String("user")) unanswered = old.back().content;
  }
  newConversation();
  summarizing_from_ = 0;
  if (current_ == from) {  // the new conversation could not be made (it said why)
    notices_.dismissNotice();
    return;
  }
  set_system_prompt(tr("A summary of the conversation so far:") + QLatin1Char('\n') +
                    summary.trimmed());
  if (!context_notice_.isEmpty()) {
    context_notice_.clear();
    emit contextNoticeChanged();
  }
  notices_.dismissNotice();
  on_session_event(
      tr("summary"),
      tr("“%1” continues here; its summary is this conversation's system prompt.").arg(title));
  if (!unanswered.isEmpty()) send(unanswered);
  // After the send (its first message would name the conversation otherwise).
  conversation_list_->renameConversation(current_, tr("Continued: %1").arg(title).left(60));
}

void ChatController::on_conversation_summary_failed(const QString& message) {
  summarizing_from_ = 0;
  set_generating(false);
  notices_.set_notice(QStringLiteral("context-full"),
                      tr("The conversation was not summarized: %1").arg(message),
                      {NoticeCenter::action("new_chat", tr("New chat")),
                       NoticeCenter::action("summarize", tr("Summarize and continue"))});
}

}  // namespace kvchat::app
