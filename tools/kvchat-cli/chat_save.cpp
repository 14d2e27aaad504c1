// The /save conversation file (see chat_save.h).
#include "chat_save.h"

#include "json_field.h"
#include "util/printable.h"

namespace kvchat::cli {

using nlohmann::json;

std::string chat_save_json(const ChatSave& save) {
  json j = {{"system", save.system}, {"messages", json::array()}};
  for (const ChatMessage& m : save.messages) {
    j["messages"].push_back({{"role", m.role}, {"content", m.content}});
  }
  return json_text(j);
}

Result<ChatSave> parse_chat_save(std::string_view text) {
  if (text.size() > kMaxChatSaveBytes) {
    return Error{std::to_string(text.size()) + " bytes, more than a conversation save may hold (" +
                 std::to_string(kMaxChatSaveBytes) + ")"};
  }
  auto parsed = parse_json(text);
  if (!parsed) return parsed.error();
  const JsonField root(*parsed, "");
  if (auto st = root.expect_object(); !st) return Error{st.message()};
  ChatSave save;
  if (root.has("system")) {
    auto system = root.member("system").value().string();
    if (!system) return system.error();
    save.system = std::move(*system);
  }
  auto messages = root.member("messages");
  if (!messages) return messages.error();
  auto list = messages->elements();
  if (!list) return list.error();
  save.messages.reserve(list->size());
  for (const JsonField& m : *list) {
    auto role_field = m.member("role");
    if (!role_field) return role_field.error();
    auto role = role_field->string();
    if (!role) return role.error();
    if (*role != "user" && *role != "assistant" && *role != "system") {
      return Error{role_field->path() + ": \"" + printable(*role) +
                   "\" is not a role (user, assistant or system)"};
    }
    auto content_field = m.member("content");
    if (!content_field) return content_field.error();
    auto content = content_field->string();
    if (!content) return content.error();
    save.messages.push_back({std::move(*role), std::move(*content)});
  }
  return save;
}

}  // namespace kvchat::cli
