// ChatController, tools in the chat (issue 47): the servers a conversation offers (in its
// settings, none by default), a reply's calls shown in its bubble as they are made, asked
// for, run and answered (tool_steps.h), the consent and the limit answered from the
// window, and what the tools hold in the context for the memory panel.
#include "chat/chat_controller.h"
#include "engine/engine_worker.h"
#include "tools/tool_steps.h"

namespace kvchat::app {

namespace {
const QString kServersKey = QStringLiteral("tool_servers");
const QString kRequiredKey = QStringLiteral("tools_required");
}  // namespace

void ChatController::make_tools() {
  tools_ = std::make_unique<ToolsController>(data_dir_, *this);
  connect(this, &ChatController::currentConversationChanged, this,
          &ChatController::read_conversation_tools);
  connect(worker_, &EngineWorker::toolDefinitionsCounted, this, [this](int tokens, qint64 bytes) {
    definition_tokens_ = tokens;
    definition_kv_bytes_ = bytes;
    emit toolMemoryChanged();
  });
  connect(worker_, &EngineWorker::toolCallsMade, this, &ChatController::on_tool_calls_made);
  connect(worker_, &EngineWorker::toolPromptRequested, this, [this](const QVariantMap& prompt) {
    tool_prompt_ = prompt;
    if (prompt.value(QStringLiteral("kind")).toString() == QLatin1String("consent")) {
      const QVariantMap call = prompt.value(QStringLiteral("call")).toMap();
      on_tool_call_changed(call.value(QStringLiteral("id")).toString(), call);
    }
    emit toolPromptChanged();
  });
  connect(worker_, &EngineWorker::toolCallStarted, this, [this](const QString& id) {
    QVariantList steps =
        messages_.items().isEmpty() ? QVariantList() : messages_.items().back().tool_steps;
    if (set_tool_call_state(steps, id, QStringLiteral("running")))
      messages_.set_last_tool_steps(steps, messages_.items().back().content);
  });
  connect(worker_, &EngineWorker::toolCallFinished, this, [this](const QVariantMap& call) {
    on_tool_call_changed(call.value(QStringLiteral("id")).toString(), call);
    persist_reply(MessageState::Streaming, {});
  });
  // A prompt still shown when the reply ends (Esc, a failure) is answered by that.
  connect(this, &ChatController::generatingChanged, this, [this] {
    if (generating_ || tool_prompt_.isEmpty()) return;
    tool_prompt_.clear();
    emit toolPromptChanged();
  });
  // The results' costs follow the messages shown (a conversation opened, a branch shown, a
  // call's result come), not every memory report.
  connect(&messages_, &QAbstractItemModel::modelReset, this, &ChatController::refresh_tool_costs);
  connect(&messages_, &QAbstractItemModel::rowsInserted, this, &ChatController::refresh_tool_costs);
  connect(&messages_, &QAbstractItemModel::rowsRemoved, this, &ChatController::refresh_tool_costs);
  connect(&messages_, &QAbstractItemModel::dataChanged, this,
          [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
            if (roles.isEmpty() || roles.contains(MessageListModel::ToolStepsRole))
              refresh_tool_costs();
          });
  // The panel counts the definitions before the next reply: when the choice changes, a
  // server (re)starts, the model loads.
  connect(this, &ChatController::conversationToolsChanged, this,
          &ChatController::offer_tools_to_engine);
  connect(tools_.get(), &ToolsController::serversChanged, this,
          &ChatController::offer_tools_to_engine);
  connect(models_.get(), &ModelController::modelChanged, this,
          &ChatController::offer_tools_to_engine);
  connect(memory_state_.get(), &MemoryState::memoryChanged, this,
          &ChatController::toolMemoryChanged);
}

void ChatController::read_conversation_tools() {
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  if (c && tools_unsaved_) {  // chosen before the first message created it
    save_conversation_tools();
    return;
  }
  tool_servers_ = c ? c->settings.value(kServersKey).toStringList() : QStringList();
  tools_required_ = c && c->settings.value(kRequiredKey).toBool();
  definition_tokens_ = 0;
  definition_kv_bytes_ = 0;
  emit conversationToolsChanged();
  emit toolMemoryChanged();
}

void ChatController::save_conversation_tools() {
  const auto c = store_ && current_ ? store_->conversation(current_) : std::nullopt;
  tools_unsaved_ = !c;  // written when the conversation is created
  if (!c) return;
  QVariantMap settings = c->settings;
  settings.insert(kServersKey, tool_servers_);
  settings.insert(kRequiredKey, tools_required_);
  QString error;
  if (!store_->set_conversation_settings(current_, settings, &error))
    emit errorOccurred(tr("The conversation's tools were not saved: %1").arg(error));
}

void ChatController::setConversationToolServer(const QString& name, bool offered) {
  if (offered == tool_servers_.contains(name)) return;
  if (offered)
    tool_servers_ << name;
  else
    tool_servers_.removeAll(name);
  save_conversation_tools();
  emit conversationToolsChanged();
}

void ChatController::setConversationToolsRequired(bool required) {
  if (required == tools_required_) return;
  tools_required_ = required;
  save_conversation_tools();
  emit conversationToolsChanged();
}

ReplyTools ChatController::reply_tools() const {
  return tools_->reply_tools(tool_servers_, tools_required_);
}

void ChatController::offer_tools_to_engine() {
  if (generating_ || !models_->loaded()) return;  // a reply sets its own
  QMetaObject::invokeMethod(
      worker_, [w = worker_, tools = reply_tools()] { w->setTools(tools); }, Qt::QueuedConnection);
}

void ChatController::answerToolPrompt(const QString& answer) {
  if (tool_prompt_.isEmpty()) return;
  static const QHash<QString, ToolPromptAnswer> answers = {
      {QStringLiteral("allow"), ToolPromptAnswer::Allow},
      {QStringLiteral("always"), ToolPromptAnswer::AlwaysAllow},
      {QStringLiteral("deny"), ToolPromptAnswer::Deny},
      {QStringLiteral("go_on"), ToolPromptAnswer::GoOn},
      {QStringLiteral("stop"), ToolPromptAnswer::Stop}};
  const auto it = answers.find(answer);
  if (it == answers.end()) return;
  if (*it == ToolPromptAnswer::AlwaysAllow) {
    const QVariantMap call = tool_prompt_.value(QStringLiteral("call")).toMap();
    tools_->allowToolAlways(always_allow_key(call.value(QStringLiteral("server")).toString(),
                                             call.value(QStringLiteral("tool")).toString()));
  }
  tool_prompt_.clear();
  emit toolPromptChanged();
  worker_->answer_tool_prompt(*it);
}

void ChatController::on_tool_calls_made(const QString& text, const QVariantList& calls) {
  flush_now();
  if (messages_.items().isEmpty()) return;
  // What the reply wrote before its calls moves into their step; the text after the
  // results starts again.
  QVariantList steps = messages_.items().back().tool_steps;
  steps.append(QVariantMap{{QStringLiteral("text"), text}, {QStringLiteral("calls"), calls}});
  messages_.set_last_tool_steps(steps, QString());
  persist_reply(MessageState::Streaming, {});
}

void ChatController::on_tool_call_changed(const QString& call_id, const QVariantMap& call) {
  if (messages_.items().isEmpty()) return;
  QVariantList steps = messages_.items().back().tool_steps;
  if (replace_tool_call(steps, call_id, call))
    messages_.set_last_tool_steps(steps, messages_.items().back().content);
}

void ChatController::refresh_tool_costs() {
  tool_costs_ = tool_result_costs(messages_.items());
  emit toolMemoryChanged();
}

QVariantMap ChatController::tool_memory() const {
  const ToolResultCosts& results = tool_costs_;
  const QVariantMap memory = memory_state_->memory();
  const qint64 free_tokens = memory.value(QStringLiteral("kv_max_tokens")).toLongLong() -
                             memory.value(QStringLiteral("kv_tokens")).toLongLong();
  const int limit = tools_->max_result_tokens();
  const bool offered = !tool_servers_.isEmpty();
  return {{QStringLiteral("offered"), offered},
          {QStringLiteral("definition_tokens"), definition_tokens_},
          {QStringLiteral("definition_kv_bytes"), definition_kv_bytes_},
          {QStringLiteral("results"), results.rows},
          {QStringLiteral("result_tokens"), results.tokens},
          {QStringLiteral("result_kv_bytes"), results.kv_bytes},
          {QStringLiteral("max_result_tokens"), limit},
          {QStringLiteral("free_tokens"), free_tokens},
          {QStringLiteral("warning"),
           offered && memory.contains(QStringLiteral("kv_max_tokens")) && free_tokens < limit}};
}

}  // namespace kvchat::app
