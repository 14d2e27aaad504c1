// ChatController: what QML talks to about the open conversation. Owns the conversation
// store, the message list, the engine thread and the window's other halves: the banners
// (NoticeCenter), the sidebar's list (ConversationListController), the memory panel's
// state (MemoryState), the documents (DocumentController); turns user actions into store
// writes and worker requests, and worker signals (delivered queued on the GUI thread)
// into model updates.
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

#include "conversations/conversation_list_controller.h"
#include "conversations/system_prompt_controller.h"
#include "util/display_text.h"
#include "conversations/conversation_host.h"
#include "documents/document_controller.h"
#include "engine/worker_values.h"
#include "memory/context_meter.h"
#include "memory/memory_state.h"
#include "messages/message_list_model.h"
#include "messages/message_loader.h"
#include "notices/notice_center.h"
#include "model/model_controller.h"
#include "settings/model_settings.h"
#include "settings/settings_access.h"
#include "store/conversation_store.h"
#include "tools/tool_steps.h"
#include "remote/remote_models_controller.h"
#include "tools/tools_controller.h"

namespace kvchat::app {

class DocumentController;
class EngineWorker;

class ChatController : public QObject,
                       public ConversationHost,
                       public ConversationListHost,
                       public SettingsAccess,
                       public SystemPromptHost {
  Q_OBJECT
  Q_PROPERTY(kvchat::app::MessageListModel* messages READ messages CONSTANT)
  // A double for QML (qmllint 6.4 has no qlonglong): ids stay far below 2^53.
  Q_PROPERTY(
      double currentConversationId READ current_conversation NOTIFY currentConversationChanged)
  Q_PROPERTY(QString systemPrompt READ system_prompt WRITE set_system_prompt NOTIFY
                 currentConversationChanged)
  Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
  // The status line's sentence for the last thing that happened (chat_controller_status.cpp):
  // a short label and the message, never an internal event name; a context event says how
  // full the context is now, with memoryState's contextUsage figures.
  Q_PROPERTY(QString lastEvent READ last_event NOTIFY lastEventChanged)
  Q_PROPERTY(QString storeError READ store_error CONSTANT)
  // Said once at start: the damaged database moved aside (its new name), ... Empty: none.
  Q_PROPERTY(QString startupNotice READ startup_notice CONSTANT)
  // The last failed save (disk full, I/O error) while something is still unsaved; empty
  // once everything in the window is stored again.
  Q_PROPERTY(QString saveError READ save_error NOTIFY saveErrorChanged)
  // The open conversation's last reply's figures (its stored stats; empty when it has none).
  Q_PROPERTY(QVariantMap lastReplyStats READ conversation_reply_stats NOTIFY lastReplyStatsChanged)
  // Long documents: attach, cost preview, send whole, summary jobs (DocumentController).
  Q_PROPERTY(kvchat::app::DocumentController* documents READ documents CONSTANT)
  // What the context policy last did in this conversation ("Oldest turns dropped to make
  // room: N tokens"); empty when it has done nothing yet.
  Q_PROPERTY(QString contextNotice READ context_notice NOTIFY contextNoticeChanged)
  // How full the context is, in the same words everywhere (the meter beside the message
  // box, the status line, the panel, the banners), with the typed message's cost.
  Q_PROPERTY(kvchat::app::ContextMeter* contextMeter READ context_meter CONSTANT)
  // A conversation whose messages are being read on the loader's thread (too long to read
  // on the window's: models/message_loader.h): its list is empty until conversationOpened.
  Q_PROPERTY(bool opening READ opening NOTIFY openingChanged)
  // ---- tools (chat_controller_tools.cpp) ----
  // The servers whose tools the open conversation offers (none by default), and whether
  // its replies must call one (a required call: the model cannot answer without one).
  Q_PROPERTY(QStringList conversationToolServers READ conversation_tool_servers NOTIFY
                 conversationToolsChanged)
  Q_PROPERTY(bool conversationToolsRequired READ conversation_tools_required NOTIFY
                 conversationToolsChanged)
  // What the reply waits for: {} (nothing), {kind: "consent", call: {...}} (Allow, Always
  // allow, Deny) or {kind: "limit", calls: N} (go on, or stop).
  Q_PROPERTY(QVariantMap toolPrompt READ tool_prompt NOTIFY toolPromptChanged)
  // What tools hold in the context (the memory panel): definition_tokens,
  // definition_kv_bytes, results [{message_row, name, tokens, kv_bytes, cut_note, state}],
  // result_tokens, result_kv_bytes, max_result_tokens, free_tokens, and warning (a result
  // as long as the limit would not fit the free context: it would be cut to fit).
  Q_PROPERTY(QVariantMap toolMemory READ tool_memory NOTIFY toolMemoryChanged)

 public:
  // data_dir holds the database (and later settings and snapshots).
  explicit ChatController(const QString& data_dir, QObject* parent = nullptr);
  ~ChatController() override;

  // Settings → Tools (QML: Tools).
  ToolsController* tools() { return tools_.get(); }
  RemoteModelsController* remote() { return remote_.get(); }
  QStringList conversation_tool_servers() const { return tool_servers_; }
  bool conversation_tools_required() const { return tools_required_; }
  Q_INVOKABLE void setConversationToolServer(const QString& name, bool offered);
  Q_INVOKABLE void setConversationToolsRequired(bool required);
  QVariantMap tool_prompt() const { return tool_prompt_; }
  // "allow", "always", "deny" (a consent), "go_on", "stop" (the limit).
  Q_INVOKABLE void answerToolPrompt(const QString& answer);
  QVariantMap tool_memory() const;
  // The sidebar's list: search, delete and undo, rename, export (`conversationList` in QML).
  ConversationListController* conversation_list() { return conversation_list_.get(); }
  // The saved system prompts, picked per conversation (`systemPrompts` in QML).
  SystemPromptController* system_prompts() { return system_prompts_.get(); }
  MessageListModel* messages() { return &messages_; }
  DocumentController* documents() { return documents_.get(); }
  ContextMeter* context_meter() { return context_meter_.get(); }
  // Every banner of the window (`notices` in QML).
  NoticeCenter* notices() { return &notices_; }
  // The model and its per-model settings (`models` in QML).
  ModelController* models() { return models_.get(); }
  const ModelController* models() const { return models_.get(); }
  DocumentController* document_controller() { return documents_.get(); }
  // The engine thread's worker (its thread-safe model and session options: the local server).
  const EngineWorker* engine_worker() const { return worker_; }
  // The memory panel's figures: the memory reports, the timelines, the snapshot lines, the
  // KV quality (QML: memoryState).
  MemoryState* memory_state() const override { return memory_state_.get(); }
  // The open conversation's messages, in order.
  const QVector<StoredMessage>& message_items() const override { return messages_.items(); }
  bool opening() const override { return opening_ticket_ != 0; }
  qint64 current_conversation() const override { return current_; }
  QString system_prompt() const override;
  void set_system_prompt(const QString& prompt) override;
  bool model_loading() const override;
  bool generating() const override { return generating_; }
  QString last_event() const;
  QString store_error() const override { return store_error_; }
  QString startup_notice() const { return startup_notice_; }
  QString save_error() const { return save_error_; }
  // Whether every message in the window and every setting is stored.
  int unsaved_messages() const { return messages_.unsaved_count(); }
  bool all_saved() const { return messages_.unsaved_count() == 0 && pending_settings_.isEmpty(); }
  // The last reply of this run, in any conversation (the measured speeds).
  QVariantMap last_reply_stats() const override { return last_reply_stats_; }
  QVariantMap conversation_reply_stats() const;

  QString context_notice() const { return context_notice_; }
  // The model the window opens at start (conversation_model.h): `asked` (--model), else
  // the reopened conversation's, else the last used that exists, else `demo`.
  QString model_to_open_at_start(const QString& asked, const QString& demo) const;
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
  // Regenerate: the last reply gets a new branch (its earlier ones are kept, ‹ 2/3 ›),
  // sampled with the settings' seed (random per reply by default), or with `seed` (a
  // reply's own, shown beside it: the same text again).
  Q_INVOKABLE void regenerate();
  Q_INVOKABLE void regenerateWithSeed(qint64 seed);
  // The reply at `row` (any, not only the last) is written again as a new branch: it and
  // the messages after it stay as the other branch.
  Q_INVOKABLE void regenerateMessage(int row);
  // Shows sibling `version` (0-based) of the message at `row` (any message with siblings)
  // and the branch that follows it; stored, and the next turn continues from it. The KV
  // snapshot on disk follows the branch shown (cut to the prefix it shares with it).
  Q_INVOKABLE void selectVersion(int row, int version);
  // The previous (step -1) or next (+1) sibling of the message at `row`; row -1: of the
  // last message that has siblings (Alt+Left / Alt+Right).
  Q_INVOKABLE void showAdjacentVersion(int step, int row = -1);
  // Generates more of the last reply (cut at the length limit, or stopped), in place.
  Q_INVOKABLE void continueReply();
  // The user message at `row` (any) gets `text` as a new branch (the old text and what
  // follows it stay as the other branch, ‹ 1/2 ›) and is resent.
  // False when it was not: a reply is being written, no such user message, an empty
  // (whitespace-only) text, or the store refused it (errorOccurred says why).
  Q_INVOKABLE bool editMessage(int row, const QString& text);
  // The row of the last user message (the one Up in the empty message box edits); -1: none.
  Q_INVOKABLE int lastUserRow() const;
  Q_INVOKABLE void newConversation() override;
  Q_INVOKABLE void selectConversation(qint64 id);
  // ConversationListHost: a delete refused while a reply or a summary writes into the
  // conversation; the open one left (its rows saved first); an undone one reopened.
  bool may_delete_conversation(qint64 id) override;
  void leave_deleted_conversation() override;
  void reopen_undeleted_conversation(qint64 id) override;
  Q_INVOKABLE QString formatBytes(double bytes) const;
  Q_INVOKABLE void setUiSetting(const QString& key, const QVariant& value);
  Q_INVOKABLE QVariant uiSetting(const QString& key, const QVariant& fallback = {}) const;
  // SettingsAccess: a setting, saved now or with the next save when the store refuses it.
  QVariant setting(const QString& key, const QVariant& fallback = {}) const override;
  void save_setting(const QString& key, const QVariant& value) override;

 signals:
  void currentConversationChanged();
  void generatingChanged();
  void lastEventChanged();
  void replyFinished();
  // A reply ended: written, stopped, refused (a full context) or dropped empty; after
  // replyFinished where that is sent.
  void replyEnded();
  void errorOccurred(const QString& message);
  void saveErrorChanged();
  void contextNoticeChanged();
  void settingsRequested();    // a banner action asks for the Settings drawer
  void openModelRequested();   // ... the "Open a GGUF model" file dialog
  void modelsPageRequested();  // ... the Models page
  void lastReplyStatsChanged();
  void conversationsChanged();  // titles or order changed: the list refreshes
  void openingChanged();
  // The messages of a conversation opened on the loader's thread are in the list now.
  void conversationOpened();
  void conversationToolsChanged();
  void toolPromptChanged();
  void toolMemoryChanged();

 private:
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
  void on_reply_opens_thinking();
  void on_reply_chunk(const QString& text);
  void on_reply_finished(const QVariantMap& stats);
  void on_reply_failed(const QString& message);
  void keep_reply_after_refused_continue();
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
  // forks_branch: an edit or a regenerate; the branch left keeps its KV in the RAM tier.
  void start_reply(bool append_row = true, qint64 seed = -1, bool continuing = false,
                   bool forks_branch = false);
  void regenerate_reply(qint64 seed);
  // A new branch of the reply at `row` (one past the last row: the answer the last
  // message lacks), then writes it.
  void regenerate_row(int row, qint64 seed);
  // The rows from `row` on again from the store's shown path (after a branch change).
  void show_stored_path_from(int row);
  // The KV snapshot on disk made to describe the branch shown (chat_replies.cpp).
  void follow_shown_branch();
  // After the message at `row` got another branch shown (an edit, ‹ 2/3 ›): when that is
  // the first user message, the title follows it unless the user named the conversation.
  void follow_first_message_title(int row);
  // A Continue in progress: the reply's stats before it (kept while streaming, merged at
  // the end); for a new reply, what is known of it while it streams (its prompt opened
  // the reasoning).
  bool continuing_ = false;
  QVariantMap reply_base_stats_;
  QVariantMap over_reply_base(const QVariantMap& stats) const;  // stats over the base
  // The worker's stats of a finished reply; a Continue's part merged into the whole
  // reply's (and the Continue ended).
  QVariantMap finished_reply_stats(const QVariantMap& part);
  // When the reply just written is a new version of the last reply and wrote nothing:
  // drops it, shows the version before it again, says `why`, ends the reply; true.
  // Otherwise false (nothing done).
  bool discard_empty_version(const QString& why);
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
  // A conversation deleted for good: its snapshot, timeline, document and notices go.
  void on_conversation_deleted(qint64 id);
  void set_generating(bool on);
  // Conversations whose shown messages come to more than this many characters are read on
  // the loader's thread (a 5 MiB text costs the window's thread ~0.15 s to read).
  static constexpr qint64 kOpenInPlaceChars = 256 * 1024;
  // The list shows `rows` (prepared or not); the rows it showed are freed on the loader's
  // thread.
  void show_messages(MessageListModel::PreparedRows rows);
  // Reads conversation `id`'s messages into the list: at once, or on the loader's thread
  // (opening() until they arrive) when they are long.
  void open_messages(qint64 id);
  void on_messages_loaded(quint64 ticket, qint64 id,
                          const QSharedPointer<MessageListModel::PreparedRows>& rows,
                          const QString& error);
  // True (and the banner says so) while the open conversation's messages are still read.
  bool refuse_while_opening();
  quint64 opening_ticket_ = 0;  // the load under way (0: none)
  quint64 next_ticket_ = 0;

  std::unique_ptr<ConversationStore> store_;
  QString store_error_;
  QString startup_notice_;
  QString save_error_;
  QVariantMap pending_settings_;  // key -> value the store refused (retried on each save)
  QString data_dir_;
  MessageListModel messages_;
  qint64 current_ = 0;
  bool generating_ = false;
  QString last_event_kind_;     // the last event's kind ("chat", "context-warning", ...)
  QString last_event_message_;  // and its message
  QVariantMap last_reply_stats_;
  QElapsedTimer since_persist_;
  // The engine sends a reply's text after every token (hundreds per second on small
  // models); the window is refreshed from it at most every kUiRefreshMs (the memory
  // figures: memory_state_'s own timer).
  QTimer ui_refresh_;
  QString pending_text_;
  void flush_to_ui();
  // The reply's text and the memory figures shown now (a reply's end).
  void flush_now();
  // Created after worker_ (the KV quality probe measures its model).
  std::unique_ptr<MemoryState> memory_state_;
  std::unique_ptr<ContextMeter> context_meter_;  // on memory_state_'s figures
  QThread engine_thread_;
  EngineWorker* worker_ = nullptr;  // lives on engine_thread_
  NoticeCenter notices_;  // before documents_ and the list, which show their messages there
  std::unique_ptr<ConversationListController> conversation_list_;
  std::unique_ptr<SystemPromptController> system_prompts_;  // after store_ and notices_
  std::unique_ptr<ModelController> models_;
  // After store_ (it shares its connection) and worker_: destroyed before them.
  std::unique_ptr<DocumentController> documents_;
  std::unique_ptr<MessageLoader> loader_;  // null without a store

  // ---- tools (chat_controller_tools.cpp) ----
  void make_tools();  // the controller and the worker's tool signals
  // The open conversation's tool choice read from its settings (or the defaults); a choice
  // made before the conversation existed is written to it instead.
  void read_conversation_tools();
  // The tool choice written to the conversation's settings (kept while there is none:
  // tools_unsaved_, written when it is created).
  void save_conversation_tools();
  ReplyTools reply_tools() const;
  // The engine told the open conversation's tools (their definitions counted for the panel).
  void offer_tools_to_engine();
  void on_tool_calls_made(const QString& text, const QVariantList& calls);
  void on_tool_call_changed(const QString& call_id, const QVariantMap& call);
  // tool_costs_ from the messages shown; toolMemoryChanged.
  void refresh_tool_costs();
  ToolResultCosts tool_costs_;  // the shown messages' tool results (tool_memory)
  std::unique_ptr<ToolsController> tools_;
  // Models page → Remote and the remote engine's memory (remote/remote_models_controller.h).
  std::unique_ptr<RemoteModelsController> remote_;
  void make_remote();
  // A model file that exists, or a remote model whose endpoint is still listed.
  bool model_available(const QString& path) const;
  QStringList tool_servers_;
  bool tools_required_ = false;
  bool tools_unsaved_ = false;
  QVariantMap tool_prompt_;
  int definition_tokens_ = 0;
  qint64 definition_kv_bytes_ = 0;

  // ---- per-model settings, model loading, a full context (chat_controller_models.cpp) ----
  void connect_model_signals();  // the worker's loading and context signals
  // The constructor's parts: the database opened (or why not), the reply's signals, the
  // sidebar's list and the system prompts, the documents half.
  void open_store();
  void connect_reply_signals();
  void make_conversation_parts();
  void make_documents();
  // The banner's actions (NoticeCenter::actionRequested): "retry", "previous", "demo",
  // "settings" (a failed load); "new_chat", "summarize", "change_policy", "retry_reply" (a
  // full context, no reply); "conversation_model", "pick_model", "models_page".
  void on_notice_action(const QString& id, const QVariantMap& chosen);
  // A reply that wrote nothing: its empty bubble is removed (the user message stays) and
  // the banner says why. True when it was empty.
  bool drop_empty_reply(const QString& why, bool context_full);
  // The banner of a full context: what happened, then (say_next) what the next message
  // meets under the policy; the meter says "full" from now on.
  void offer_context_actions(const QString& what_happened, bool say_next = true);
  void retry_unanswered();  // the last message is the user's: ask for its reply again
  void on_context_policy_applied(const QString& kind, int before, int after, int reevaluated);
  void on_conversation_summarized(const QString& summary, const ConversationSummaryStats& stats);
  void on_conversation_summary_failed(const QString& message);
  QString context_notice_;
  bool context_full_seen_ = false;  // the session refused tokens during this reply
  QString context_full_detail_;     // the prompt's tokens against the context, when known
  bool retry_after_load_ = false;   // a policy change reloads: then the reply is retried
  qint64 summarizing_from_ = 0;     // the conversation being summarized into a new one
};

}  // namespace kvchat::app
