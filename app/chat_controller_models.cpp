// ChatController, the model half: settings per model (checked against the model before
// they are applied), loading a model and what a failed load offers (retry, the previous
// model, the demo model, the settings), and what a full context offers (a new chat, the
// conversation summarized into a new one, another context policy). A reply that wrote
// nothing leaves no empty bubble.
#include <QDateTime>
#include <QFileInfo>
#include <QUrl>

#include "chat_controller.h"
#include "engine/engine_maps.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

namespace {

const QString kModelSettingsKey = QStringLiteral("model_settings");
const QString kGlobalEngineKey = QStringLiteral("engine_global");

QString file_name(const QString& path) { return QFileInfo(path).fileName(); }

// Banners that belong to the open conversation (a load failure belongs to the window).
bool conversation_notice(const QString& kind) {
  return kind == QLatin1String("context-full") || kind == QLatin1String("no-reply");
}

}  // namespace

void ChatController::connect_model_signals() {
  // The banner's actions come back from NoticeCenter; its changes are in the test state.
  connect(&notices_, &NoticeCenter::actionRequested, this, &ChatController::on_notice_action);
  connect(&notices_, &NoticeCenter::noticeChanged, this, [this] { write_test_state(); });
  connect(worker_, &EngineWorker::modelLoaded, this, &ChatController::on_model_loaded);
  connect(worker_, &EngineWorker::modelLoadFailed, this, &ChatController::on_model_load_failed);
  connect(worker_, &EngineWorker::modelInspected, this,
          [this](const QString& path, const ModelFacts& facts) {
            book_.set_facts(path, facts);
            save_setting(kModelSettingsKey, book_.to_variant());
            if (path == settings_model_) emit engineSettingsChanged();
          });
  connect(worker_, &EngineWorker::replyStarted, this, [this] {
    context_full_seen_ = false;
    context_full_detail_.clear();
  });
  connect(worker_, &EngineWorker::replyContextFull, this, [this](int prompt_tokens, int n_ctx) {
    context_full_seen_ = true;
    context_full_detail_ = tr("The conversation comes to %1 tokens; the context holds %2.").arg(count_text(prompt_tokens), count_text(n_ctx));
  });
  connect(worker_, &EngineWorker::contextPolicyApplied, this, &ChatController::on_context_policy_applied);
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

// ---- settings per model ---------------------------------------------------------------

void ChatController::load_settings(const QVariantMap& legacy_engine, const QVariantMap& legacy_sampling) {
  book_ = ModelSettingsBook(setting(kModelSettingsKey).toMap(), legacy_engine, legacy_sampling);
  global_engine_ = {{QStringLiteral("backend"), legacy_engine.value(QStringLiteral("backend"), QStringLiteral("auto"))},
                    {QStringLiteral("threads"), legacy_engine.value(QStringLiteral("threads"), 0)}};
  const QVariantMap global = setting(kGlobalEngineKey).toMap();
  for (auto it = global.begin(); it != global.end(); ++it) global_engine_.insert(it.key(), it.value());
  show_settings_of(QString());
}

void ChatController::show_settings_of(const QString& model_path) {
  settings_model_ = model_path;
  engine_settings_ = book_.engine(model_path);
  for (auto it = global_engine_.begin(); it != global_engine_.end(); ++it) {
    engine_settings_.insert(it.key(), it.value());
  }
  // Replies use the loaded model's sampling, also while another model's settings are shown
  // (its load failed and the loaded one stays).
  sampling_ = book_.sampling(model_path_.isEmpty() ? model_path : model_path_);
  emit engineSettingsChanged();
  emit samplingChanged();
}

ModelFacts ChatController::facts_of(const QString& model_path) const {
  if (!model_path.isEmpty() && model_path == model_path_ && !model_info_.isEmpty()) {
    return ModelFacts::from_info(model_info_);
  }
  return book_.facts(model_path);
}

QVariantList ChatController::checkEngineSettings(const QVariantMap& settings) const {
  QVariantMap engine = engine_settings_;
  for (auto it = settings.begin(); it != settings.end(); ++it) engine.insert(it.key(), it.value());
  return issues_to_list(check_model_settings(engine, facts_of(settings_model_)));
}

QString ChatController::kvTypeProblem(const QString& kv_type) const {
  return kv_type_problem(kv_type, facts_of(settings_model_));
}

void ChatController::set_sampling(const QVariantMap& sampling) {
  book_.set_sampling(settings_model_, sampling);
  save_setting(kModelSettingsKey, book_.to_variant());
  sampling_ = book_.sampling(model_path_.isEmpty() ? settings_model_ : model_path_);
  emit samplingChanged();
}

void ChatController::setEngineSettings(const QVariantMap& settings) {
  set_engine_settings_for(settings_model_, settings);
}

void ChatController::set_engine_settings_for(const QString& model_path, const QVariantMap& settings) {
  QVariantMap engine = book_.engine(model_path);
  for (auto it = settings.begin(); it != settings.end(); ++it) engine.insert(it.key(), it.value());
  // Checked against the model before anything is applied: what it cannot run with is
  // refused with the reason (the drawer already shows it and disables it).
  const QVector<SettingIssue> issues = check_model_settings(engine, facts_of(model_path));
  if (has_blocking(issues)) {
    emit errorOccurred(tr("Not applied: %1").arg(blocking_reasons(issues)));
    emit engineSettingsChanged();  // the drawer shows the values in force again
    return;
  }
  for (const char* key : {"backend", "threads"}) {
    if (settings.contains(QLatin1String(key))) global_engine_.insert(QLatin1String(key), settings.value(QLatin1String(key)));
  }
  save_setting(kGlobalEngineKey, global_engine_);
  book_.set_engine(model_path, engine);
  save_setting(kModelSettingsKey, book_.to_variant());
  if (model_path == settings_model_) show_settings_of(model_path);
  for (const SettingIssue& issue : issues) on_session_event(tr("settings"), issue.reason);
  if (model_path.isEmpty() || model_loading_) return;
  // Fixing the setting of a model that failed to load retries it; the loaded model's
  // session is reloaded with its new settings.
  if (load_failure_.value(QStringLiteral("path")).toString() == model_path || model_path == model_path_) {
    loadModel(model_path);
  }
}

// ---- loading ----------------------------------------------------------------------------

void ChatController::loadModel(const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  if (generating_ || path.isEmpty()) return;
  show_settings_of(path);
  loading_path_ = path;
  load_progress_ = 0;
  model_loading_ = true;
  model_error_.clear();
  if (notices_.notice_kind() == QLatin1String("load-failed")) notices_.dismissNotice();
  emit modelChanged();
  QVariantMap settings = engine_settings_;
  settings.insert(QStringLiteral("chat_template_override"),
                  setting(template_override_key(path)).toString());
  // A model read before is checked now, without touching the loaded one; a new one is
  // checked by the worker once its file is read.
  const QVector<SettingIssue> issues = check_model_settings(settings, book_.facts(path));
  if (has_blocking(issues)) {
    on_model_load_failed(blocking_reasons(issues));
    return;
  }
  auto options = session_options(settings);
  if (!options) {
    on_model_load_failed(QString::fromStdString(options.message()));
    return;
  }
  const ModelLoadRequest request{path, *options,
                                 settings.value(QStringLiteral("chat_template_override")).toString()};
  QMetaObject::invokeMethod(worker_, [w = worker_, request] { w->loadModel(request); },
                            Qt::QueuedConnection);
}

void ChatController::on_model_loaded(const LoadedModel& model) {
  const QVariantMap info = model.to_map();
  model_info_ = info;
  model_file_warned_ = false;
  model_path_ = info.value(QStringLiteral("path")).toString();
  model_loading_ = false;
  model_error_.clear();
  load_failure_.clear();
  if (notices_.notice_kind() == QLatin1String("load-failed")) notices_.dismissNotice();
  memory_state_->forget_session_figures();
  book_.set_facts(model_path_, ModelFacts::from_info(info));
  save_setting(kModelSettingsKey, book_.to_variant());
  show_settings_of(model_path_);  // its settings and facts in the drawer, its sampling for replies
  // The recent list first: modelChanged is also recentModels' notification.
  if (store_) {
    QStringList recent = recent_models();
    recent.removeAll(model_path_);
    recent.prepend(model_path_);
    save_setting(QStringLiteral("recent_models"), recent.mid(0, 8));
    QVariantMap used;  // only the listed ones are kept
    const QVariantMap before = recent_models_used();
    for (const QString& p : recent.mid(0, 8)) used.insert(p, before.value(p));
    used.insert(model_path_, QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    save_setting(QStringLiteral("recent_models_used"), used);
  }
  emit modelChanged();
  memory_state_->measure_kv_quality(model.identity());
  // Which chat format the conversation goes through, and why (Settings can change it).
  on_session_event(tr("chat"), model.format.description);
  check_conversation_model();  // written with another model: said, with the ways out
  // The open conversation's KV state: from its snapshot when one fits this model.
  if (current_) {
    QMetaObject::invokeMethod(
        worker_, [w = worker_, path = memory_state_->snapshot_path(current_)] { w->restoreSnapshot(path); },
        Qt::QueuedConnection);
  }
  if (retry_after_load_) {
    retry_after_load_ = false;
    retry_unanswered();
  }
  write_test_state();
}

void ChatController::on_model_load_failed(const QString& message) {
  model_loading_ = false;
  model_error_ = message;
  retry_after_load_ = false;
  const QString failed = loading_path_;
  load_failure_ = {{QStringLiteral("path"), failed}, {QStringLiteral("reason"), message}};
  // What can be done from here, in the banner (not only the status bar).
  QVariantList actions{NoticeCenter::action("retry", tr("Retry"))};
  QString text = tr("%1 could not be loaded: %2").arg(file_name(failed), message);
  if (!model_path_.isEmpty() && model_path_ != failed) {
    text += QLatin1Char(' ') + tr("%1 is still loaded.").arg(file_name(model_path_));
    actions.push_back(NoticeCenter::action("previous", tr("Keep %1").arg(file_name(model_path_))));
  } else {
    for (const QString& recent : recent_models()) {
      if (recent != failed && recent != demo_model_path_ && QFileInfo::exists(recent)) {
        QVariantMap previous = NoticeCenter::action("previous", tr("Open %1").arg(file_name(recent)));
        previous.insert(QStringLiteral("path"), recent);
        actions.push_back(previous);
        break;
      }
    }
  }
  if (!demo_model_path_.isEmpty() && failed != demo_model_path_ && model_path_ != demo_model_path_) {
    actions.push_back(NoticeCenter::action("demo", tr("Demo model")));
  }
  actions.push_back(NoticeCenter::action("settings", tr("Settings for %1…").arg(file_name(failed))));
  notices_.set_notice(QStringLiteral("load-failed"), text, actions);
  emit modelChanged();  // the loaded model (if any) stays
  write_test_state();
}

// ---- the banner and its actions -------------------------------------------------------

void ChatController::on_notice_action(const QString& id, const QVariantMap& chosen) {
  const QString failed = load_failure_.value(QStringLiteral("path")).toString();
  if (id == QLatin1String("retry")) {
    loadModel(failed);
  } else if (id == QLatin1String("previous")) {
    const QString path = chosen.value(QStringLiteral("path")).toString();
    if (!path.isEmpty()) {
      loadModel(path);
    } else {  // the previous model is still loaded: back to it and its settings
      load_failure_.clear();
      model_error_.clear();
      notices_.dismissNotice();
      show_settings_of(model_path_);
      emit modelChanged();
    }
  } else if (id == QLatin1String("conversation_model")) {
    loadModel(chosen.value(QStringLiteral("path")).toString());
  } else if (id == QLatin1String("pick_model")) {
    emit openModelRequested();
  } else if (id == QLatin1String("models_page")) {
    emit modelsPageRequested();
  } else if (id == QLatin1String("demo")) {
    loadModel(demo_model_path_);
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
    QVariantMap engine = book_.engine(model_path_);
    engine.insert(QStringLiteral("context_policy"), QStringLiteral("drop-oldest"));
    retry_after_load_ = true;
    set_engine_settings_for(model_path_, engine);
    if (!model_loading_) retry_after_load_ = false;
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
  if (reply.role != QLatin1String("assistant") || !reply.content.isEmpty()) return false;
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
    offer_context_actions(tr("The context is full: there is no room for a reply. Your message is kept.") +
                          (context_full_detail_.isEmpty() ? QString() : QLatin1Char(' ') + context_full_detail_));
  } else {
    notices_.set_notice(QStringLiteral("no-reply"), tr("No reply was written: %1 Your message is kept.").arg(why),
               {NoticeCenter::action("retry_reply", tr("Try again"))});
  }
  write_test_state(true);
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
  const QVariantMap memory = memory_state_->memory();
  const int used = memory.value(QStringLiteral("kv_tokens")).toInt();
  const int n_ctx = memory.value(QStringLiteral("n_ctx")).toInt();
  offer_context_actions(
      tr("The context is full (%1 of %2 tokens): this reply cannot be continued, as it is all the "
         "context holds and there is no earlier turn to drop. Start a new chat, summarize and continue, "
         "or give this model a longer context in Settings.")
          .arg(count_text(used), count_text(n_ctx)));
  write_test_state(true);
}

void ChatController::offer_context_actions(const QString& text) {
  QVariantList actions{NoticeCenter::action("new_chat", tr("New chat")),
                       NoticeCenter::action("summarize", tr("Summarize and continue"))};
  if (engine_settings_.value(QStringLiteral("context_policy")).toString() == QLatin1String("stop")) {
    actions.push_back(NoticeCenter::action("change_policy", tr("Drop oldest turns and retry")));
  }
  actions.push_back(NoticeCenter::action("settings", tr("Settings…")));
  notices_.set_notice(QStringLiteral("context-full"), text, actions);
}

void ChatController::retry_unanswered() {
  if (generating_ || model_info_.isEmpty() || messages_.rowCount() == 0) return;
  if (messages_.items().back().role != QLatin1String("user")) return;
  start_reply();
}

void ChatController::on_context_policy_applied(const QString& kind, int before, int after, int reevaluated) {
  const int freed = before - after;
  // Counts grouped as everywhere in the window; "0 evaluated again" is not said.
  const QString n = count_text(freed), b = count_text(before), a = count_text(after);
  if (kind != QLatin1String("turns-dropped")) {
    context_notice_ = tr("Oldest tokens shifted out to make room: %1 tokens (%2 → %3 in context).").arg(n, b, a);
  } else if (reevaluated > 0) {
    context_notice_ = tr("Oldest turns dropped to make room: %1 tokens (%2 → %3 in context, %4 evaluated again).")
                          .arg(n, b, a, count_text(reevaluated));
  } else {
    context_notice_ = tr("Oldest turns dropped to make room: %1 tokens (%2 → %3 in context).").arg(n, b, a);
  }
  emit contextNoticeChanged();
}

// ---- summarize and continue ---------------------------------------------------------------

void ChatController::summarizeAndContinue() {
  if (generating_ || model_info_.isEmpty() || !current_ || messages_.rowCount() == 0) return;
  const ChatTurns history = chat_turns(messages_.items());
  summarizing_from_ = current_;
  notices_.set_notice(QStringLiteral("summarizing"),
             tr("Summarizing this conversation to continue in a new one… (Esc stops)"), {});
  set_generating(true);
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, history, prompt = system_prompt()] { w->summarizeConversation(history, prompt); },
      Qt::QueuedConnection);
}

void ChatController::on_conversation_summarized(const QString& summary, const ConversationSummaryStats&) {
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
  set_system_prompt(tr("A summary of the conversation so far:") + QLatin1Char('\n') + summary.trimmed());
  if (!context_notice_.isEmpty()) {
    context_notice_.clear();
    emit contextNoticeChanged();
  }
  notices_.dismissNotice();
  on_session_event(tr("summary"), tr("“%1” continues here; its summary is this conversation's system prompt.").arg(title));
  if (!unanswered.isEmpty()) send(unanswered);
  // After the send (its first message would name the conversation otherwise).
  conversation_list_->renameConversation(current_, tr("Continued: %1").arg(title).left(60));
  write_test_state();
}

void ChatController::on_conversation_summary_failed(const QString& message) {
  summarizing_from_ = 0;
  set_generating(false);
  notices_.set_notice(QStringLiteral("context-full"), tr("The conversation was not summarized: %1").arg(message),
             {NoticeCenter::action("new_chat", tr("New chat")), NoticeCenter::action("summarize", tr("Summarize and continue"))});
}

}  // namespace kvchat::app

namespace kvchat::app {

QVariantMap ChatController::recent_models_used() const {
  return setting(QStringLiteral("recent_models_used")).toMap();
}

void ChatController::forget_recent_model(const QString& path) {
  QStringList recent = recent_models();
  QVariantMap used = recent_models_used();
  const bool listed = recent.removeAll(path) > 0;
  if (used.remove(path) == 0 && !listed) return;
  save_setting(QStringLiteral("recent_models"), recent);
  save_setting(QStringLiteral("recent_models_used"), used);
  emit modelChanged();
  write_test_state();
}

}  // namespace kvchat::app
