// The window's status line (issue 26 point 8): one sentence per event with a short label
// (never an internal event name), the chat format said again when an override changes it,
// and a context line in the context meter's words (ContextMeter: the same figures as the
// panel and the banners), live while a reply streams.
#include <QCoreApplication>

#include "chat/chat_controller.h"
#include "engine/engine_worker.h"

namespace kvchat::app {

namespace {
bool is_context_event(const QString& kind) {
  return kind == QLatin1String("context-warning") || kind == QLatin1String("context-full") ||
         kind == QLatin1String("context-policy");
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
  // The context meter and a context line follow the figures, also while a reply streams,
  // and the loaded model's policy.
  connect(memory_state_.get(), &MemoryState::memoryChanged, context_meter_.get(),
          &ContextMeter::refresh);
  connect(models_.get(), &ModelController::modelChanged, context_meter_.get(),
          &ContextMeter::refresh);
  connect(context_meter_.get(), &ContextMeter::changed, this, [this] {
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
  // A context line is the meter's, live: never a figure or a "full" gone stale.
  if (kind == QLatin1String("context-warning") || kind == QLatin1String("context-full"))
    return context_meter_->sentence();
  if (kind == QLatin1String("context-policy"))
    return tr("%1 %2").arg(last_event_message_, context_meter_->sentence());
  return tr("%1: %2").arg(event_label(kind), last_event_message_);
}

void ChatController::on_session_event(const QString& kind, const QString& message) {
  if (kind == QLatin1String("context-full")) {
    if (generating_) context_full_seen_ = true;
    context_meter_->mark_full();
  }
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
