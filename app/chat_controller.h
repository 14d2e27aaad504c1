// ChatController: what QML talks to. Owns the conversation store, the list models and
// the engine thread; turns user actions into store writes and worker requests, and
// worker signals (delivered queued on the GUI thread) into model updates.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QThread>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>
#include <memory>

#include "documents/conversation_host.h"
#include "engine/kv_quality_probe.h"
#include "engine/worker_values.h"
#include "models/conversation_list_model.h"
#include "models/message_list_model.h"
#include "model/model_controller.h"
#include "settings/model_settings.h"
#include "settings/settings_access.h"
#include "store/conversation_store.h"

namespace kvchat::app {

class DocumentController;
class EngineWorker;

class ChatController : public QObject, public ConversationHost, public SettingsAccess {
  Q_OBJECT
  Q_PROPERTY(QObject* conversations READ conversations CONSTANT)
  Q_PROPERTY(QObject* messages READ messages CONSTANT)
  Q_PROPERTY(qint64 currentConversationId READ current_conversation NOTIFY currentConversationChanged)
  Q_PROPERTY(QString systemPrompt READ system_prompt WRITE set_system_prompt NOTIFY currentConversationChanged)
  Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
  Q_PROPERTY(QVariantMap memory READ memory NOTIFY memoryChanged)
  Q_PROPERTY(QVariantList memoryHistory READ memory_history NOTIFY memoryChanged)
  // The status line's sentence for the last thing that happened (chat_controller_status.cpp):
  // a short label and the message, never an internal event name; a context event says how
  // full the context is now, with contextUsage's figures.
  Q_PROPERTY(QString lastEvent READ last_event NOTIFY lastEventChanged)
  // How full the context is, computed once for the panel and the status line: tokens, max,
  // percent (whole, rounded down: 100 only when full) and text ("1,234 of 4,096 tokens (30%)").
  Q_PROPERTY(QVariantMap contextUsage READ context_usage NOTIFY memoryChanged)
  Q_PROPERTY(QString storeError READ store_error CONSTANT)
  // Said once at start: the damaged database moved aside (its new name), ... Empty: none.
  Q_PROPERTY(QString startupNotice READ startup_notice CONSTANT)
  // The last failed save (disk full, I/O error) while something is still unsaved; empty
  // once everything in the window is stored again.
  Q_PROPERTY(QString saveError READ save_error NOTIFY saveErrorChanged)
  // One line on the open conversation's KV snapshot, in plain words: restored, not usable,
  // none yet, or saved after the last reply (with its size on disk). Empty: nothing known.
  Q_PROPERTY(QString snapshotStatus READ snapshot_status NOTIFY snapshotChanged)
  // The engine's own reason behind that line (for a tooltip); empty when there is none.
  Q_PROPERTY(QString snapshotDetail READ snapshot_detail NOTIFY snapshotChanged)
  // The conversation deleted last, for kUndoDeleteMs: {id, title} (empty when none). It is
  // gone from the list at once and deleted from the store when the time is up, when another
  // one is deleted, or at exit; undoDelete() brings it back with its messages.
  Q_PROPERTY(QVariantMap pendingDelete READ pending_delete NOTIFY pendingDeleteChanged)
  Q_PROPERTY(int undoDeleteMs READ undo_delete_ms CONSTANT)
  Q_PROPERTY(qint64 snapshotBytes READ snapshot_bytes NOTIFY snapshotChanged)
  // EngineWorker::snapshotDiskUsage's figures plus budget_bytes.
  Q_PROPERTY(QVariantMap snapshotDisk READ snapshot_disk NOTIFY snapshotChanged)
  // All KV snapshots together; the least recently used go beyond it (0: no limit).
  Q_PROPERTY(qint64 snapshotBudgetBytes READ snapshot_budget_bytes WRITE setSnapshotBudgetBytes NOTIFY snapshotChanged)
  // The open conversation's last reply's figures (its stored stats; empty when it has none).
  Q_PROPERTY(QVariantMap lastReplyStats READ conversation_reply_stats NOTIFY lastReplyStatsChanged)
  // The KV types' quality figures measured on the loaded model (KvQualityProbe fields),
  // empty until measured (the panel then shows the demo model's, labelled as such).
  Q_PROPERTY(QVariantMap kvQuality READ kv_quality NOTIFY kvQualityChanged)
  // Long documents: attach, cost preview, send whole, summary jobs (DocumentController).
  Q_PROPERTY(QObject* documents READ documents CONSTANT)
  // The window's banner with actions: kind ("load-failed", "context-full", "no-reply",
  // "summarizing"), text, actions [{id, label}] for noticeAction(). Empty: none.
  Q_PROPERTY(QVariantMap notice READ notice NOTIFY noticeChanged)
  // What the context policy last did in this conversation ("Oldest turns dropped to make
  // room: N tokens"); empty when it has done nothing yet.
  Q_PROPERTY(QString contextNotice READ context_notice NOTIFY contextNoticeChanged)
  // The sidebar's search (what search() was given): New chat clears it, so the new
  // conversation is listed; the search field follows it.
  Q_PROPERTY(QString searchText READ search_text NOTIFY searchTextChanged)

 public:
  // data_dir holds the database (and later settings and snapshots).
  explicit ChatController(const QString& data_dir, QObject* parent = nullptr);
  ~ChatController() override;

  QObject* conversations() { return &conversations_; }
  QObject* messages() { return &messages_; }
  QObject* documents();
  // The model and its per-model settings (`models` in QML).
  ModelController* models() { return models_.get(); }
  const ModelController* models() const { return models_.get(); }
  DocumentController* document_controller() { return documents_.get(); }
  // The open conversation's messages, in order.
  const QVector<StoredMessage>& message_items() const override { return messages_.items(); }
  qint64 current_conversation() const override { return current_; }
  QString system_prompt() const override;
  void set_system_prompt(const QString& prompt);
  bool model_loading() const override;
  bool generating() const override { return generating_; }
  QVariantMap memory() const override { return memory_; }
  QVariantList memory_history() const { return memory_history_; }
  QString last_event() const;
  QVariantMap context_usage() const;
  // A count as the window writes it: the locale's digit grouping ("3,887").
  static QString count_text(qint64 n);
  QString store_error() const override { return store_error_; }
  QString startup_notice() const { return startup_notice_; }
  QString save_error() const { return save_error_; }
  // Whether every message in the window and every setting is stored.
  bool all_saved() const { return messages_.unsaved_count() == 0 && pending_settings_.isEmpty(); }
  QString snapshot_status() const { return snapshot_status_; }
  QString snapshot_detail() const { return snapshot_detail_; }
  QVariantMap pending_delete() const;
  static constexpr int kUndoDeleteMs = 8000;
  int undo_delete_ms() const { return kUndoDeleteMs; }
  // The pending delete done now (the timer's end; tests call it).
  void commit_pending_delete();
  // The last reply of this run, in any conversation (the measured speeds).
  QVariantMap last_reply_stats() const override { return last_reply_stats_; }
  QVariantMap conversation_reply_stats() const;
  qint64 snapshot_bytes() const { return snapshot_bytes_; }
  QVariantMap kv_quality() const { return kv_quality_; }
  QVariantMap snapshot_disk() const;
  qint64 snapshot_budget_bytes() const { return snapshot_budget_bytes_; }
  void setSnapshotBudgetBytes(qint64 bytes);
  static constexpr qint64 kDefaultSnapshotBudgetBytes = qint64{4} << 30;

  QVariantMap notice() const { return notice_; }
  QString context_notice() const { return context_notice_; }
  // The model the window opens at start (conversation_model.h): `asked` (--model), else
  // the reopened conversation's, else the last used that exists, else `demo`.
  QString model_to_open_at_start(const QString& asked, const QString& demo) const;
  // The banner's actions: "retry", "previous", "demo", "settings" (a failed load);
  // "new_chat", "summarize", "change_policy", "retry_reply" (a full context, no reply).
  Q_INVOKABLE void noticeAction(const QString& id);
  Q_INVOKABLE void dismissNotice();
  // The open conversation summarized (on the engine thread, a session of its own) into a
  // new conversation's system prompt; an unanswered last message is sent again there.
  Q_INVOKABLE void summarizeAndContinue();

  // true: the message was taken (the box may be cleared); false: it was not, and the window
  // is told why (no model yet, still loading, a summary writing into this conversation):
  // the box keeps the text.
  Q_INVOKABLE bool send(const QString& text);
  // send() with stats stored on the user message (a document sent whole: document_id,
  // document_name, document_tokens). False, with errorOccurred, when nothing was sent.
  bool send_with_stats(const QString& text, const QVariantMap& stats) override;
  // Adds a finished user/assistant pair to a conversation (a document's summary); shown
  // at once when it is the open one. False with *error when the store refused it.
  bool append_exchange(qint64 conversation_id, const QString& user_text,
                       const QVariantMap& user_stats, const QString& reply,
                       const QVariantMap& reply_stats, QString* error) override;
  // Stops the reply being written, else a running summary job; false when neither ran.
  Q_INVOKABLE bool stop();
  // Regenerate: the last reply gets a new version (the earlier ones are kept, ‹ 2/3 ›),
  // sampled with the settings' seed (random per reply by default), or with `seed` (a
  // reply's own, shown beside it: the same text again).
  Q_INVOKABLE void regenerate();
  Q_INVOKABLE void regenerateWithSeed(qint64 seed);
  // Shows version `version` (0-based) of the reply at `row` (the last one): the next turn
  // continues from it.
  Q_INVOKABLE void selectVersion(int row, int version);
  // The last reply's previous (step -1) or next (+1) version (Alt+Left / Alt+Right).
  Q_INVOKABLE void showAdjacentVersion(int step);
  // Generates more of the last reply (cut at the length limit, or stopped), in place.
  Q_INVOKABLE void continueReply();
  // The end-to-end test reads back what the window shows of a message (its text as
  // rendered); a no-op unless KVCHAT_TEST_STATE_FILE is set.
  Q_INVOKABLE void noteShownText(int row, const QString& text);
  Q_PROPERTY(bool testing READ testing CONSTANT)
  bool testing() const { return !qEnvironmentVariableIsEmpty("KVCHAT_TEST_STATE_FILE"); }
  // The user message at `row` gets `text` (the replies after it are dropped) and is resent.
  // False when it was not: a reply is being written, no such user message, an empty
  // (whitespace-only) text, or the store refused it (errorOccurred says why).
  Q_INVOKABLE bool editMessage(int row, const QString& text);
  // The row of the last user message (the one Up in the empty message box edits); -1: none.
  Q_INVOKABLE int lastUserRow() const;
  Q_INVOKABLE void newConversation() override;
  Q_INVOKABLE void selectConversation(qint64 id);
  Q_INVOKABLE void renameConversation(qint64 id, const QString& title);
  // Hides the conversation at once (pendingDelete) and deletes it kUndoDeleteMs later.
  Q_INVOKABLE void deleteConversation(qint64 id);
  Q_INVOKABLE void undoDelete();
  Q_INVOKABLE QString conversationTitle(qint64 id) const;
  // Writes the conversation to a file: JSON when the path ends in .json, else Markdown
  // (export/conversation_export.h). A file:// URL or a path. False, with errorOccurred,
  // when it could not be written.
  Q_INVOKABLE bool exportConversation(qint64 id, const QString& path_or_url);
  // A file name for the export dialog: the title made safe, suffix ".md" or ".json".
  Q_INVOKABLE QString exportFileName(qint64 id, const QString& format) const;
  // Where the export dialog proposes to write: the Documents folder (the home folder when
  // there is none) and exportFileName.
  Q_INVOKABLE QString defaultExportPath(qint64 id, const QString& format) const;
  Q_INVOKABLE void search(const QString& text);
  QString search_text() const { return search_text_; }
  Q_INVOKABLE QString formatBytes(double bytes) const;
  Q_INVOKABLE void setUiSetting(const QString& key, const QVariant& value);
  Q_INVOKABLE QVariant uiSetting(const QString& key, const QVariant& fallback = {}) const;
  // SettingsAccess: a setting, saved now or with the next save when the store refuses it.
  QVariant setting(const QString& key, const QVariant& fallback = {}) const override;
  void save_setting(const QString& key, const QVariant& value) override;

  // Rewrites the end-to-end test's state file (KVCHAT_TEST_STATE_FILE), e.g. after the
  // window's language changed.
  void write_test_state() { write_test_state(test_reply_finished_); }

 signals:
  void currentConversationChanged();
  void generatingChanged();
  void memoryChanged();
  void lastEventChanged();
  void replyFinished();
  void errorOccurred(const QString& message);
  void snapshotChanged();
  void kvQualityChanged();
  void saveErrorChanged();
  void noticeChanged();
  void contextNoticeChanged();
  void settingsRequested();  // a banner action asks for the Settings drawer
  void openModelRequested();   // ... the "Open a GGUF model" file dialog
  void modelsPageRequested();  // ... the Models page
  void pendingDeleteChanged();
  void lastReplyStatsChanged();
  void searchTextChanged();

 private:
  // A banner action: {"id": id, "label": label}.
  static QVariantMap action(const char* id, const QString& label);
  // The conversation's model (chat_controller_conversation_model.cpp): recorded when a
  // message is sent with the loaded model; on opening a conversation its model is loaded
  // (or the banner says it is missing); after a load, another model than the open
  // conversation's is said in the banner.
  void remember_conversation_model(qint64 id);
  void follow_conversation_model();
  void check_conversation_model();
  // The model's load ended (ModelController::loaded / loadFailed): the chat follows.
  void on_model_loaded(const LoadedModel& model);
  void on_model_load_failed(const QString& path, const QString& message);
  void on_reply_chunk(const QString& text);
  void on_reply_finished(const QVariantMap& stats);
  void on_reply_failed(const QString& message);
  void keep_reply_after_refused_continue();
  void on_memory_report(const MemoryFigures& figures);
  void on_session_event(const QString& kind, const QString& message);
  // The status line's connections (chat_controller_status.cpp): the chat format after an
  // override, what the context policy did, the live context figures.
  void connect_status_signals();
  // The status line's label for an event kind ("chat" -> "Chat format"); empty: none.
  static QString event_label(const QString& kind);
  // Appends an empty assistant message and asks the worker. With append_row false the
  // last row (a reply's new version) is written into instead. seed >= 0 overrides the
  // settings' seed for this reply.
  // continuing: the last row is a reply to write more of (Continue).
  void start_reply(bool append_row = true, qint64 seed = -1, bool continuing = false);
  void regenerate_reply(qint64 seed);
  // A Continue in progress: the reply's stats before it (kept while streaming, merged at
  // the end); empty for a new reply.
  bool continuing_ = false;
  QVariantMap reply_base_stats_;
  QVariantMap over_reply_base(const QVariantMap& stats) const;  // stats over the base
  // The worker's stats of a finished reply; a Continue's part merged into the whole
  // reply's (and the Continue ended).
  QVariantMap finished_reply_stats(const QVariantMap& part);
  QVariantMap reply_test_state() const;  // "reply" in the test state file
  // When the reply just written is a new version of the last reply and wrote nothing:
  // drops it, shows the version before it again, says `why`, ends the reply; true.
  // Otherwise false (nothing done).
  bool discard_empty_version(const QString& why);
  QHash<int, QString> shown_texts_;  // row -> text as rendered (end-to-end test only)
  void persist_reply(MessageState state, const QVariantMap& stats);
  // Writes what the store has not taken yet, in order: settings it refused, then the
  // open conversation's unsaved rows (the conversation itself first when it could not be
  // created). False with *error at the first refusal; the rest stays for the next save.
  bool save_unsaved(QString* error);
  // After each save: the first failure of a run is shown (errorOccurred, saveError), a
  // success after failures clears saveError.
  void note_save(bool ok, const QString& error);
  // Before leaving the open conversation: false (and a message) when rows of it cannot
  // be saved now, since leaving would lose them.
  bool can_leave_conversation();
  void refresh_conversations();
  // Before a new conversation opens: the sidebar's search goes (a new chat matches none).
  void clear_search();
  // The view state that belongs to a conversation (its KV timeline, its snapshot lines):
  // put away for `from`, taken out for `to` (empty for one not seen in this run).
  void switch_conversation_state(qint64 from, qint64 to);
  // An empty conversation already listed (no messages, no system prompt), 0 if none.
  qint64 empty_conversation() const;
  void forget_session_figures();  // a model (re)loaded: the old session's timelines, lines
  void mark_turn_on_timeline();   // a reply begins here
  void set_generating(bool on);
  void write_test_state(bool reply_finished);
  bool test_reply_finished_ = false;
  QString snapshot_path(qint64 conversation) const;
  void on_snapshot_saved(const QString& path, qint64 bytes);
  void on_snapshot_restored(bool restored, qint64 bytes, const QString& reason);
  void on_snapshot_disk_usage(const SnapshotDiskUsage& usage);

  std::unique_ptr<ConversationStore> store_;
  QString store_error_;
  QString startup_notice_;
  QString save_error_;
  QVariantMap pending_settings_;  // key -> value the store refused (retried on each save)
  QString data_dir_;
  ConversationListModel conversations_;
  MessageListModel messages_;
  qint64 current_ = 0;
  bool generating_ = false;
  QVariantMap memory_;
  QVariantList memory_history_;  // {tokens, used, allocated, turn} per report
  QString last_event_kind_;     // the last event's kind ("chat", "context-warning", ...)
  QString last_event_message_;  // and its message
  QString snapshot_status_;
  QString snapshot_detail_;
  QHash<qint64, QVariantList> memory_histories_;  // of the conversations not open now
  QTimer delete_timer_;
  qint64 pending_delete_id_ = 0;
  QString search_text_;  // the sidebar's search, kept when the list is refreshed
  QString pending_delete_title_;
  QVariantMap last_reply_stats_;
  qint64 snapshot_bytes_ = 0;
  QVariantMap snapshot_disk_;
  qint64 snapshot_budget_bytes_ = kDefaultSnapshotBudgetBytes;
  QElapsedTimer since_persist_;
  // The engine reports after every token (hundreds per second on small models); the
  // window is refreshed from the latest values at most every kUiRefreshMs.
  QTimer ui_refresh_;
  QString pending_text_;
  bool memory_dirty_ = false;
  void flush_to_ui();
  QVariantMap kv_quality_;
  KvQualityProbe kv_probe_;
  void measure_kv_quality(const QString& identity);
  QThread engine_thread_;
  EngineWorker* worker_ = nullptr;  // lives on engine_thread_
  std::unique_ptr<ModelController> models_;
  // After store_ (it shares its connection) and worker_: destroyed before them.
  std::unique_ptr<DocumentController> documents_;

  // ---- per-model settings, model loading, a full context (chat_controller_models.cpp) ----
  void connect_model_signals();  // the worker's loading and context signals
  void set_notice(const QString& kind, const QString& text, const QVariantList& actions);
  // A reply that wrote nothing: its empty bubble is removed (the user message stays) and
  // the banner says why. True when it was empty.
  bool drop_empty_reply(const QString& why, bool context_full);
  void offer_context_actions(const QString& text);
  void retry_unanswered();  // the last message is the user's: ask for its reply again
  void on_context_policy_applied(const QString& kind, int before, int after, int reevaluated);
  void on_conversation_summarized(const QString& summary, const ConversationSummaryStats& stats);
  void on_conversation_summary_failed(const QString& message);
  QVariantMap notice_;
  QString context_notice_;
  bool context_full_seen_ = false;  // the session refused tokens during this reply
  QString context_full_detail_;     // the prompt's tokens against the context, when known
  bool retry_after_load_ = false;   // a policy change reloads: then the reply is retried
  qint64 summarizing_from_ = 0;     // the conversation being summarized into a new one
};

}  // namespace kvchat::app
