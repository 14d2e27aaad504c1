#include "chat_controller.h"

#include <QCoreApplication>
#include <algorithm>
#include <utility>
#include <QDir>

#include "documents/document_controller.h"
#include "engine/engine_worker.h"
#include "hub/byte_size.h"
#include "kvchat/model.h"

namespace kvchat::app {

namespace {
constexpr int kUiRefreshMs = 33;      // ~30 updates per second are plenty for the eye
}

ChatController::ChatController(const QString& data_dir, QObject* parent)
    : QObject(parent), data_dir_(data_dir) {
  // A missing data directory is created; one that cannot be (or cannot be written) is
  // said at start, and nothing is saved. A damaged database is moved aside, never deleted.
  store_error_ = ConversationStore::check_data_dir(data_dir);
  const QString db_path = ConversationStore::default_path(data_dir);
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
  if (!store_error_.isEmpty()) qWarning("kvchat: %s", qPrintable(store_error_));
  if (!startup_notice_.isEmpty()) qWarning("kvchat: %s", qPrintable(startup_notice_));
  if (store_) {
    snapshot_budget_bytes_ =
        store_->setting(QStringLiteral("snapshot_budget_bytes"), kDefaultSnapshotBudgetBytes).toLongLong();
  }

  worker_ = new EngineWorker();
  worker_->moveToThread(&engine_thread_);
  connect(&engine_thread_, &QThread::finished, worker_, &QObject::deleteLater);
  // Settings per model; the global ones of older versions are every model's defaults.
  models_ = std::make_unique<ModelController>(
      *worker_, *this, store_ ? store_->setting(QStringLiteral("engine")).toMap() : QVariantMap(),
      store_ ? store_->setting(QStringLiteral("sampling")).toMap() : QVariantMap());
  // Queued: the slots run on the GUI thread, the only one that touches the models.
  connect_model_signals();  // loading, per-model settings, a full context
  connect_status_signals();  // the status line: the chat format, the context's figures
  connect(&messages_, &QAbstractItemModel::modelReset, this, [this] { shown_texts_.clear(); });
  connect(worker_, &EngineWorker::replyChunk, this, &ChatController::on_reply_chunk);
  // A regenerated version that wrote nothing goes (the one before it is shown again).
  connect(worker_, &EngineWorker::replyFinished, this, [this](const ReplyStats& stats) {
    if (!discard_empty_version(tr("The model ended its reply without writing anything")))
      on_reply_finished(finished_reply_stats(stats.to_map()));
  });
  connect(worker_, &EngineWorker::replyFailed, this, [this](const QString& message) {
    if (!discard_empty_version(message)) on_reply_failed(message);
  });
  connect(worker_, &EngineWorker::memoryReport, this, &ChatController::on_memory_report);
  connect(worker_, &EngineWorker::sessionEvent, this, &ChatController::on_session_event);
  connect(worker_, &EngineWorker::snapshotSaved, this, &ChatController::on_snapshot_saved);
  connect(worker_, &EngineWorker::snapshotRestored, this, &ChatController::on_snapshot_restored);
  connect(worker_, &EngineWorker::snapshotDiskUsage, this, &ChatController::on_snapshot_disk_usage);
  delete_timer_.setSingleShot(true);
  delete_timer_.setInterval(kUndoDeleteMs);
  connect(&delete_timer_, &QTimer::timeout, this, &ChatController::commit_pending_delete);
  ui_refresh_.setSingleShot(true);
  ui_refresh_.setInterval(kUiRefreshMs);
  connect(&ui_refresh_, &QTimer::timeout, this, &ChatController::flush_to_ui);
  connect(worker_, &EngineWorker::engineError, this, &ChatController::errorOccurred);
  connect(&kv_probe_, &KvQualityProbe::measured, this,
          [this](const QString& identity, const QVariantMap& figures) {
            QString error;
            if (store_ &&
                !store_->set_setting(QStringLiteral("kv_quality/") + identity, figures, &error)) {
              emit errorOccurred(error);
            }
            if (identity != models_->identity()) return;
            kv_quality_ = figures;
            emit kvQualityChanged();
            write_test_state();
          });
  connect(&kv_probe_, &KvQualityProbe::failed, this,
          [this](const QString&, const QString& message) {
            on_session_event(QStringLiteral("kv-quality"), message);
          });
  documents_ = std::make_unique<DocumentController>(
      *this, *worker_, store_.get(), ConversationStore::default_path(data_dir));
  // The documents half follows the chat through these (it does not include this class).
  DocumentController* docs = documents_.get();
  connect(models_.get(), &ModelController::modelChanged, docs, &DocumentController::on_model_changed);
  connect(this, &ChatController::currentConversationChanged, docs,
          &DocumentController::on_conversation_changed);
  connect(this, &ChatController::memoryChanged, docs, &DocumentController::on_chat_memory_changed);
  connect(this, &ChatController::replyFinished, docs, &DocumentController::on_reply_finished);
  // The chat's own errors (a refused send, a store failure) use the same message banner.
  connect(this, &ChatController::errorOccurred, docs, &DocumentController::show_error);
  connect(docs, &DocumentController::stateChanged, this, [this] { write_test_state(); });
  connect(this, &ChatController::currentConversationChanged, this,
          &ChatController::lastReplyStatsChanged);
  engine_thread_.start();
  // Said where the window shows messages (the DocumentController's banner listens).
  if (!store_error_.isEmpty()) emit errorOccurred(store_error_);
  if (!startup_notice_.isEmpty()) emit errorOccurred(startup_notice_);
  refresh_conversations();
  // Reopen the most recent conversation.
  if (conversations_.rowCount() > 0) {
    selectConversation(conversations_.data(conversations_.index(0), ConversationListModel::IdRole).toLongLong());
  }
  write_test_state(false);
}

ChatController::~ChatController() {
  commit_pending_delete();  // the undo ends with the window
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
      QString title = tr("New chat");
      for (const StoredMessage& m : messages_.items()) {
        if (m.role == QLatin1String("user")) {
          title = m.content.simplified().left(40);
          break;
        }
      }
      const qint64 id = store_->create_conversation(title, {}, error);
      if (!id) return false;
      current_ = id;
      refresh_conversations();
      emit currentConversationChanged();
    }
    const StoredMessage m = messages_.items()[row];
    qint64 id = m.id;
    if (!id) {
      id = store_->append_message(current_, m.role, m.content, m.state, error);
      if (!id) return false;
      messages_.set_saved(row, id);
      if (m.stats.isEmpty()) continue;
      messages_.set_unsaved(row);  // its stats still to write
    }
    if (!store_->update_message(id, m.content, m.state, m.stats, error)) return false;
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

QString ChatController::snapshot_path(qint64 conversation) const {
  return QDir(data_dir_).filePath(QStringLiteral("snapshots/conversation-%1.kvsnap").arg(conversation));
}

void ChatController::on_snapshot_saved(const QString& path, qint64 bytes) {
  if (path != snapshot_path(current_)) return;  // of a conversation left since
  snapshot_bytes_ = bytes;
  snapshot_status_ = tr("Saved after the last reply (%1 on disk): reopening this conversation "
                        "restores it without computing it again.").arg(formatBytes(bytes));
  snapshot_detail_.clear();
  emit snapshotChanged();
  write_test_state();
}

void ChatController::on_snapshot_disk_usage(const SnapshotDiskUsage& usage) {
  snapshot_disk_ = usage.to_map();
  emit snapshotChanged();
}

QVariantMap ChatController::snapshot_disk() const {
  QVariantMap m = snapshot_disk_;
  m.insert(QStringLiteral("budget_bytes"), snapshot_budget_bytes_);
  return m;
}

void ChatController::setSnapshotBudgetBytes(qint64 bytes) {
  bytes = std::max<qint64>(0, bytes);
  if (bytes == snapshot_budget_bytes_) return;
  snapshot_budget_bytes_ = bytes;
  QString error;
  if (store_) store_->set_setting(QStringLiteral("snapshot_budget_bytes"), bytes, &error);
  if (!error.isEmpty()) emit errorOccurred(error);
  emit snapshotChanged();
}

void ChatController::on_snapshot_restored(bool restored, qint64 bytes, const QString& reason) {
  snapshot_bytes_ = bytes;
  snapshot_detail_ = reason;
  if (restored) {
    snapshot_status_ = tr("This conversation's memory was restored from the snapshot on disk "
                          "(%1): nothing had to be computed again.").arg(formatBytes(bytes));
  } else if (reason == QCoreApplication::translate("EngineWorker", "no snapshot saved")) {
    snapshot_status_ = tr("No snapshot on disk yet: one is saved after the next reply.");
    snapshot_detail_.clear();
  } else {
    snapshot_status_ = tr("The snapshot on disk could not be used (made with another model or "
                          "settings, or damaged): the conversation is computed again with the "
                          "next message.");
  }
  emit snapshotChanged();
  write_test_state(false);
}

// The KV types' quality on this model: stored once measured, else measured now in the
// background (one thread, sessions of its own; the chat goes on).
void ChatController::measure_kv_quality(const QString& identity) {
  kv_quality_ = store_ ? store_->setting(QStringLiteral("kv_quality/") + identity).toMap()
                       : QVariantMap();
  emit kvQualityChanged();
  if (!kv_quality_.isEmpty() || identity.isEmpty()) return;
  SessionOptions options = worker_->session_options();
  options.n_threads = 1;
  kv_probe_.measure(identity, worker_->shared_model(), options);
}

void ChatController::newConversation() {
  if (!store_ || generating_) return;
  // An empty conversation is reused rather than listed twice.
  if (current_ && messages_.rowCount() == 0 && system_prompt().isEmpty()) {
    clear_search();
    emit currentConversationChanged();  // the window focuses the message box
    return;
  }
  if (!can_leave_conversation()) return;
  clear_search();
  if (const qint64 empty = empty_conversation()) {
    selectConversation(empty);
    return;
  }
  QString error;
  const qint64 id = store_->create_conversation(tr("New chat"), {}, &error);
  if (!id) {
    emit errorOccurred(error);
    return;
  }
  switch_conversation_state(current_, id);
  current_ = id;
  messages_.reset({});
  refresh_conversations();
  QMetaObject::invokeMethod(worker_, [w = worker_] { w->clearSession(); }, Qt::QueuedConnection);
  emit currentConversationChanged();
  write_test_state();
}

void ChatController::selectConversation(qint64 id) {
  if (!store_ || generating_ || id == current_ || id == pending_delete_id_ ||
      !can_leave_conversation()) {
    return;
  }
  switch_conversation_state(current_, id);
  current_ = id;
  messages_.reset(store_->messages(id));
  if (models_->loaded()) {
    QMetaObject::invokeMethod(
        worker_, [w = worker_, path = snapshot_path(id)] { w->restoreSnapshot(path); },
        Qt::QueuedConnection);
  }
  emit currentConversationChanged();
  follow_conversation_model();
  write_test_state();
}

void ChatController::renameConversation(qint64 id, const QString& title) {
  QString error;
  if (store_ && !store_->rename_conversation(id, title, &error)) {
    emit errorOccurred(tr("The new name was not saved: %1").arg(error));
  }
  refresh_conversations();
  write_test_state();
}

void ChatController::deleteConversation(qint64 id) {
  if (!store_ || id <= 0 || id == pending_delete_id_ || (generating_ && id == current_)) return;
  if (documents_ && documents_->summarizing_into(id)) {
    emit errorOccurred(tr("A summary is being written into this conversation: cancel it first."));
    return;
  }
  const auto conversation = store_->conversation(id);
  if (!conversation) return;
  if (id == current_) {
    // Its rows are stored first, so that Undo brings all of them back.
    QString error;
    note_save(save_unsaved(&error), error);
  }
  commit_pending_delete();  // the one before is final now
  pending_delete_id_ = id;
  pending_delete_title_ = conversation->title;
  delete_timer_.start();
  if (id == current_) {
    switch_conversation_state(current_, 0);
    current_ = 0;
    messages_.reset({});
    // Its KV goes from the session too (Undo restores it from its snapshot, kept till then).
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->clearSession(); }, Qt::QueuedConnection);
    emit currentConversationChanged();
  }
  refresh_conversations();
  emit pendingDeleteChanged();
  write_test_state();
}

QObject* ChatController::documents() {
  return documents_.get();
}

bool ChatController::send(const QString& text) {
  if (text.trimmed().isEmpty() || generating_) return false;
  if (models_->loading()) {
    emit errorOccurred(tr("The model is still loading: your message is kept in the box; send it when it is ready."));
    return false;
  }
  if (!models_->loaded()) {
    emit errorOccurred(tr("No model is loaded: your message is kept in the box. Open a GGUF model "
                          "(“Open model…”, Ctrl+O, or drop one on the window), or pick the demo model under "
                          "“Recent”, then send it."));
    return false;
  }
  if (notice_.value(QStringLiteral("kind")).toString() == QLatin1String("context-full") &&
      !messages_.items().isEmpty() && messages_.items().back().role == QLatin1String("user")) {
    // Another message would find no room either: the way out first, the text kept.
    emit errorOccurred(tr("The context is full and your last message has no reply: choose an action in "
                          "the banner first (or close it to send anyway). This message is kept in the box."));
    return false;
  }
  return send_with_stats(text, {});
}

bool ChatController::send_with_stats(const QString& text, const QVariantMap& stats) {
  if (!store_ || generating_ || text.trimmed().isEmpty() || !models_->loaded()) return false;
  // A new conversation the store refuses (disk full) is created with the next save.
  if (!current_ && messages_.rowCount() == 0) newConversation();
  // A model file cut short or replaced since it was loaded: said once (the copy read into
  // memory keeps running).
  if (const QString changed = models_->file_change_once(); !changed.isEmpty()) emit errorOccurred(changed);
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
    // The first words of the first message name the conversation.
    ok = store_->rename_conversation(current_, text.simplified().left(40), &error);
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
  if (store_->messages(conversation_id).isEmpty() &&
      !store_->rename_conversation(conversation_id, user_text.simplified().left(40), error)) {
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
  refresh_conversations();
  write_test_state();
  return true;
}

bool ChatController::model_loading() const { return models_->loading(); }

void ChatController::set_generating(bool on) {
  if (generating_ == on) return;
  generating_ = on;
  models_->set_reply_running(on);
  emit generatingChanged();
}

QString ChatController::formatBytes(double bytes) const {
  return hub::format_bytes(bytes);
}

}  // namespace kvchat::app
