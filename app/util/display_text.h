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

// What the window calls a model: its file's name without ".gguf", and the file's
// general.name beside it ("stories260K", "tinyllama-q4_k_m — TinyLlama 1.1B Chat") only
// when that says more: not empty, not just the architecture ("llama"), and not already
// in the file name (letters and digits compared, case ignored: "kjv-demo" in
// "kjv-demo-f16"). Cut for display.
QString model_display_name(const QString& path, const std::string& general_name,
                           const std::string& architecture);

// A count as the window writes it: the locale's digit grouping ("3,887").
QString count_text(qint64 n);

}  // namespace kvchat::app
