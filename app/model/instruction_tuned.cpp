// Whether a model follows instructions (instruction_tuned.h).
#include "model/instruction_tuned.h"

#include "kvchat/chat_format.h"
#include "kvchat/model.h"

namespace kvchat::app {

bool instruction_tuned(bool file_has_template, const QString& format_source,
                       const QString& format_kind, const QString& override_text) {
  if (!file_has_template) return false;
  // A Jinja template in use (the file's or the user's) is a chat format whatever its kind.
  const bool jinja = format_source == QLatin1String("file") ||
                     (format_source == QLatin1String("override") &&
                      !override_text.startsWith(QLatin1String("builtin:")));
  return jinja || format_kind != QLatin1String("completion");
}

bool instruction_tuned(const QVariantMap& model_info) {
  return instruction_tuned(!model_info.value(QStringLiteral("chat_template")).toString().isEmpty(),
                           model_info.value(QStringLiteral("chat_format_source")).toString(),
                           model_info.value(QStringLiteral("chat_format_kind")).toString(),
                           model_info.value(QStringLiteral("chat_template_override")).toString());
}

bool instruction_tuned(const Model& model, const ChatFormat& format) {
  if (model.info().chat_template.empty()) return false;
  return !format.template_source().empty() || format.kind() != ChatTemplateKind::Completion;
}

}  // namespace kvchat::app
