// EngineWorker, a reply that calls tools (kvchat/tool_loop.h): the tools set on the
// conversation, each call shown (toolCallsMade), asked for (toolPromptRequested: the
// worker waits for answer_tool_prompt, Esc answers), run on its MCP server, its result
// shown (toolCallFinished) and read by the model, and the reply going on.
#include <QCoreApplication>

#include <chrono>

#include "engine/engine_worker.h"
#include "kvchat/mcp_toolbox.h"
#include "kvchat/tool_loop.h"
#include "tools/tool_steps.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

// What Always allow remembers of a function's tool (always_allow_key).
QString tool_key(const McpToolbox::Function& f) {
  return always_allow_key(qstr(f.server), qstr(f.tool));
}

}  // namespace

void EngineWorker::request_stop() {
  stop_.store(true);
  const std::lock_guard<std::mutex> lock(prompt_mutex_);
  prompt_cv_.notify_all();
}

void EngineWorker::answer_tool_prompt(ToolPromptAnswer answer) {
  const std::lock_guard<std::mutex> lock(prompt_mutex_);
  if (!prompt_waiting_) return;
  prompt_answer_ = answer;
  prompt_cv_.notify_all();
}

std::optional<ToolPromptAnswer> EngineWorker::ask_tool_prompt(const QVariantMap& prompt) {
  std::unique_lock<std::mutex> lock(prompt_mutex_);
  prompt_waiting_ = true;
  prompt_answer_.reset();
  lock.unlock();
  emit toolPromptRequested(prompt);
  lock.lock();
  prompt_cv_.wait(lock, [&] { return prompt_answer_.has_value() || stop_.load(); });
  prompt_waiting_ = false;
  if (stop_.load()) return std::nullopt;
  return prompt_answer_;
}

void EngineWorker::set_tools(const ReplyTools& tools) {
  tools_ = tools;
  if (!conversation_) return;
  ToolRequest request;
  if (tools.active()) request.tools = tools.toolbox->definitions(tools.servers);
  request.choice.mode = tools.choice;
  // One call per reply: each is asked for and its result read before the model goes on
  // (a small model's array of calls runs on until the context is full).
  request.parallel = false;
  conversation_->set_tools(std::move(request));
  const int32_t tokens = conversation_->tool_definition_tokens();
  emit toolDefinitionsCounted(
      tokens, static_cast<qint64>(tokens) *
                  static_cast<qint64>(conversation_->session().memory_report().kv_bytes_per_token));
}

Result<ConversationReply> EngineWorker::reply_with_tool_calls(const GenerateOptions& options,
                                                              const ReplyCallbacks& callbacks) {
  const std::shared_ptr<const McpToolbox> toolbox = tools_.toolbox;
  QSet<QString> allowed = tools_.always_allowed;
  QHash<QString, QVariantMap> calls;  // by id: the maps shown, as they change

  ToolLoopCallbacks loop_callbacks;
  loop_callbacks.reply = callbacks;
  loop_callbacks.on_reply = [&](const ConversationReply& reply) {
    if (reply.tool_calls.empty()) return;
    QVariantList made;
    for (const ToolCall& call : reply.tool_calls) {
      const auto function = toolbox->find(call.name);
      QVariantMap m = function ? tool_call_map(call, qstr(function->server), qstr(function->tool))
                               : tool_call_map(call);
      calls.insert(qstr(call.id), m);
      made.append(m);
    }
    emit toolCallsMade(qstr(reply.answer_text), made);
  };
  loop_callbacks.consent = [&](const ToolCall& call) {
    const QString id = qstr(call.id);
    const auto function = toolbox->find(call.name);
    if (function && allowed.contains(tool_key(*function))) return ToolConsent::AllowOnce;
    QVariantMap& shown = calls[id];
    shown.insert(QStringLiteral("state"), QStringLiteral("asking"));
    const auto answer = ask_tool_prompt(
        {{QStringLiteral("kind"), QStringLiteral("consent")}, {QStringLiteral("call"), shown}});
    if (!answer || *answer == ToolPromptAnswer::Deny || *answer == ToolPromptAnswer::Stop)
      return ToolConsent::Deny;
    if (*answer == ToolPromptAnswer::AlwaysAllow && function) allowed.insert(tool_key(*function));
    return *answer == ToolPromptAnswer::AlwaysAllow ? ToolConsent::AllowAlways
                                                    : ToolConsent::AllowOnce;
  };
  loop_callbacks.on_call = [&](const ToolCall& call) {
    calls[qstr(call.id)].insert(QStringLiteral("state"), QStringLiteral("running"));
    emit toolCallStarted(qstr(call.id));
  };
  loop_callbacks.on_result = [&](const ToolRun& run) {
    const QString id = qstr(run.call.id);
    const QVariantMap done = tool_run_map(calls.value(id, tool_call_map(run.call)), run);
    calls.insert(id, done);
    emit toolCallFinished(done);
    report_memory();
  };
  loop_callbacks.on_limit = [&](int calls_so_far) {
    const auto answer = ask_tool_prompt({{QStringLiteral("kind"), QStringLiteral("limit")},
                                         {QStringLiteral("calls"), calls_so_far}});
    return answer && *answer == ToolPromptAnswer::GoOn;
  };

  ToolLoopOptions loop;
  loop.max_calls = std::max(1, tools_.max_calls);
  loop.max_result_tokens = std::max(1, tools_.max_result_tokens);
  auto result = reply_with_tools(*conversation_, options, loop, toolbox->runner(), loop_callbacks);
  if (!result) return result.error();
  if (result->replies.empty()) return Error{"the reply ended before it began"};
  return std::move(result->replies.back());
}

}  // namespace kvchat::app
