// The window's status line (issue 26 point 8): one sentence per event with a short label
// (never an internal event name), the chat format said again when an override changes it,
// and the context's fill from the memory panel's own figures (MemoryState::context_usage),
// live while a reply streams.
#include <QCoreApplication>

#include "chat/chat_controller.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

namespace {
bool is_context_event(const QString& kind) {
  return kind == QLatin1String("context-warning") || kind == QLatin1String("context-full") ||
         kind == QLatin1String("context-policy");
}

// The policy as the Settings drawer names it (its translations).
QString policy_label(const QString& policy) {
  if (policy == QLatin1String("shift"))
    return QCoreApplication::translate("SettingsDrawer", "shift out the oldest half");
  if (policy == QLatin1String("stop"))
    return QCoreApplication::translate("SettingsDrawer", "stop and ask");
  return QCoreApplication::translate("SettingsDrawer", "drop the oldest turns");
}
}  // namespace

void ChatController::connect_status_signals() {
  // A template override: the model's format, and the status line says the new one.
  connect(models_.get(), &ModelController::chatFormatChanged, this,
          [this](const QString& description) {
            on_session_event(QStringLiteral("chat"), description);
          });
  // What the context policy did (the panel's line), with the context's figures now.
  connect(this, &ChatController::contextNoticeChanged, this, [this] {
    if (!context_notice_.isEmpty()) {
      on_session_event(QStringLiteral("context-policy"), context_notice_);
    } else if (last_event_kind_ == QLatin1String("context-policy")) {
      last_event_kind_.clear();  // another conversation's: not this one's
      last_event_message_.clear();
      emit lastEventChanged();
    }
  });
  // A context line follows the figures (the panel's), also while a reply streams.
  connect(memory_state_.get(), &MemoryState::memoryChanged, this, [this] {
    if (is_context_event(last_event_kind_)) emit lastEventChanged();
  });
  // A reply's figures belong to its model: another model loaded, the panel's line changes.
  connect(models_.get(), &ModelController::modelChanged, this,
          &ChatController::lastReplyStatsChanged);
}

QString ChatController::event_label(const QString& kind) {
  if (kind == QLatin1String("chat")) return tr("Chat format");
  if (kind == QLatin1String("backend")) return tr("Backend");
  if (kind == QLatin1String("snapshot")) return tr("Snapshot");
  if (kind == QLatin1String("kv-quality")) return tr("KV quality");
  if (kind == QLatin1String("kv-type-changed")) return tr("KV type");
  if (kind == QLatin1String("kv-out-of-memory")) return tr("KV memory");
  // The app's own kinds are words already ("export", "saved"): capitalized.
  return kind.isEmpty() ? QString() : kind.left(1).toUpper() + kind.mid(1);
}

QString ChatController::last_event() const {
  const QString kind = last_event_kind_;
  if (kind.isEmpty()) return {};
  const QString usage = memory_state_->context_usage().value(QStringLiteral("text")).toString();
  if (kind == QLatin1String("context-warning")) {
    return tr("The context is almost full: %1 in use. When it is full: %2.")
        .arg(usage,
             policy_label(models_->info().value(QStringLiteral("context_policy")).toString()));
  }
  if (kind == QLatin1String("context-full"))
    return tr("The context has no room for more tokens: %1 in use.").arg(usage);
  if (kind == QLatin1String("context-policy"))
    return tr("%1 Context now: %2.").arg(last_event_message_, usage);
  return tr("%1: %2").arg(event_label(kind), last_event_message_);
}

void ChatController::on_session_event(const QString& kind, const QString& message) {
  if (kind == QLatin1String("context-full") && generating_) context_full_seen_ = true;
  // What a policy did is said by its notice (contextPolicyApplied follows with the figures).
  if (kind == QLatin1String("turns-dropped") || kind == QLatin1String("context-shifted")) return;
  last_event_kind_ = kind;
  last_event_message_ = message;
  emit lastEventChanged();
  // A backend that failed (or skipped) its self-check must be seen, not replaced in the
  // status line by the next event: as an error, the error dialog shows it and the message
  // banner keeps it until dismissed. (The engine puts "self-check" in every such note;
  // "auto" without a GPU stays a status.)
  if (kind == QLatin1String("backend") && message.contains(QLatin1String("self-check"))) {
    emit errorOccurred(tr("Backend: %1").arg(message));
  }
}

}  // namespace kvchat::app
