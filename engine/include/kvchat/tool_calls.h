// Tool calls (OpenAI's `tools`): which call format a chat template's model writes, the
// prompt that offers the tools, the grammar that keeps a call well-formed, and the
// parser that turns the reply's text into calls. Written once here for every front end
// (the local server maps OpenAI's fields onto it).
//
// Formats, by the markers the template uses:
//   Hermes   <tool_call>{"name": N, "arguments": {...}}</tool_call>, one block per call
//            (Hermes 2 Pro, Qwen 2.5, Qwen 3)
//   Llama3   {"name": N, "parameters": {...}}, optionally after <|python_tag|> (Llama 3.1-3.3)
//   Mistral  [TOOL_CALLS][{"name": N, "arguments": {...}, "id": "abcdefghi"}, ...]
//   Generic  templates without a call format (and built-in formats): the tools are
//            described in the system prompt and the reply is one JSON object,
//            {"tool_calls": [{"name": N, "arguments": {...}}, ...]} or {"response": "text"}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/chat_template.h"
#include "kvchat/generate.h"
#include "kvchat/result.h"

namespace kvchat {

enum class ToolCallFormat { Generic, Hermes, Llama3, Mistral };
std::string_view tool_call_format_name(ToolCallFormat format);
// The format a chat format's model writes its calls in (Generic for built-in formats and
// templates without a known one).
ToolCallFormat detect_tool_call_format(const ChatFormat& format);

// One function the model may call (OpenAI's tools[i].function).
struct ToolDefinition {
  std::string name;             // [a-zA-Z0-9_-]{1,64}
  std::string description;      // "" = none
  std::string parameters_json;  // a JSON Schema of the arguments object
  bool strict = false;
};

enum class ToolChoiceMode { Auto, None, Required, Named };
struct ToolChoice {
  ToolChoiceMode mode = ToolChoiceMode::Auto;
  std::string name;  // Named: the function
};

struct ToolRequest {
  std::vector<ToolDefinition> tools;
  ToolChoice choice;
  bool parallel = true;  // parallel_tool_calls: several calls in one reply
  // Whether the model may call a tool at all (tools offered, and choice is not none).
  bool active() const { return !tools.empty() && choice.mode != ToolChoiceMode::None; }
};

// OpenAI's tools array for the template's `tools` variable ([{"type": "function",
// "function": {name, description, parameters}}]).
std::string tools_json(const std::vector<ToolDefinition>& tools);

// The prompt for a conversation that offers tools: through the template's `tools`
// variable for a format that has one; for Generic the tools and the JSON answer's shape
// are said in the system prompt, earlier calls written as that JSON and tool results as
// user messages. Without active tools: format.render(system, messages), with the earlier
// calls and results still rendered.
Result<std::string> render_with_tools(const ChatFormat& format, std::string_view system,
                                      const std::vector<ChatMessage>& messages,
                                      const ToolRequest& request, ToolCallFormat call_format);

// What constrains a reply (GenerateOptions' grammar fields): a grammar, applied from the
// first token or lazily from a trigger; for a response format, a grammar alone.
struct ReplyConstraint {
  std::shared_ptr<const grammar::Grammar> grammar;  // null: none (no active tools)
  std::vector<GrammarTrigger> triggers;             // empty: the grammar applies from the start
  std::vector<std::string> special_tokens;          // markers that count as their text
};
// The constraint that keeps calls well-formed, their arguments instances of each tool's
// schema: from the first token for Generic and for required or named choices, lazily from
// the format's call marker for an auto choice (the model may answer in words first). A
// schema the converter does not support is an error naming it.
Result<ReplyConstraint> tool_call_constraint(const ToolRequest& request,
                                             ToolCallFormat call_format);
// The constraint set into `options` (grammar, triggers, special tokens).
void apply_constraint(const ReplyConstraint& constraint, GenerateOptions& options);
// For a reply that starts inside the model's reasoning (the prompt opened it: DeepSeek R1's
// templates): a grammar that would apply from the first token applies after the reasoning's
// end marker instead, so that the reasoning stays free and the answer is what the grammar
// shapes (else the whole constrained text would be taken for reasoning).
void defer_past_reasoning(std::vector<GrammarTrigger>& triggers, const ReasoningMarkers& markers);

// A reply split into its text and its calls (ids not set: see new_tool_call_id). Text that
// only looks like a call (not JSON, no name) stays text.
struct ToolCallReply {
  std::string content;
  std::vector<ToolCall> calls;
};
ToolCallReply parse_tool_calls(std::string_view text, ToolCallFormat call_format);

// A new call id: "call_" and 24 letters or digits; for Mistral 9 letters or digits (its
// template requires them).
std::string new_tool_call_id(ToolCallFormat call_format, uint64_t& rng_state);
// Every call of a parsed reply given its id: a new one, except the id a Mistral model
// wrote itself (its template refers back to it).
void assign_tool_call_ids(std::vector<ToolCall>& calls, ToolCallFormat call_format,
                          uint64_t& rng_state);

// Streaming: the reply's text up to where a call may begin is shown as it comes; from
// there on it is held and parsed when the reply ends.
class ToolCallStream {
 public:
  explicit ToolCallStream(ToolCallFormat call_format) : format_(call_format) {}
  // The text that is certainly not part of a call, to show now ("" while held).
  std::string feed(std::string_view piece);
  // The rest: the text not yet shown and the calls.
  ToolCallReply finish();

 private:
  ToolCallFormat format_;
  std::string held_;  // text from a possible call's start
  bool holding_all_ = false;
  bool started_ = false;  // some non-space text seen
};

}  // namespace kvchat
