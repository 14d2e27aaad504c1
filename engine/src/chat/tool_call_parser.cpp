// Tool calls, the reply side: the calls in a reply's text, per format, and the streaming
// split between the text shown as it comes and the calls held until the reply ends.
#include <nlohmann/json.hpp>
#include <optional>

#include "kvchat/tool_calls.h"

namespace kvchat {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSpace = " \t\r\n";

std::string_view trim(std::string_view s) {
  const size_t a = s.find_first_not_of(kSpace);
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(kSpace) - a + 1);
}

Json parse(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// {"name": "...", "arguments" or "parameters": {...} or "<json text>", "id"?: "..."}.
std::optional<ToolCall> call_of(const Json& v) {
  if (!v.is_object()) return std::nullopt;
  auto name = v.find("name");
  if (name == v.end() || !name->is_string() || name->get<std::string>().empty())
    return std::nullopt;
  ToolCall call;
  call.name = name->get<std::string>();
  auto args = v.find("arguments");
  if (args == v.end()) args = v.find("parameters");
  if (args == v.end() || args->is_null()) {
    call.arguments = "{}";
  } else if (args->is_string()) {
    call.arguments = args->get<std::string>();
  } else {
    call.arguments = args->dump();
  }
  if (auto id = v.find("id"); id != v.end() && id->is_string()) call.id = id->get<std::string>();
  return call;
}

// Every element a call, or nothing.
std::optional<std::vector<ToolCall>> calls_of(const Json& array) {
  if (!array.is_array() || array.empty()) return std::nullopt;
  std::vector<ToolCall> calls;
  for (const Json& v : array) {
    auto c = call_of(v);
    if (!c) return std::nullopt;
    calls.push_back(std::move(*c));
  }
  return calls;
}

ToolCallReply hermes(std::string_view text) {
  static constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>";
  ToolCallReply out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find(kOpen, pos);
    if (open == std::string_view::npos) break;
    const size_t body = open + kOpen.size();
    const size_t close = text.find(kClose, body);
    const size_t end = close == std::string_view::npos ? text.size() : close + kClose.size();
    auto call = call_of(parse(trim(text.substr(body, std::min(close, text.size()) - body))));
    out.content += text.substr(pos, open - pos);
    if (call) {
      out.calls.push_back(std::move(*call));
    } else {
      out.content += text.substr(open, end - open);  // not a call: kept as text
    }
    pos = end;
  }
  if (pos < text.size()) out.content += text.substr(pos);
  return out;
}

ToolCallReply mistral(std::string_view text) {
  static constexpr std::string_view kMarker = "[TOOL_CALLS]";
  const size_t marker = text.find(kMarker);
  const std::string_view before = marker == std::string_view::npos ? "" : text.substr(0, marker);
  const std::string_view rest =
      marker == std::string_view::npos ? text : text.substr(marker + kMarker.size());
  if (auto calls = calls_of(parse(trim(rest)))) return {std::string(before), std::move(*calls)};
  return {std::string(text), {}};
}

ToolCallReply llama3(std::string_view text) {
  static constexpr std::string_view kTag = "<|python_tag|>";
  std::string_view t = trim(text);
  std::string before;
  if (const size_t tag = t.find(kTag); tag != std::string_view::npos) {
    before = std::string(t.substr(0, tag));
    t = trim(t.substr(tag + kTag.size()));
  }
  if (!t.starts_with('{')) return {std::string(text), {}};
  // One call, or several separated by ';' (as Llama 3.1 writes them after <|python_tag|>).
  std::vector<ToolCall> calls;
  size_t start = 0;
  while (start < t.size()) {
    size_t end = t.find(';', start);
    Json v = parse(
        t.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    while (v.is_discarded() && end != std::string_view::npos) {  // a ';' inside a string
      end = t.find(';', end + 1);
      v = parse(
          t.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    }
    auto call = call_of(v);
    if (!call) return {std::string(text), {}};
    calls.push_back(std::move(*call));
    if (end == std::string_view::npos) break;
    start = end + 1;
    while (start < t.size() && kSpace.find(t[start]) != std::string_view::npos) ++start;
  }
  return {std::move(before), std::move(calls)};
}

ToolCallReply generic(std::string_view text) {
  const Json v = parse(trim(text));
  if (v.is_object()) {
    if (auto calls = v.find("tool_calls"); calls != v.end()) {
      if (auto c = calls_of(*calls)) return {"", std::move(*c)};
    }
    if (auto call = v.find("tool_call"); call != v.end()) {
      if (auto c = call_of(*call)) return {"", {std::move(*c)}};
    }
    if (auto response = v.find("response"); response != v.end() && response->is_string())
      return {response->get<std::string>(), {}};
  }
  return {std::string(text), {}};
}

// The marker a call starts with in the middle of a reply ("" when the whole reply is held).
std::string_view call_marker(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Hermes: return "<tool_call>";
    case ToolCallFormat::Mistral: return "[TOOL_CALLS]";
    case ToolCallFormat::Llama3: return "<|python_tag|>";
    case ToolCallFormat::Generic: return "";
  }
  return "";
}

}  // namespace

ToolCallReply parse_tool_calls(std::string_view text, ToolCallFormat call_format) {
  ToolCallReply out;
  switch (call_format) {
    case ToolCallFormat::Hermes: out = hermes(text); break;
    case ToolCallFormat::Mistral: out = mistral(text); break;
    case ToolCallFormat::Llama3: out = llama3(text); break;
    case ToolCallFormat::Generic: out = generic(text); break;
  }
  if (!out.calls.empty()) out.content = std::string(trim(out.content));  // the space around calls
  return out;
}

std::string ToolCallStream::feed(std::string_view piece) {
  held_ += piece;
  if (holding_all_) return {};
  if (format_ == ToolCallFormat::Generic) {
    holding_all_ = true;
    return {};
  }
  if (!started_) {
    const size_t lead = held_.find_first_not_of(kSpace);
    if (lead == std::string::npos) return {};
    started_ = true;
    // A reply that begins as a JSON call (Llama 3) or a bare array of calls (Mistral).
    const char first = held_[lead];
    if ((format_ == ToolCallFormat::Llama3 && first == '{') ||
        (format_ == ToolCallFormat::Mistral && first == '[' &&
         !std::string_view(held_).substr(lead).starts_with("[TOOL_CALLS]"))) {
      holding_all_ = true;
      return {};
    }
  }
  const std::string_view marker = call_marker(format_);
  if (const size_t at = held_.find(marker); at != std::string::npos) {
    std::string shown = held_.substr(0, at);
    held_.erase(0, at);
    holding_all_ = true;
    return shown;
  }
  // Keep back an end that may be the marker's beginning.
  size_t keep = std::min(held_.size(), marker.size() - 1);
  while (keep > 0 && !marker.starts_with(std::string_view(held_).substr(held_.size() - keep)))
    --keep;
  std::string shown = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return shown;
}

ToolCallReply ToolCallStream::finish() {
  ToolCallReply out = parse_tool_calls(held_, format_);
  held_.clear();
  return out;
}

}  // namespace kvchat
