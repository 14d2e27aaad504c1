// A tools/call result as the text the model reads (kvchat/mcp_client.h, McpCallResult):
// text items in order, an image or audio item as a line saying what it was, an embedded
// resource's text, a resource link as its URI; isError kept.
#pragma once

#include <nlohmann/json.hpp>

#include "kvchat/mcp_client.h"

namespace kvchat {

McpCallResult mcp_result_text(const nlohmann::json& result);

}  // namespace kvchat
