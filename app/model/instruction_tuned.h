// Whether the loaded model was trained to follow instructions (answer, summarize), as far
// as its file tells: an instruction-tuned GGUF carries a chat template
// (tokenizer.chat_template); a base model, or a text model like the KJV demo, has none and
// runs in the plain completion format, continuing text rather than following it. The
// window warns before asking such a model for a summary (DocumentController) and says
// what it does (the welcome). Models.modelInfo carries it as instruction_tuned.
#pragma once

#include <QString>
#include <QVariantMap>

namespace kvchat {
class ChatFormat;
class Model;
}  // namespace kvchat

namespace kvchat::app {

// file_has_template: the file has a tokenizer.chat_template. format_source: "file",
// "override" or "builtin"; format_kind: the built-in format's name ("completion", ...);
// override_text: the override ("builtin:<name>" or Jinja source; "" for none). A file with
// a template is instruction-tuned unless its conversations are sent as plain text (the
// completion format: chosen as an override, or the fallback of a template that does not
// parse and names no known format); a file without one never is, whatever the override.
bool instruction_tuned(bool file_has_template, const QString& format_source,
                       const QString& format_kind, const QString& override_text);

// The same from a model-info map (Models.modelInfo: chat_template, chat_format_source,
// chat_format_kind, chat_template_override).
bool instruction_tuned(const QVariantMap& model_info);

// The same from the engine's model and the chat format in use.
bool instruction_tuned(const Model& model, const ChatFormat& format);

}  // namespace kvchat::app
