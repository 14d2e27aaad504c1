// Tool calls, the grammar side: every call the model writes is one of the offered tools
// by name, with arguments that are an instance of that tool's parameters schema, in the
// format's wrapping. Rules of the tools' schemas are prefixed per tool ("tool3-args-...")
// and the JSON primitives they share are written once.
#include <map>
#include <sstream>

#include "grammar/json_schema.h"
#include "kvchat/grammar.h"
#include "kvchat/tool_calls.h"

namespace kvchat {

namespace {

// Adds the "name ::= body" lines of a converted schema; a primitive seen before is kept once.
void merge_rules(const std::string& gbnf, std::map<std::string, std::string>& rules) {
  std::istringstream lines(gbnf);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t sep = line.find(" ::= ");
    if (sep == std::string::npos) continue;
    rules.emplace(line.substr(0, sep), line.substr(sep + 5));
  }
}

// One call of `tool` ({"name": "<name>", "<args_key>": <arguments>}), its arguments' rule
// already merged under `args_rule`.
std::string call_body(const ToolDefinition& tool, const std::string& args_key,
                      const std::string& args_rule) {
  return "\"{\" tc-ws " + grammar::gbnf_literal("\"name\"") + " tc-ws \":\" tc-ws " +
         grammar::gbnf_literal("\"" + tool.name + "\"") + " tc-ws \",\" tc-ws " +
         grammar::gbnf_literal("\"" + args_key + "\"") + " tc-ws \":\" tc-ws " + args_rule +
         " tc-ws \"}\"";
}

// At most this many calls in one reply: a model that keeps calling still ends.
constexpr int kMaxParallelCalls = 16;

// "one ( sep one ){0,15}" when parallel, else "one".
std::string repeated(const std::string& one, const std::string& sep, bool parallel) {
  if (!parallel) return one;
  return one + " ( " + sep + " " + one + " ){0," + std::to_string(kMaxParallelCalls - 1) + "}";
}

// The format's root over the rule tc-call (one call).
std::string root_rule(ToolCallFormat format, const ToolRequest& r) {
  switch (format) {
    case ToolCallFormat::Hermes:
      return repeated("\"<tool_call>\" tc-ws tc-call tc-ws \"</tool_call>\"", "tc-ws", r.parallel);
    case ToolCallFormat::Mistral:
      return "\"[TOOL_CALLS]\"? \"[\" tc-ws " +
             repeated("tc-call", "tc-ws \",\" tc-ws", r.parallel) + " tc-ws \"]\"";
    case ToolCallFormat::Llama3: return "\"<|python_tag|>\"? tc-call";
    case ToolCallFormat::Generic: {
      std::string calls = "\"{\" tc-ws " + grammar::gbnf_literal("\"tool_calls\"") +
                          " tc-ws \":\" tc-ws \"[\" tc-ws " +
                          repeated("tc-call", "tc-ws \",\" tc-ws", r.parallel) +
                          " tc-ws \"]\" tc-ws \"}\"";
      if (r.choice.mode != ToolChoiceMode::Auto) return calls;
      return calls + " | \"{\" tc-ws " + grammar::gbnf_literal("\"response\"") +
             " tc-ws \":\" tc-ws tc-response tc-ws \"}\"";
    }
  }
  return "tc-call";
}

// Where a lazy grammar starts (auto choice): the format's call marker.
std::vector<GrammarTrigger> triggers(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Hermes: return {{"<tool_call>", false}};
    case ToolCallFormat::Mistral: return {{"[TOOL_CALLS]", false}};
    case ToolCallFormat::Llama3: return {{"<|python_tag|>", false}, {"{", true}};
    case ToolCallFormat::Generic: return {};  // the whole reply is the JSON answer
  }
  return {};
}

std::vector<std::string> special_tokens(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Hermes: return {"<tool_call>", "</tool_call>"};
    case ToolCallFormat::Mistral: return {"[TOOL_CALLS]"};
    case ToolCallFormat::Llama3: return {"<|python_tag|>"};
    case ToolCallFormat::Generic: return {};
  }
  return {};
}

}  // namespace

Result<ReplyConstraint> tool_call_constraint(const ToolRequest& request,
                                             ToolCallFormat call_format) {
  ReplyConstraint out;
  if (!request.active()) return out;
  std::map<std::string, std::string> rules;
  std::string calls;
  const std::string args_key = call_format == ToolCallFormat::Llama3 ? "parameters" : "arguments";
  for (size_t i = 0; i < request.tools.size(); ++i) {
    const ToolDefinition& tool = request.tools[i];
    if (request.choice.mode == ToolChoiceMode::Named && tool.name != request.choice.name) continue;
    const std::string args_rule = "tool" + std::to_string(i) + "-args";
    auto gbnf = grammar::json_schema_to_gbnf(tool.parameters_json, args_rule);
    if (!gbnf)
      return Error{"tools[" + std::to_string(i) + "] (" + tool.name + "): " + gbnf.message()};
    merge_rules(*gbnf, rules);
    const std::string call_rule = "tc-call-" + std::to_string(i);
    rules[call_rule] = call_body(tool, args_key, args_rule);
    calls += (calls.empty() ? "" : " | ") + call_rule;
  }
  if (calls.empty())
    return Error{"tool_choice names the function '" + request.choice.name +
                 "', which is not among the tools"};
  rules["tc-call"] = calls;
  rules["tc-ws"] = "[ \\n]?";  // one space or newline: how models write calls
  if (call_format == ToolCallFormat::Generic && request.choice.mode == ToolChoiceMode::Auto) {
    auto response = grammar::json_schema_to_gbnf(R"({"type": "string"})", "tc-response");
    if (!response) return response.error();
    merge_rules(*response, rules);
  }
  std::string text = "root ::= " + root_rule(call_format, request) + "\n";
  for (const auto& [name, body] : rules) text += name + " ::= " + body + "\n";
  auto compiled = compile_grammar(text);
  if (!compiled) return Error{"the tool call grammar: " + compiled.message()};
  out.grammar = std::move(*compiled);
  if (request.choice.mode == ToolChoiceMode::Auto) out.triggers = triggers(call_format);
  out.special_tokens = special_tokens(call_format);
  return out;
}

void defer_past_reasoning(std::vector<GrammarTrigger>& triggers, const ReasoningMarkers& markers) {
  if (triggers.empty() && !markers.close.empty()) triggers.push_back({markers.close, false, true});
}

void apply_constraint(const ReplyConstraint& constraint, GenerateOptions& options) {
  options.grammar = constraint.grammar;
  options.grammar_triggers = constraint.triggers;
  options.grammar_special_tokens = constraint.special_tokens;
}

}  // namespace kvchat
