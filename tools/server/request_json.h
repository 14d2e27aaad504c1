// What the OpenAI request readers share: errors naming the field (JSON type names:
// util/json_type_name.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "server/openai_request.h"
#include "util/json_type_name.h"

namespace kvchat::server {

ApiError bad(std::string param, std::string message);
// "'<param>' must be <expected>, got <type>".
ApiError wrong_type(const std::string& param, const char* expected, const nlohmann::json& v);
// Text a request may carry: well-formed UTF-8 without NUL.
std::optional<ApiError> checked_text(const std::string& param, const std::string& s);
// Each key of `obj` must be one of `known`; the first other one is named ('<param>.<key>').
std::optional<ApiError> only_known_keys(const nlohmann::json& obj, const std::string& param,
                                        std::initializer_list<std::string_view> known);

// tools, tool_choice, parallel_tool_calls (openai_tools_request.cpp).
std::optional<ApiError> read_tools(const nlohmann::json& body, CompletionRequest& r);
// response_format: text, json_object or json_schema (openai_tools_request.cpp).
std::optional<ApiError> read_response_format(const nlohmann::json& body, CompletionRequest& r);
// An assistant message's tool_calls and a tool message's tool_call_id and name.
std::optional<ApiError> read_message_tool_fields(const nlohmann::json& m, const std::string& param,
                                                 ChatMessage& msg);

}  // namespace kvchat::server
