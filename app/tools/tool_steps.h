// A reply's tool calls as the window keeps them (StoredMessage::tool_steps, the messages
// table's tool_steps_json): a list of steps, one per reply of the model that made calls,
// in order. Each step is a map:
//   text   the text the model wrote before its calls ("" most often)
//   calls  the calls, each a map:
//     id, name, arguments   as the model made it (name: the function; arguments: JSON text)
//     server, tool          who runs it (the MCP server and its tool's own name)
//     state                 "waiting" (made, not asked yet), "asking" (consent asked),
//                           "running", "done", "denied", "failed" (could not run, or the
//                           tool reported an error), "stopped" (Esc before it ran)
//     result                what the model read (cut and said when too long)
//     result_tokens, original_tokens, cut_note, kv_bytes, seconds   (kvchat::ToolRun)
// Qt Core only; no state.
#pragma once

#include <QString>
#include <QVariantList>
#include <QVariantMap>

#include "engine/worker_values.h"
#include "store/conversation_store.h"
#include "kvchat/tool_loop.h"

namespace kvchat::app {

// A call the model made, state "waiting" (server and tool: who runs it; may be empty).
QVariantMap tool_call_map(const ToolCall& call, const QString& server = {},
                          const QString& tool = {});
// `call` after it ran (or was denied, or stopped): state, result and its costs.
QVariantMap tool_run_map(const QVariantMap& call, const ToolRun& run);
// The steps as conversation turns: per step the assistant's text with its calls, then one
// tool turn per call (its result).
void append_tool_turns(const QVariantList& steps, ChatTurns& turns);
// The call with id `call_id` in `steps` set to `call` (true), or nothing found (false).
bool replace_tool_call(QVariantList& steps, const QString& call_id, const QVariantMap& call);
// A call's state set (the call found by id); false when it is not there.
bool set_tool_call_state(QVariantList& steps, const QString& call_id, const QString& state);
// What Always allow remembers of a tool: "server/tool" (Settings → Tools revokes it).
inline QString always_allow_key(const QString& server, const QString& tool) {
  return server + QLatin1Char('/') + tool;
}
// JSON text indented for reading (the text itself when it is not JSON).
QString pretty_json(const QString& json);
// The steps in Markdown for an export: each step's text, then per call its name, its
// arguments and its result as fenced blocks (state said when it did not run).
QString tool_steps_markdown(const QVariantList& steps);
// What a call's state means, in the window's words ("denied", ...) for an export.
QString tool_call_state_words(const QString& state);

// What a conversation's tool results hold in the context (the memory panel): one row per
// call of the shown messages, {message_row, name, tokens, kv_bytes, cut_note, state}, and
// their totals.
struct ToolResultCosts {
  QVariantList rows;
  qint64 tokens = 0;
  qint64 kv_bytes = 0;
};
ToolResultCosts tool_result_costs(const QVector<StoredMessage>& messages);

}  // namespace kvchat::app
