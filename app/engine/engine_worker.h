// EngineWorker: owns the model and the chat's engine Conversation (its Session); lives on
// its own QThread. Qt glue only: the conversation logic (template, token checkpoints,
// prefix reuse, context policy) is kvchat::Conversation's. Summary jobs run elsewhere
// (documents/summary_worker.h) on sessions of their own.
// Requests arrive as queued slot calls; results leave as signals, which Qt delivers
// queued to receivers on the GUI thread. Stop is an atomic flag any thread may set.
#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/worker_values.h"
#include "kvchat/chat_format.h"
#include "kvchat/conversation.h"
#include "kvchat/session.h"

namespace kvchat {
class McpToolbox;
class Model;
class RemoteClient;
}  // namespace kvchat

namespace kvchat::app {

// The tools a reply may call (app/tools/tools_controller.h makes it): the functions of
// `servers` on `toolbox`, each call run only with the user's consent (toolPromptRequested)
// unless its "server/tool" is in always_allowed.
struct ReplyTools {
  std::shared_ptr<const McpToolbox> toolbox;  // null or no servers: no tools offered
  std::vector<std::string> servers;
  ToolChoiceMode choice = ToolChoiceMode::Auto;  // Auto or Required
  int max_calls = 8;                             // in a row before the user is asked again
  int max_result_tokens = 8000;                  // a longer result is cut, and the cut said
  QSet<QString> always_allowed;                  // "server/tool"
  bool active() const { return toolbox && !servers.empty(); }
};

// The user's answer to a tool prompt (EngineWorker::answer_tool_prompt).
enum class ToolPromptAnswer { Allow, AlwaysAllow, Deny, GoOn, Stop };

class EngineWorker : public QObject {
  Q_OBJECT
 public:
  explicit EngineWorker(QObject* parent = nullptr);
  ~EngineWorker() override;

  // Thread-safe: asks a running generation (or load) to stop after the current token.
  void request_stop();
  // Thread-safe: answers the prompt toolPromptRequested asked (the worker waits for it; a
  // stop answers Deny / Stop). An answer with no prompt waiting is dropped.
  void answer_tool_prompt(ToolPromptAnswer answer);
  // Thread-safe: cancels the model load in progress (or the next one, if none is).
  void request_cancel_load() { cancel_load_.store(true); }
  // Thread-safe: the loaded model (immutable, shareable), for tokenizing off the GUI
  // thread; null before the first load.
  std::shared_ptr<const Model> shared_model() const;
  // Thread-safe: how the loaded model's conversations become prompts (its own template,
  // the user's override, or a built-in format); empty before the first load. Valid while
  // the model from shared_model() is held.
  std::optional<ChatFormat> chat_format() const;
  // Thread-safe: the options the chat's session was created with (a summary job's
  // session uses the same); defaults before the first load.
  SessionOptions session_options() const;
  // Thread-safe: the tokens of a summary step's prompt besides its text with the engine's
  // instructions (kvchat::summary_prompt_overhead), tokenized on this thread when the
  // model loads; 0 before the first load.
  int32_t summary_prompt_overhead() const;

 public slots:
  // On failure the previous model stays loaded and usable. A remote model's path
  // (remote/remote_model_path.h) opens its endpoint instead (engine_worker_remote.cpp): the
  // local model, its session and its KV in the RAM tier are then released.
  void loadModel(const ModelLoadRequest& request);
  // Replaces the loaded model's chat format by `override_text` (as in loadModel) with the
  // template's enable_thinking switch ("" its default, "on", "off"); emits
  // chatFormatChanged, or chatFormatFailed with the reason while the old one stays.
  void setChatTemplateOverride(const QString& override_text, const QString& enable_thinking = {});
  // messages: the conversation, the last one the user's; system_prompt may be empty. The
  // conversation is rendered with the model's chat template and only what differs from
  // the cache is evaluated.
  // fork_prefix: an edit or a regenerate (a new branch) of the conversation whose RAM tier
  // keys start so: the branch it leaves waits in the tier first (park_branch_before_fork).
  // tools: the tools offered (the reply goes on through each call, kvchat/tool_loop.h;
  // the signals tool* follow it). They stay set for the later requests until the next
  // generate() or continueReply() sets others.
  void generate(const ChatTurns& messages, const QString& system_prompt,
                const ReplySampling& sampling, const QString& fork_prefix = {},
                const kvchat::app::ReplyTools& tools = {});
  // Continue: `messages` as in generate() but the last one is the assistant's reply (cut
  // at the length limit, or stopped); more of it is generated (Conversation::
  // continue_reply) and streamed like a reply. replyFinished's stats are this part's.
  void continueReply(const ChatTurns& messages, const QString& system_prompt,
                     const ReplySampling& sampling, const kvchat::app::ReplyTools& tools = {});
  // The tools offered from now on (as generate() sets them): emits toolDefinitionsCounted,
  // evaluates nothing.
  void setTools(const kvchat::app::ReplyTools& tools) { set_tools(tools); }
  // Re-evaluates nothing; emits memoryReport() for the current state.
  void reportMemory();
  // Saves the session's KV state (tokens, cache, logits) to `path`: appends what changed
  // since the last save to its journal. Then evicts the least recently used snapshots
  // in its directory down to budget_bytes (0: no budget; never `path` itself) and emits
  // snapshotDiskUsage().
  void saveSnapshot(const QString& path, qint64 budget_bytes = 0);
  // Restores a snapshot instead of re-evaluating; on any mismatch the cache is cleared
  // and the next generate() re-evaluates (snapshotRestored says which happened).
  void restoreSnapshot(const QString& path);
  // Empties the cache (a conversation without a usable snapshot was opened).
  void clearSession();
  // Another conversation is opened (memory/ram_tier.h keys): what the session holds is
  // parked in the app's RAM tier under `leave_prefix` (a "c<id>/" prefix; empty: nothing
  // is kept), then the KV last parked under `enter_prefix` comes back from RAM (0 tokens
  // evaluated; emits kvResumedFromRam) or, when the tier no longer holds it, from its
  // snapshot at `path` as restoreSnapshot() does (an empty path: the session stays empty).
  void switchConversation(const QString& leave_prefix, const QString& enter_prefix,
                          const QString& path);
  // A conversation is deleted: its entries leave the RAM tier.
  void forgetConversation(const QString& prefix);
  // Another branch of the conversation is shown (`messages` as in generate(), its last one
  // may be a reply): the session keeps only the prefix its tokens share with that branch's
  // (nothing is evaluated; the next reply evaluates the rest) and the snapshot at `path`
  // is saved from that (removed when nothing is shared), so that reopening the
  // conversation never restores the other branch as if it were this one. Emits
  // branchFollowed with the tokens kept.
  // The branch left is parked in the app's RAM tier under `prefix` (the conversation's), and
  // the branch shown comes back from it whole when the tier holds it (0 tokens evaluated).
  void followBranch(const ChatTurns& messages, const QString& system_prompt, const QString& path,
                    qint64 budget_bytes, const QString& prefix);
  // The number of tokens `messages` (as in generate) after `system_prompt` come to with
  // the loaded model's format, the reply's turn opened (the document preview's
  // conversation share): counted here, off the GUI thread, with the conversation's own
  // token checkpoints; nothing is evaluated. Answers with conversationTokensCounted(key).
  void countConversationTokens(const ChatTurns& messages, const QString& system_prompt,
                               const QString& key);
  // Summarizes `messages` (as in generate) after `system_prompt` with kvchat::summarize
  // on a session of its own (the chat's cache stays as it is): the conversation as a
  // transcript, "User: ..." / "Assistant: ...", chunked and merged when it is longer than
  // the context. request_stop() cancels. Answers with conversationSummarized or
  // conversationSummaryFailed.
  void summarizeConversation(const ChatTurns& messages, const QString& system_prompt);

 signals:
  void modelLoaded(const LoadedModel& model);
  void modelLoadFailed(const QString& message);
  // The model file was read and is what `facts` says, before the settings are checked
  // against it and the session created.
  void modelInspected(const QString& path, const ModelFacts& facts);
  // A context policy made room: kind "turns-dropped" or "context-shifted", the tokens
  // held before and after, and how many were evaluated again.
  void contextPolicyApplied(const QString& kind, int tokens_before, int tokens_after,
                            int tokens_reevaluated);
  void conversationSummarized(const QString& summary, const ConversationSummaryStats& stats);
  void conversationSummaryFailed(const QString& message);
  void chatFormatChanged(const ChatFormatInfo& format);
  void chatFormatFailed(const QString& message);
  void loadProgress(double fraction);  // weights read into memory, 0..1
  void replyStarted();
  void replyChunk(const QString& text);  // complete UTF-8 characters
  // After the prompt, before the first chunk: its template opened the reply's reasoning
  // (DeepSeek-R1's ends "<think>\n"), so the text that follows starts inside it.
  void replyOpensThinking();
  void replyFinished(const ReplyStats& stats);
  void replyFailed(const QString& message);
  // Before replyFailed when the conversation's prompt does not fit the context (under any
  // policy: `stop` refuses it, and no policy can make room for a single turn that long).
  void replyContextFull(int prompt_tokens, int n_ctx);
  void memoryReport(const MemoryFigures& figures);  // after every token
  void sessionEvent(const QString& kind, const QString& message);
  void snapshotSaved(const QString& path, qint64 bytes);
  void branchFollowed(int kept_tokens);
  // The KV of the conversation (or branch) shown came back from the RAM tier: `tokens`
  // held, none evaluated.
  void kvResumedFromRam(int tokens);
  // restored: true when the KV state came from the file; false with the reason why not.
  // (restored with a non-empty reason: a damaged tail of the journal was ignored.)
  void snapshotRestored(bool restored, qint64 bytes, const QString& reason);
  // tokens: -1 with the reason in `error` when the template refuses the conversation.
  void conversationTokensCounted(const QString& key, qint64 tokens, const QString& error);
  // An engine failure outside a request that has its own failure signal.
  void engineError(const QString& message);
  // After a save or restore.
  void snapshotDiskUsage(const SnapshotDiskUsage& usage);

  // ---- a reply with tools (engine_worker_tools.cpp; app/tools/tool_steps.h's maps) ----
  // The offered tools' definitions take `tokens` of the prompt, `kv_bytes` of the cache
  // (after every generate(), 0 without tools).
  void toolDefinitionsCounted(int tokens, qint64 kv_bytes);
  // A reply made calls: the text it wrote before them and the calls (state "waiting").
  void toolCallsMade(const QString& text, const QVariantList& calls);
  // The worker waits for answer_tool_prompt(): {kind: "consent", call: the call's map} or
  // {kind: "limit", calls: how many ran in a row}.
  void toolPromptRequested(const QVariantMap& prompt);
  void toolCallStarted(const QString& call_id);    // consented, running
  void toolCallFinished(const QVariantMap& call);  // ran, denied or stopped: its map

 private:
  // Emits memoryReport. The RAM tier is measured again unless !measure_tier (after each
  // token: measuring walks every entry's blocks), which sends its last figures.
  void report_memory(bool measure_tier = true);
  // generate() and continueReply(): the same streaming and stats.
  void run_reply(const ChatTurns& messages, const QString& system_prompt,
                 const ReplySampling& sampling, bool continuing);
  // The tools set on the conversation (its prompt offers them); toolDefinitionsCounted.
  void set_tools(const ReplyTools& tools);
  // reply_with_tools with the prompts and signals above; what the last reply was.
  Result<ConversationReply> reply_with_tool_calls(const GenerateOptions& options,
                                                  const ReplyCallbacks& callbacks);
  // Emits `prompt` and waits for its answer (or a stop: nullopt).
  std::optional<ToolPromptAnswer> ask_tool_prompt(const QVariantMap& prompt);
  // ---- a remote model (engine_worker_remote.cpp) ----
  void load_remote(const ModelLoadRequest& request);
  // A reply streamed from the endpoint (kvchat/remote_client.h) with the signals of a local
  // one: its reasoning inside <think> markers, as a local thinking model writes it.
  void run_remote_reply(const ChatTurns& messages, const QString& system_prompt,
                        const ReplySampling& sampling, bool continuing);
  std::unique_ptr<RemoteClient> remote_;  // set while a remote model is loaded
  std::string remote_model_;
  ReplyTools tools_;  // the tools set (set_tools)
  std::mutex prompt_mutex_;
  std::condition_variable prompt_cv_;
  bool prompt_waiting_ = false;                    // guarded by prompt_mutex_
  std::optional<ToolPromptAnswer> prompt_answer_;  // guarded by prompt_mutex_
  void report_snapshot_disk(const QString& path, qint64 budget_bytes, bool saved);

  std::shared_ptr<const Model> model_;
  std::optional<ChatFormat> format_;     // model_'s; guarded by model_mutex_ like model_
  SessionOptions session_options_;       // guarded by model_mutex_
  int32_t summary_prompt_overhead_ = 0;  // model_'s; guarded by model_mutex_
  // The chat: its messages, token checkpoints and session (prefix reuse, context policy).
  std::unique_ptr<Conversation> conversation_;
  uint64_t parked_branches_ = 0;     // numbers the RAM tier keys of branches left
  KvRamTierStats ram_tier_;          // the tier's figures at its last measure
  QList<qint64> ram_conversations_;  // ... and the conversations it held
  std::atomic<bool> stop_{false};
  std::atomic<bool> cancel_load_{false};
  mutable std::mutex model_mutex_;  // guards model_ against shared_model() readers
};

}  // namespace kvchat::app
