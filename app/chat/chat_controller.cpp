#include "chat/chat_controller.h"

#include <QCoreApplication>
#include <algorithm>
#include <utility>
#include <QDir>

#include "conversations/conversation_list_controller.h"
#include "documents/document_controller.h"
#include "engine/engine_worker.h"
#include "memory/ram_tier.h"
#include "util/byte_size.h"
#include "kvchat/model.h"

namespace kvchat::app {

namespace {
constexpr int kUiRefreshMs = 33;  // ~30 updates per second are plenty for the eye
}

ChatController::ChatController(const QString& data_dir, QObject* parent)
    : QObject(parent), data_dir_(data_dir) {
  open_store();
  if (store_) {
    loader_ = std::make_unique<MessageLoader>(store_->path());
    connect(loader_.get(), &MessageLoader::loaded, this, &ChatController::on_messages_loaded);
  }
  worker_ = new EngineWorker();
  worker_->moveToThread(&engine_thread_);
  memory_state_ = std::make_unique<MemoryState>(data_dir_, store_.get(), *worker_, *this);
  connect(&engine_thread_, &QThread::finished, worker_, &QObject::deleteLater);
  // Settings per model; the global ones of older versions are every model's defaults.
  models_ = std::make_unique<ModelController>(
      *worker_, *this, store_ ? store_->setting(QStringLiteral("engine")).toMap() : QVariantMap(),
      store_ ? store_->setting(QStringLiteral("sampling")).toMap() : QVariantMap());
  context_meter_ = std::make_unique<ContextMeter>(*memory_state_, *worker_, [this] {
    return models_->info().value(QStringLiteral("context_policy")).toString();
  });
  // Queued: the slots run on the GUI thread, the only one that touches the models.
  connect_model_signals();   // loading, per-model settings, a full context
  connect_status_signals();  // the status line: the chat format, the context's figures
  connect_reply_signals();   // the reply's text, its end, the memory panel's figures
  make_conversation_parts();
  make_documents();
  make_tools();
  make_remote();
  engine_thread_.start();
  // Said where the window shows messages (NoticeCenter's banner listens).
  if (!store_error_.isEmpty()) emit errorOccurred(store_error_);
  if (!startup_notice_.isEmpty()) emit errorOccurred(startup_notice_);
  conversation_list_->refresh();
  // Reopen the most recent conversation.
  if (const qint64 first = conversation_list_->first_listed()) selectConversation(first);
}

void ChatController::open_store() {
  // A missing data directory is created; one that cannot be (or cannot be written) is
  // said at start, and nothing is saved. A damaged database is moved aside, never deleted.
  store_error_ = ConversationStore::check_data_dir(data_dir_);
  const QString db_path = ConversationStore::default_path(data_dir_);
  if (store_error_.isEmpty()) {
    QString moved_to;
    store_ = ConversationStore::open_or_recover(db_path, &store_error_, &moved_to);
    if (!moved_to.isEmpty()) {
      startup_notice_ = tr("The database %1 was damaged and could not be read. It was moved "
                           "aside, nothing deleted, to %2; a fresh database was created.")
                            .arg(db_path, moved_to);
    }
  }
  if (store_ && store_->mark_streaming_interrupted() < 0) {
    startup_notice_ += (startup_notice_.isEmpty() ? QString() : QStringLiteral(" ")) +
                       tr("Replies cut short by the last exit could not be marked interrupted.");
  }
  // A branch tree with a cycle (a corrupt database) was mended at open: say what was done.
  if (store_ && !store_->tree_repair_report().isEmpty()) {
    startup_notice_ += (startup_notice_.isEmpty() ? QString() : QStringLiteral(" ")) +
                       store_->tree_repair_report();
  }
  if (!store_error_.isEmpty()) qWarning("kvchat: %s", qPrintable(store_error_));
  if (!startup_notice_.isEmpty()) qWarning("kvchat: %s", qPrintable(startup_notice_));
}

void ChatController::connect_reply_signals() {
  connect(worker_, &EngineWorker::replyChunk, this, &ChatController::on_reply_chunk);
  connect(worker_, &EngineWorker::replyOpensThinking, this,
          &ChatController::on_reply_opens_thinking);
  // A regenerated version that wrote nothing goes (the one before it is shown again).
  connect(worker_, &EngineWorker::replyFinished, this, [this](const ReplyStats& stats) {
    if (!discard_empty_version(tr("The model ended its reply without writing anything")))
      on_reply_finished(finished_reply_stats(stats.to_map()));
  });
  connect(worker_, &EngineWorker::replyFailed, this, [this](const QString& message) {
    if (!discard_empty_version(message)) on_reply_failed(message);
  });
  connect(worker_, &EngineWorker::sessionEvent, this, &ChatController::on_session_event);
  // The memory panel's figures (memory/memory_state.h).
  MemoryState* memory = memory_state_.get();
  connect(worker_, &EngineWorker::memoryReport, memory, &MemoryState::on_memory_report);
  connect(worker_, &EngineWorker::snapshotSaved, memory, &MemoryState::on_snapshot_saved);
  connect(worker_, &EngineWorker::snapshotRestored, memory, &MemoryState::on_snapshot_restored);
  connect(worker_, &EngineWorker::kvResumedFromRam, memory, &MemoryState::on_kv_resumed_from_ram);
  connect(worker_, &EngineWorker::snapshotDiskUsage, memory, &MemoryState::on_snapshot_disk_usage);
  connect(memory, &MemoryState::errorOccurred, this, &ChatController::errorOccurred);
  connect(memory, &MemoryState::kvQualityFailed, this, [this](const QString& message) {
    on_session_event(QStringLiteral("kv-quality"), message);
  });
  ui_refresh_.setSingleShot(true);
  ui_refresh_.setInterval(kUiRefreshMs);
  connect(&ui_refresh_, &QTimer::timeout, this, &ChatController::flush_to_ui);
  connect(worker_, &EngineWorker::engineError, this, &ChatController::errorOccurred);
}

void ChatController::make_conversation_parts() {
  // The sidebar's list; the chat tells it when titles or order change.
  conversation_list_ = std::make_unique<ConversationListController>(*this, store_.get(), notices_);
  ConversationListController* list = conversation_list_.get();
  connect(this, &ChatController::conversationsChanged, list, &ConversationListController::refresh);
  connect(list, &ConversationListController::conversationDeleted, this,
          &ChatController::on_conversation_deleted);
  connect(list, &ConversationListController::statusEvent, this, &ChatController::on_session_event);
  // The system prompt library follows the open conversation (its link to a saved prompt).
  system_prompts_ = std::make_unique<SystemPromptController>(*this, *this, store_.get(), notices_);
  connect(this, &ChatController::currentConversationChanged, system_prompts_.get(),
          &SystemPromptController::on_conversation_changed);
  // The banners show the open conversation's notices (before the documents half hears of it).
  connect(this, &ChatController::currentConversationChanged, &notices_,
          [this] { notices_.set_conversation(current_); });
  // The chat's own errors (a refused send, a store failure) go to the message banner.
  connect(this, &ChatController::errorOccurred, &notices_, &NoticeCenter::show_error);
}

void ChatController::make_documents() {
  documents_ = std::make_unique<DocumentController>(*this, *worker_, notices_, store_.get(),
                                                    ConversationStore::default_path(data_dir_));
  // The documents half follows the chat through these (it does not include this class).
  DocumentController* docs = documents_.get();
  connect(models_.get(), &ModelController::modelChanged, docs,
          &DocumentController::on_model_changed);
  connect(this, &ChatController::currentConversationChanged, docs,
          &DocumentController::on_conversation_changed);
  connect(this, &ChatController::conversationOpened, docs,
          &DocumentController::on_conversation_changed);
  connect(memory_state_.get(), &MemoryState::memoryChanged, docs,
          &DocumentController::on_chat_memory_changed);
  connect(this, &ChatController::replyFinished, docs, &DocumentController::on_reply_finished);
  connect(this, &ChatController::currentConversationChanged, this,
          &ChatController::lastReplyStatsChanged);
}

ChatController::~ChatController() {
  conversation_list_->commit_pending_delete();  // the undo ends with the window
  // A running summary job is stopped (its partials kept) by documents_, destroyed first.
  if (worker_) worker_->request_stop();
  engine_thread_.quit();
  engine_thread_.wait();
  if (generating_) {
    persist_reply(MessageState::Interrupted, {});
  } else if (!all_saved()) {
    QString error;
    if (!save_unsaved(&error)) qWarning("kvchat: not saved at exit: %s", qPrintable(error));
  }
}

// ---- saving: nothing the store refused is dropped -----------------------------------------

bool ChatController::save_unsaved(QString* error) {
  if (!store_) {
    if (error) *error = store_error_;
    return false;
  }
  for (auto it = pending_settings_.begin(); it != pending_settings_.end();) {
    if (!store_->set_setting(it.key(), it.value(), error)) return false;
    it = pending_settings_.erase(it);
  }
  const int rows = messages_.rowCount();
  for (int row = 0; row < rows; ++row) {
    if (messages_.saved(row)) continue;
    if (!current_) {
      // The conversation itself could not be created: now, named by its first message.
      QString title;
      for (const StoredMessage& m : messages_.items()) {
        if (m.role == QLatin1String("user")) {
          title = conversation_title_from_message(m.content);
          break;
        }
      }
      if (title.isEmpty()) title = tr("New chat");
      const qint64 id = store_->create_conversation(title, {}, error);
      if (!id) return false;
      current_ = id;
      emit conversationsChanged();
      emit currentConversationChanged();
    }
    const StoredMessage m = messages_.items()[row];
    qint64 id = m.id;
    if (!id) {
      id = store_->append_message(current_, m.role, m.content, m.state, error);
      if (!id) return false;
      messages_.set_saved(row, id);
      if (m.stats.isEmpty() && m.tool_steps.isEmpty()) continue;
      messages_.set_unsaved(row);  // its stats and tool calls still to write
    }
    if (!store_->update_message(id, m.content, m.state, m.stats, error, &m.tool_steps))
      return false;
    messages_.set_saved(row, id);
  }
  return true;
}

void ChatController::note_save(bool ok, const QString& error) {
  if (ok && all_saved()) {
    if (save_error_.isEmpty()) return;
    save_error_.clear();
    emit saveErrorChanged();
    on_session_event(tr("saved"), tr("everything in the window is stored again"));
    return;
  }
  if (ok) return;
  const bool first = save_error_.isEmpty();
  save_error_ = error;
  emit saveErrorChanged();
  if (first) {
    emit errorOccurred(tr("Saving failed: %1. Nothing is lost: what is not saved stays in the "
                          "window, marked “not saved”, and is saved with the next change.")
                           .arg(error));
  }
}

void ChatController::save_setting(const QString& key, const QVariant& value) {
  if (!store_) return;
  pending_settings_.insert(key, value);
  QString error;
  note_save(save_unsaved(&error), error);
}

QVariant ChatController::setting(const QString& key, const QVariant& fallback) const {
  if (pending_settings_.contains(key)) {
    const QVariant v = pending_settings_.value(key);  // invalid: a removal not yet stored
    return v.isValid() ? v : fallback;
  }
  return store_ ? store_->setting(key, fallback) : fallback;
}

bool ChatController::can_leave_conversation() {
  if (messages_.unsaved_count() == 0) return true;
  QString error;
  const bool ok = save_unsaved(&error);
  note_save(ok, error);
  if (ok) return true;
  emit errorOccurred(tr("%1 message(s) of this conversation are not saved yet (%2). Free disk "
                        "space and try again: leaving the conversation now would lose them.")
                         .arg(messages_.unsaved_count())
                         .arg(error));
  return false;
}

QString ChatController::system_prompt() const {
  if (!store_ || !current_) return {};
  auto c = store_->conversation(current_);
  return c ? c->system_prompt : QString();
}

void ChatController::set_system_prompt(const QString& prompt) {
  if (!store_) return;
  if (!current_) newConversation();
  if (!current_) return;  // it said why
  QString error;
  if (!store_->set_system_prompt(current_, prompt, &error)) {
    emit errorOccurred(tr("The system prompt was not saved: %1").arg(error));
  }
  emit currentConversationChanged();
}

void ChatController::setUiSetting(const QString& key, const QVariant& value) {
  save_setting(QStringLiteral("ui/") + key, value);
}

QVariant ChatController::uiSetting(const QString& key, const QVariant& fallback) const {
  return setting(QStringLiteral("ui/") + key, fallback);
}

void ChatController::newConversation() {
  if (!store_ || generating_) return;
  // An empty conversation is reused rather than listed twice (its prompt: none, or the
  // one a new conversation starts with, which it gets when it has none).
  const QString fresh_prompt = system_prompts_->new_conversation_prompt();
  if (current_ && messages_.rowCount() == 0 &&
      (system_prompt().isEmpty() || system_prompt() == fresh_prompt)) {
    conversation_list_->clear_search();
    system_prompts_->start_conversation(current_);
    emit currentConversationChanged();  // the window focuses the message box
    return;
  }
  if (!can_leave_conversation()) return;
  conversation_list_->clear_search();
  if (const qint64 empty = conversation_list_->empty_conversation(fresh_prompt)) {
    system_prompts_->start_conversation(empty);
    selectConversation(empty);
    return;
  }
  QString error;
  const qint64 id = store_->create_conversation(tr("New chat"), {}, &error);
  if (!id) {
    emit errorOccurred(error);
    return;
  }
  system_prompts_->start_conversation(id);
  memory_state_->switch_conversation(current_, id);
  // The one left waits in RAM; the new one starts empty.
  QMetaObject::invokeMethod(
      worker_,
      [w = worker_, leave = current_ ? ram_tier_prefix(current_) : QString(),
       enter = ram_tier_prefix(id)] { w->switchConversation(leave, enter, {}); },
      Qt::QueuedConnection);
  current_ = id;
  show_messages({});
  emit conversationsChanged();
  emit currentConversationChanged();
}

void ChatController::selectConversation(qint64 id) {
  if (!store_ || generating_ || id == current_ || id == conversation_list_->pending_delete_id() ||
      !can_leave_conversation()) {
    return;
  }
  memory_state_->switch_conversation(current_, id);
  if (models_->loaded()) {
    // The one left waits in RAM; this one comes back from RAM, else from its snapshot.
    QMetaObject::invokeMethod(
        worker_,
        [w = worker_, leave = current_ ? ram_tier_prefix(current_) : QString(),
         enter = ram_tier_prefix(id),
         path = memory_state_->snapshot_path(id)] { w->switchConversation(leave, enter, path); },
        Qt::QueuedConnection);
  }
  current_ = id;
  open_messages(id);
  emit currentConversationChanged();
  follow_conversation_model();
}

void ChatController::show_messages(MessageListModel::PreparedRows rows) {
  const bool was_opening = opening();
  opening_ticket_ = 0;                               // whatever was being read is no longer wanted
  QVector<StoredMessage> shown = messages_.items();  // a reference, freed on the loader's thread
  messages_.reset_prepared(std::move(rows));
  if (loader_) loader_->dispose(std::move(shown));
  if (was_opening) emit openingChanged();
}

void ChatController::open_messages(qint64 id) {
  if (!loader_ || store_->shown_message_chars(id) <= kOpenInPlaceChars) {
    show_messages({store_->messages(id), {}});
    return;
  }
  show_messages({});
  opening_ticket_ = ++next_ticket_;
  loader_->load(opening_ticket_, id);
  emit openingChanged();
}

void ChatController::on_messages_loaded(quint64 ticket, qint64 id,
                                        const QSharedPointer<MessageListModel::PreparedRows>& rows,
                                        const QString& error) {
  if (ticket != opening_ticket_ || id != current_) {
    if (loader_) loader_->dispose(std::move(rows->items));  // another conversation is open by now
    return;
  }
  if (!error.isEmpty()) {
    // The loader's own connection failed: read here, slow but whole.
    qWarning("kvchat: %s", qPrintable(error));
    show_messages({store_->messages(id), {}});
  } else {
    show_messages(std::move(*rows));
  }
  emit conversationOpened();
  emit lastReplyStatsChanged();
}

bool ChatController::refuse_while_opening() {
  if (!opening()) return false;
  emit errorOccurred(
      tr("This conversation's messages are still being read (they are long): "
         "nothing was sent or changed; try again in a moment."));
  return true;
}

bool ChatController::send(const QString& text) {
  if (text.trimmed().isEmpty() || generating_) return false;
  if (models_->loading()) {
    emit errorOccurred(tr(
        "The model is still loading: your message is kept in the box; send it when it is ready."));
    return false;
  }
  if (!models_->loaded()) {
    emit errorOccurred(
        tr("No model is loaded: your message is kept in the box. Open a GGUF model "
           "(“Open model…”, Ctrl+O, or drop one on the window), or pick the demo model under "
           "“Recent”, then send it."));
    return false;
  }
  if (notices_.notice_kind() == QLatin1String("context-full") && !messages_.items().isEmpty() &&
      messages_.items().back().role == QLatin1String("user")) {
    // Another message would find no room either: the way out first, the text kept.
    emit errorOccurred(
        tr("The context is full and your last message has no reply: choose an action in "
           "the banner first (or close it to send anyway). This message is kept in the box."));
    return false;
  }
  return send_with_stats(text, {});
}

bool ChatController::send_with_stats(const QString& text, const QVariantMap& stats) {
  if (!store_ || generating_ || text.trimmed().isEmpty() || !models_->loaded()) return false;
  if (refuse_while_opening()) return false;
  // A new conversation the store refuses (disk full) is created with the next save.
  if (!current_ && messages_.rowCount() == 0) newConversation();
  // A model file cut short or replaced since it was loaded: said once (the copy read into
  // memory keeps running).
  if (const QString changed = models_->file_change_once(); !changed.isEmpty())
    emit errorOccurred(changed);
  StoredMessage user;
  user.conversation_id = current_;
  user.role = QStringLiteral("user");
  user.content = text;
  user.stats = stats;
  // Stored now, or kept in the window unsaved and written by the next save (in order).
  messages_.append(user, false);
  QString error;
  bool ok = save_unsaved(&error);
  if (ok && messages_.rowCount() == 1) {
    // The first words of the first message name the conversation (unless the user did).
    ok = store_->retitle_from_first_message(current_, text, &error);
  }
  note_save(ok, error);
  if (ok) remember_conversation_model(current_);
  start_reply();
  return true;
}

bool ChatController::append_exchange(qint64 conversation_id, const QString& user_text,
                                     const QVariantMap& user_stats, const QString& reply,
                                     const QVariantMap& reply_stats, QString* error) {
  if (!store_) {
    if (error) *error = store_error_;
    return false;
  }
  // The first exchange of a conversation names it, as the first message sent does.
  if (!store_->has_messages(conversation_id) &&
      !store_->retitle_from_first_message(conversation_id, user_text, error)) {
    return false;
  }
  StoredMessage user, answer;
  user.conversation_id = answer.conversation_id = conversation_id;
  user.role = QStringLiteral("user");
  user.content = user_text;
  user.stats = user_stats;
  answer.role = QStringLiteral("assistant");
  answer.content = reply;
  answer.stats = reply_stats;
  for (StoredMessage* m : {&user, &answer}) {
    m->id =
        store_->append_message(conversation_id, m->role, m->content, MessageState::Complete, error);
    if (!m->id ||
        !store_->update_message(m->id, m->content, MessageState::Complete, m->stats, error))
      return false;
  }
  if (conversation_id == current_) {
    messages_.append(user);
    messages_.append(answer);
  }
  remember_conversation_model(conversation_id);
  emit conversationsChanged();
  return true;
}

bool ChatController::model_loading() const { return models_->loading(); }

void ChatController::set_generating(bool on) {
  if (generating_ == on) return;
  generating_ = on;
  models_->set_reply_running(on);
  emit generatingChanged();
}

QString ChatController::formatBytes(double bytes) const { return util::format_bytes(bytes); }

}  // namespace kvchat::app
