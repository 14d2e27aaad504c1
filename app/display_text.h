// Text from a model file or a peer, cut for the window: a 60 MB general.name would stall
// a page's layout. The window shows such text as plain text (textFormat: Text.PlainText,
// checked by test_qml_plain_text), so markup and control characters need no escaping.
#pragma once

#include <QString>
#include <string>

namespace kvchat::app {

// `text` whole when it has at most `max_bytes`, else cut at a character boundary and
// followed by "… (N bytes)".
QString cut_for_display(const std::string& text, size_t max_bytes = 200);

}  // namespace kvchat::app
