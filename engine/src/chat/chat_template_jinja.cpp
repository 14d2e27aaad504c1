// ChatTemplate: a Jinja chat template parsed once and rendered with the variables
// transformers' apply_chat_template passes: messages, add_generation_prompt,
// bos_token, eos_token (plus any extra variables the caller gives).
//
// transformers (tokenization_utils_base.apply_chat_template -> render_jinja_template)
// renders with template.render(messages=chat, tools=tool_schemas, documents=documents,
// add_generation_prompt=..., **special_tokens_map, **kwargs), tool_schemas and
// documents being None when the caller passes none: `tools` and `documents` are always
// defined there. ChatRenderOptions::tools_none_when_absent does the same; without it
// they stay undefined unless given (jinja2's plain Template.render).
#include <chrono>
#include <unordered_map>

#include "chat/jinja/interpreter.h"
#include "chat/jinja/json.h"
#include "chat/jinja/lexer.h"
#include "chat/jinja/parser.h"
#include "kvchat/chat_template.h"

namespace kvchat {

struct ChatTemplate::Parsed {
  std::string source;
  std::shared_ptr<const jinja::Template> tree;
};

namespace {

using Variables = std::unordered_map<std::string, jinja::Value>;

// A call as OpenAI clients send it back ({id, type, function: {name, arguments}}), the
// arguments as the object they encode: the templates that print them (tojson) expect
// the mapping transformers documents; text that is not JSON stays a string.
jinja::Value tool_call_value(const ToolCall& call) {
  jinja::Value arguments;
  try {
    arguments = jinja::parse_json(call.arguments);
  } catch (const jinja::RenderError&) {
    arguments = jinja::Value(call.arguments);
  }
  jinja::Value function = jinja::Value::dict();
  function.dict_obj().set(jinja::Value("name"), jinja::Value(call.name));
  function.dict_obj().set(jinja::Value("arguments"), std::move(arguments));
  jinja::Value d = jinja::Value::dict();
  d.dict_obj().set(jinja::Value("id"), jinja::Value(call.id));
  d.dict_obj().set(jinja::Value("type"), jinja::Value("function"));
  d.dict_obj().set(jinja::Value("function"), std::move(function));
  return d;
}

// Each message as the dict transformers passes: role and content (a string, "" beside
// calls without text: Qwen 3's template, among others, fails on none there); an
// assistant's calls as tool_calls; a tool result's tool_call_id and name.
jinja::Value messages_value(const std::vector<ChatMessage>& messages) {
  std::vector<jinja::Value> list;
  for (const ChatMessage& m : messages) {
    jinja::Value d = jinja::Value::dict();
    d.dict_obj().set(jinja::Value("role"), jinja::Value(m.role));
    d.dict_obj().set(jinja::Value("content"), jinja::Value(m.content));
    if (!m.tool_calls.empty()) {
      std::vector<jinja::Value> calls;
      for (const ToolCall& c : m.tool_calls) calls.push_back(tool_call_value(c));
      d.dict_obj().set(jinja::Value("tool_calls"), jinja::Value::list(std::move(calls)));
    }
    if (!m.tool_call_id.empty())
      d.dict_obj().set(jinja::Value("tool_call_id"), jinja::Value(m.tool_call_id));
    if (!m.name.empty()) d.dict_obj().set(jinja::Value("name"), jinja::Value(m.name));
    list.push_back(std::move(d));
  }
  return jinja::Value::list(std::move(list));
}

std::int64_t now_seconds(const ChatRenderOptions& o) {
  if (o.now_unix_seconds) return *o.now_unix_seconds;
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void add_json_object(Variables& vars, const jinja::Value& obj, const char* what) {
  if (!obj.is_dict()) throw jinja::RenderError(std::string(what) + " must be a JSON object");
  for (const auto& [k, v] : obj.dict_obj().items) vars[k.str()] = v;
}

Result<std::string> render_with(const jinja::Template& tree, jinja::Value messages,
                                const jinja::Value* extra_from_messages,
                                const ChatRenderOptions& o) {
  try {
    Variables vars;
    if (o.tools_none_when_absent) {  // overridden by what the caller gives below
      vars["tools"] = jinja::Value::none();
      vars["documents"] = jinja::Value::none();
    }
    if (!o.extra_variables_json.empty())
      add_json_object(vars, jinja::parse_json(o.extra_variables_json), "extra_variables_json");
    if (extra_from_messages) add_json_object(vars, *extra_from_messages, "the messages object");
    vars["messages"] = std::move(messages);
    vars["add_generation_prompt"] = jinja::Value(o.add_generation_prompt);
    vars["bos_token"] = jinja::Value(o.bos_token);
    vars["eos_token"] = jinja::Value(o.eos_token);
    jinja::Interpreter interpreter(tree, now_seconds(o));
    return interpreter.render(vars);
  } catch (const jinja::RenderError& e) {
    return Error{e.what()};
  } catch (const std::bad_alloc&) {
    return Error{"chat template: out of memory"};
  } catch (const std::exception& e) {
    return Error{std::string("chat template: ") + e.what()};
  }
}

}  // namespace

Result<ChatTemplate> ChatTemplate::parse(std::string_view jinja_source) {
  try {
    auto parsed = std::make_shared<Parsed>();
    parsed->source = std::string(jinja_source);
    parsed->tree = jinja::parse_template(jinja_source);
    return ChatTemplate(std::move(parsed));
  } catch (const jinja::SyntaxError& e) {
    return Error{std::string("chat template syntax error: ") + e.what()};
  } catch (const std::exception& e) {
    return Error{std::string("chat template: ") + e.what()};
  }
}

Result<std::string> ChatTemplate::render(const std::vector<ChatMessage>& messages,
                                         const ChatRenderOptions& options) const {
  return render_with(*parsed_->tree, messages_value(messages), nullptr, options);
}

Result<std::string> ChatTemplate::render_json(std::string_view messages_json,
                                              const ChatRenderOptions& options) const {
  jinja::Value doc;
  try {
    doc = jinja::parse_json(messages_json);
  } catch (const jinja::RenderError& e) {
    return Error{std::string("messages: ") + e.what()};
  }
  if (doc.is_list()) return render_with(*parsed_->tree, doc, nullptr, options);
  if (doc.is_dict()) {
    const jinja::Value* messages = doc.dict_obj().find(std::string_view("messages"));
    if (!messages || !messages->is_list())
      return Error{"messages: the object has no \"messages\" array"};
    const jinja::Value list = *messages;
    jinja::Value rest = jinja::Value::dict();
    for (const auto& [k, v] : doc.dict_obj().items)
      if (!(k.is_string() && k.as_string() == "messages")) rest.dict_obj().set(k, v);
    return render_with(*parsed_->tree, list, &rest, options);
  }
  return Error{"messages: expected a JSON array of messages or an object with \"messages\""};
}

Result<bool> ChatTemplate::is_prefix_stable(const std::vector<ChatMessage>& messages, std::size_t k,
                                            const ChatRenderOptions& options) const {
  if (k + 1 > messages.size())
    return Error{"is_prefix_stable: k must be less than the number of messages"};
  const std::vector<ChatMessage> shorter(messages.begin(),
                                         messages.begin() + static_cast<std::ptrdiff_t>(k));
  const std::vector<ChatMessage> longer(messages.begin(),
                                        messages.begin() + static_cast<std::ptrdiff_t>(k + 1));
  Result<std::string> a = render(shorter, options);
  if (!a) return a.error();
  Result<std::string> b = render(longer, options);
  if (!b) return b.error();
  return b->compare(0, a->size(), *a) == 0;
}

const std::string& ChatTemplate::source() const { return parsed_->source; }

}  // namespace kvchat
