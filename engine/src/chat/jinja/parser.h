// The Jinja parser: tokens into a Template tree. Throws SyntaxError naming line and column.
#pragma once

#include <memory>
#include <string_view>

#include "chat/jinja/ast.h"

namespace kvchat::jinja {

std::shared_ptr<const Template> parse_template(std::string_view source);

}  // namespace kvchat::jinja
