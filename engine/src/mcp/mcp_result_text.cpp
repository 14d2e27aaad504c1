#include "mcp/mcp_result_text.h"

#include "util/printable.h"

namespace kvchat {

namespace {

using nlohmann::json;

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Base64 text of n characters holds about 3n/4 bytes.
std::string binary_line(const char* kind, const json& item) {
  const std::string mime = str(item, "mimeType");
  const uint64_t bytes = str(item, "data").size() / 4 * 3;
  return std::string("[") + kind + ": " + (mime.empty() ? "unknown type" : mime) + ", " +
         with_commas(bytes) + " bytes]";
}

std::string item_text(const json& item) {
  if (!item.is_object()) return "[content item that is not an object]";
  const std::string type = str(item, "type");
  if (type == "text") return str(item, "text");
  if (type == "image") return binary_line("image", item);
  if (type == "audio") return binary_line("audio", item);
  if (type == "resource_link") {
    const std::string name = str(item, "name");
    return "[resource " + str(item, "uri") + (name.empty() ? "" : " (" + name + ")") + "]";
  }
  if (type == "resource") {
    auto r = item.find("resource");
    if (r == item.end() || !r->is_object()) return "[resource without contents]";
    if (r->contains("text")) return str(*r, "text");
    return "[resource " + str(*r, "uri") + ": " + binary_line("binary", *r).substr(1);
  }
  return "[" + (type.empty() ? std::string("untyped") : type) + " content]";
}

}  // namespace

McpCallResult mcp_result_text(const nlohmann::json& r) {
  McpCallResult out;
  if (!r.is_object()) {
    out.text = "the tool server's result is not a JSON object";
    out.is_error = true;
    return out;
  }
  if (auto e = r.find("isError"); e != r.end() && e->is_boolean()) out.is_error = e->get<bool>();
  auto content = r.find("content");
  if (content != r.end() && content->is_array() && !content->empty()) {
    for (const json& item : *content) {
      if (!out.text.empty()) out.text += "\n";
      out.text += item_text(item);
    }
  } else if (auto s = r.find("structuredContent"); s != r.end()) {
    out.text = s->dump();
  }
  return out;
}

}  // namespace kvchat
