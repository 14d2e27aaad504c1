#include "chat_controller.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include "documents/document_controller.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

namespace {
constexpr int kPersistEveryMs = 250;  // a streaming reply is saved at least this often
constexpr int kUiRefreshMs = 33;      // ~30 updates per second are plenty for the eye
}

ChatController::ChatController(const QString& data_dir, QObject* parent)
    : QObject(parent), data_dir_(data_dir) {
  QDir().mkpath(data_dir);
  store_ = ConversationStore::open(ConversationStore::default_path(data_dir), &store_error_);
  if (store_) store_->mark_streaming_interrupted();
  sampling_ = {{"temperature", 0.8}, {"top_k", 40}, {"top_p", 0.95}, {"min_p", 0.05},
               {"repeat_penalty", 1.0}, {"seed", 0}, {"max_tokens", 256}};
  engine_settings_ = {{"backend", "auto"}, {"threads", 0}, {"ctx", 0}, {"kv_type", "f16"},
                      {"context_policy", "stop"}};
  if (store_) {
    const QVariant saved = store_->setting(QStringLiteral("sampling"));
    if (saved.isValid()) sampling_ = saved.toMap();
    const QVariant engine = store_->setting(QStringLiteral("engine"));
    if (engine.isValid()) engine_settings_ = engine.toMap();
  }

  worker_ = new EngineWorker();
  worker_->moveToThread(&engine_thread_);
  connect(&engine_thread_, &QThread::finished, worker_, &QObject::deleteLater);
  // Queued: the slots run on the GUI thread, the only one that touches the models.
  connect(worker_, &EngineWorker::modelLoaded, this, &ChatController::on_model_loaded);
  connect(worker_, &EngineWorker::modelLoadFailed, this, &ChatController::on_model_load_failed);
  connect(worker_, &EngineWorker::chatFormatChanged, this, [this](const QVariantMap& format) {
    model_info_.insert(format);
    emit modelChanged();
  });
  connect(worker_, &EngineWorker::chatFormatFailed, this, [this](const QString& message) {
    emit errorOccurred(tr("Chat template: %1").arg(message));
  });
  connect(worker_, &EngineWorker::loadProgress, this, [this](double f) {
    load_progress_ = f;
    emit loadProgressChanged();
  });
  connect(worker_, &EngineWorker::replyChunk, this, &ChatController::on_reply_chunk);
  connect(worker_, &EngineWorker::replyFinished, this, &ChatController::on_reply_finished);
  connect(worker_, &EngineWorker::replyFailed, this, &ChatController::on_reply_failed);
  connect(worker_, &EngineWorker::memoryReport, this, &ChatController::on_memory_report);
  connect(worker_, &EngineWorker::sessionEvent, this, &ChatController::on_session_event);
  connect(worker_, &EngineWorker::snapshotSaved, this, &ChatController::on_snapshot_saved);
  connect(worker_, &EngineWorker::snapshotRestored, this, &ChatController::on_snapshot_restored);
  ui_refresh_.setSingleShot(true);
  ui_refresh_.setInterval(kUiRefreshMs);
  connect(&ui_refresh_, &QTimer::timeout, this, &ChatController::flush_to_ui);
  documents_ = std::make_unique<DocumentController>(
      *this, *worker_, store_.get(), ConversationStore::default_path(data_dir));
  connect(documents_.get(), &DocumentController::stateChanged, this,
          [this] { write_test_state(); });
  engine_thread_.start();
  refresh_conversations();
  // Reopen the most recent conversation.
  if (conversations_.rowCount() > 0) {
    selectConversation(conversations_.data(conversations_.index(0), ConversationListModel::IdRole).toLongLong());
  }
  write_test_state(false);
}

ChatController::~ChatController() {
  if (worker_) {
    worker_->request_stop();
    worker_->request_cancel_summary();  // a running job stops, its partials kept
  }
  engine_thread_.quit();
  engine_thread_.wait();
  if (generating_) persist_reply(MessageState::Interrupted, {});
}

QString ChatController::system_prompt() const {
  if (!store_ || !current_) return {};
  auto c = store_->conversation(current_);
  return c ? c->system_prompt : QString();
}

void ChatController::set_system_prompt(const QString& prompt) {
  if (!store_) return;
  if (!current_) newConversation();
  QString error;
  if (!store_->set_system_prompt(current_, prompt, &error)) emit errorOccurred(error);
  emit currentConversationChanged();
}

void ChatController::set_sampling(const QVariantMap& sampling) {
  sampling_ = sampling;
  QString error;
  if (store_) store_->set_setting(QStringLiteral("sampling"), sampling_, &error);
  emit samplingChanged();
}

void ChatController::loadModel(const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  if (generating_) return;
  load_progress_ = 0;
  model_loading_ = true;
  model_error_.clear();
  emit modelChanged();
  QVariantMap settings = engine_settings_;
  if (store_) {
    settings.insert(QStringLiteral("chat_template_override"),
                    store_->setting(template_override_key(path)).toString());
  }
  QMetaObject::invokeMethod(worker_, "loadModel", Qt::QueuedConnection, Q_ARG(QString, path),
                            Q_ARG(QVariantMap, settings));
}

QString ChatController::template_override_key(const QString& model_path) {
  return QStringLiteral("chat_template_override/") + model_path;
}

void ChatController::setChatTemplateOverride(const QString& override_text) {
  if (model_path_.isEmpty()) return;
  QString error;
  if (store_) store_->set_setting(template_override_key(model_path_), override_text, &error);
  if (!error.isEmpty()) emit errorOccurred(error);
  QMetaObject::invokeMethod(worker_, "setChatTemplateOverride", Qt::QueuedConnection,
                            Q_ARG(QString, override_text));
}

void ChatController::cancelLoad() {
  if (model_loading_) worker_->request_cancel_load();
}

void ChatController::setEngineSettings(const QVariantMap& settings) {
  engine_settings_ = settings;
  QString error;
  if (store_) store_->set_setting(QStringLiteral("engine"), engine_settings_, &error);
  emit engineSettingsChanged();
  if (!model_path_.isEmpty()) loadModel(model_path_);
}

void ChatController::setUiSetting(const QString& key, const QVariant& value) {
  QString error;
  if (store_) store_->set_setting(QStringLiteral("ui/") + key, value, &error);
}

QVariant ChatController::uiSetting(const QString& key, const QVariant& fallback) const {
  return store_ ? store_->setting(QStringLiteral("ui/") + key, fallback) : fallback;
}

QStringList ChatController::recent_models() const {
  return store_ ? store_->setting(QStringLiteral("recent_models")).toStringList() : QStringList();
}

QString ChatController::snapshot_path(qint64 conversation) const {
  return QDir(data_dir_).filePath(QStringLiteral("snapshots/conversation-%1.kvsnap").arg(conversation));
}

void ChatController::on_snapshot_saved(const QString&, qint64 bytes) {
  snapshot_bytes_ = bytes;
  emit snapshotChanged();
}

void ChatController::on_snapshot_restored(bool restored, qint64 bytes, const QString& reason) {
  snapshot_bytes_ = bytes;
  snapshot_status_ = restored
      ? tr("KV state restored from the snapshot (%1): nothing re-evaluated").arg(formatBytes(bytes))
      : tr("No usable snapshot (%1): the conversation is re-evaluated with the next message").arg(reason);
  emit snapshotChanged();
  write_test_state(false);
}

void ChatController::on_model_loaded(const QVariantMap& info) {
  model_info_ = info;
  model_path_ = info.value("path").toString();
  model_loading_ = false;
  model_error_.clear();
  memory_history_.clear();
  emit modelChanged();
  // Which chat format the conversation goes through, and why (Settings can change it).
  on_session_event(tr("chat"), info.value("chat_format_description").toString());
  QString error;
  if (store_) {
    QStringList recent = recent_models();
    recent.removeAll(model_path_);
    recent.prepend(model_path_);
    store_->set_setting(QStringLiteral("recent_models"), recent.mid(0, 8), &error);
  }
  // The open conversation's KV state: from its snapshot when one fits this model.
  if (current_) {
    QMetaObject::invokeMethod(worker_, "restoreSnapshot", Qt::QueuedConnection,
                              Q_ARG(QString, snapshot_path(current_)));
  }
}

void ChatController::on_model_load_failed(const QString& message) {
  model_loading_ = false;
  model_error_ = message;
  emit modelChanged();  // the chat view's banner shows it whole; the loaded model stays
}

void ChatController::newConversation() {
  if (!store_ || generating_) return;
  QString error;
  const qint64 id = store_->create_conversation(tr("New chat"), {}, &error);
  if (!id) {
    emit errorOccurred(error);
    return;
  }
  current_ = id;
  messages_.reset({});
  refresh_conversations();
  QMetaObject::invokeMethod(worker_, "clearSession", Qt::QueuedConnection);
  snapshot_status_.clear();
  snapshot_bytes_ = 0;
  emit snapshotChanged();
  emit currentConversationChanged();
}

void ChatController::selectConversation(qint64 id) {
  if (!store_ || generating_ || id == current_) return;
  current_ = id;
  messages_.reset(store_->messages(id));
  if (!model_info_.isEmpty()) {
    QMetaObject::invokeMethod(worker_, "restoreSnapshot", Qt::QueuedConnection,
                              Q_ARG(QString, snapshot_path(id)));
  }
  emit currentConversationChanged();
}

void ChatController::renameConversation(qint64 id, const QString& title) {
  QString error;
  if (store_ && !store_->rename_conversation(id, title, &error)) emit errorOccurred(error);
  refresh_conversations();
}

void ChatController::deleteConversation(qint64 id) {
  if (!store_ || (generating_ && id == current_)) return;
  if (documents_ && documents_->summarizing_into(id)) {
    emit errorOccurred(tr("A summary is being written into this conversation: cancel it first."));
    return;
  }
  QString error;
  if (!store_->delete_conversation(id, &error)) emit errorOccurred(error);
  QFile::remove(snapshot_path(id));
  if (id == current_) {
    current_ = 0;
    messages_.reset({});
    emit currentConversationChanged();
  }
  refresh_conversations();
}

void ChatController::search(const QString& text) {
  if (!store_) return;
  conversations_.reset(text.trimmed().isEmpty() ? store_->conversations() : store_->search(text));
}

void ChatController::refresh_conversations() {
  if (store_) conversations_.reset(store_->conversations());
}

QObject* ChatController::documents() {
  return documents_.get();
}

void ChatController::send(const QString& text) {
  send_with_stats(text, {});
}

bool ChatController::send_with_stats(const QString& text, const QVariantMap& stats) {
  if (!store_ || generating_ || text.trimmed().isEmpty() || model_info_.isEmpty()) return false;
  if (documents_ && documents_->summarizing()) {
    emit errorOccurred(tr("A document is being summarized: wait for it or cancel it first."));
    return false;
  }
  if (!current_) newConversation();
  QString error;
  if (messages_.items().isEmpty()) {
    // The first words of the first message name the conversation.
    store_->rename_conversation(current_, text.simplified().left(40), &error);
  }
  StoredMessage user;
  user.conversation_id = current_;
  user.role = QStringLiteral("user");
  user.content = text;
  user.stats = stats;
  user.id = store_->append_message(current_, user.role, text, MessageState::Complete, &error);
  if (!user.id ||
      (!stats.isEmpty() &&
       !store_->update_message(user.id, text, MessageState::Complete, stats, &error))) {
    emit errorOccurred(error);
    return false;
  }
  messages_.append(user);
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
  if (store_->messages(conversation_id).isEmpty()) {
    store_->rename_conversation(conversation_id, user_text.simplified().left(40), error);
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
  refresh_conversations();
  write_test_state();
  return true;
}

void ChatController::start_reply() {
  QString error;
  QVariantList history;
  for (const StoredMessage& m : messages_.items()) {
    history.push_back(QVariantMap{{"role", m.role}, {"content", m.content}});
  }
  StoredMessage reply;
  reply.conversation_id = current_;
  reply.role = QStringLiteral("assistant");
  reply.state = MessageState::Streaming;
  reply.id = store_->append_message(current_, reply.role, {}, MessageState::Streaming, &error);
  if (!reply.id) {
    emit errorOccurred(error);
    return;
  }
  messages_.append(reply);
  refresh_conversations();
  set_generating(true);
  since_persist_.start();
  // Mark the turn boundary on the memory timeline.
  if (!memory_history_.isEmpty()) {
    QVariantMap last = memory_history_.back().toMap();
    last["turn"] = true;
    memory_history_.back() = last;
  }
  QMetaObject::invokeMethod(worker_, "generate", Qt::QueuedConnection, Q_ARG(QVariantList, history),
                            Q_ARG(QString, system_prompt()), Q_ARG(QVariantMap, sampling_));
}

void ChatController::stop() {
  if (generating_) worker_->request_stop();
  if (documents_) documents_->cancelSummary();
}

void ChatController::regenerate() {
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
  if (!store_->delete_messages_after(items[last_user].id, &error)) {
    emit errorOccurred(error);
    return;
  }
  messages_.truncate(last_user + 1);
  start_reply();
}

void ChatController::editMessage(int row, const QString& text) {
  if (!store_ || generating_) return;
  const auto& items = messages_.items();
  if (row < 0 || row >= items.size() || items[row].role != QStringLiteral("user")) return;
  QString error;
  const qint64 id = items[row].id;
  if (!store_->delete_messages_after(id, &error) ||
      !store_->update_message(id, text, MessageState::Complete, {}, &error)) {
    emit errorOccurred(error);
    return;
  }
  messages_.reset(store_->messages(current_));
  start_reply();  // the engine re-evaluates only from the edited message on
}

void ChatController::persist_reply(MessageState state, const QVariantMap& stats) {
  const auto& items = messages_.items();
  if (!store_ || items.isEmpty()) return;
  QString error;
  if (!store_->update_message(items.back().id, items.back().content, state, stats, &error)) {
    emit errorOccurred(error);
  }
  since_persist_.restart();
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
  if (memory_dirty_) {
    memory_dirty_ = false;
    emit memoryChanged();
  }
}

void ChatController::on_reply_finished(const QVariantMap& stats) {
  ui_refresh_.stop();
  flush_to_ui();
  last_reply_stats_ = stats;
  const bool cancelled = stats.value("stop_reason").toString() == QStringLiteral("cancelled");
  const MessageState state = cancelled ? MessageState::Interrupted : MessageState::Complete;
  persist_reply(state, stats);
  messages_.update_last(state, stats);
  set_generating(false);
  refresh_conversations();
  // Keep the conversation's KV state so reopening it later costs no re-evaluation.
  QDir().mkpath(QDir(data_dir_).filePath(QStringLiteral("snapshots")));
  QMetaObject::invokeMethod(worker_, "saveSnapshot", Qt::QueuedConnection,
                            Q_ARG(QString, snapshot_path(current_)));
  write_test_state(true);
  emit replyFinished();
}

void ChatController::on_reply_failed(const QString& message) {
  ui_refresh_.stop();
  flush_to_ui();
  persist_reply(MessageState::Interrupted, {{"error", message}});
  messages_.update_last(MessageState::Interrupted, {{"error", message}});
  set_generating(false);
  emit errorOccurred(message);
}

void ChatController::on_memory_report(const QVariantMap& report) {
  memory_ = report;
  const int tokens = report.value("kv_tokens").toInt();
  if (memory_history_.isEmpty() || memory_history_.back().toMap().value("tokens").toInt() != tokens) {
    memory_history_.push_back(QVariantMap{{"tokens", tokens},
                                          {"used", report.value("kv_used_bytes")},
                                          {"allocated", report.value("kv_allocated_bytes")},
                                          {"turn", false}});
    if (memory_history_.size() > 4096) memory_history_.pop_front();
  }
  memory_dirty_ = true;
  if (!ui_refresh_.isActive()) ui_refresh_.start();
}

void ChatController::on_session_event(const QString& kind, const QString& message) {
  last_event_ = kind + QStringLiteral(": ") + message;
  emit lastEventChanged();
  // A backend that failed (or skipped) its self-check must be seen, not replaced in the
  // status line by the next event: as an error, the error dialog shows it and the message
  // banner keeps it until dismissed. (The engine puts "self-check" in every such note;
  // "auto" without a GPU stays a status.)
  if (kind == QLatin1String("backend") && message.contains(QLatin1String("self-check"))) {
    emit errorOccurred(tr("Backend: %1").arg(message));
  }
}

void ChatController::set_generating(bool on) {
  if (generating_ == on) return;
  generating_ = on;
  emit generatingChanged();
}

QString ChatController::formatBytes(double bytes) const {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  return u == 0 ? QStringLiteral("%1 B").arg(bytes, 0, 'f', 0)
                : QStringLiteral("%1 %2").arg(bytes, 0, 'f', bytes < 10 ? 2 : (bytes < 100 ? 1 : 0)).arg(units[u]);
}

// For the end-to-end test (KVCHAT_TEST_STATE_FILE): what the window shows — the
// conversations listed, the messages of the open one, the memory panel's numbers.
void ChatController::write_test_state(bool reply_finished) {
  test_reply_finished_ = reply_finished;
  const QString path = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE");
  if (path.isEmpty()) return;
  QFile f(path + QStringLiteral(".tmp"));
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return;
  QVariantMap last_message;
  if (!messages_.items().isEmpty()) {
    const StoredMessage& m = messages_.items().back();
    last_message = {{"role", m.role}, {"chars", m.content.size()}, {"stats", m.stats}};
  }
  const QVariantMap state{{"reply_finished", reply_finished},
                          {"conversations", conversations_.rowCount()},
                          {"messages", messages_.rowCount()},
                          {"memory", memory_},
                          {"kv_used_text", formatBytes(memory_.value("kv_used_bytes").toDouble())},
                          {"snapshot_status", snapshot_status_},
                          {"documents", documents_ ? documents_->test_state() : QVariantMap()},
                          {"last_message", last_message}};
  f.write(QJsonDocument(QJsonObject::fromVariantMap(state)).toJson());
  f.close();
  QFile::remove(path);
  f.rename(path);
}

}  // namespace kvchat::app
