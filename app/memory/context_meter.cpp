#include "memory/context_meter.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>
#include <optional>
#include <string>

#include "engine/engine_worker.h"
#include "kvchat/chat_format.h"
#include "kvchat/model.h"
#include "kvchat/tokenizer.h"
#include "memory/memory_state.h"
#include "util/display_text.h"

namespace kvchat::app {

namespace {

QString tr_meter(const char* text) { return QCoreApplication::translate("ContextMeter", text); }

// What sending `text` adds to the context: the difference between a conversation that
// ends with an answered turn and the same with `text` as the next user message, both as
// the chat format renders them (the turn's markers and the assistant's opening counted,
// a template's default system prompt not). Without a format, or a template that refuses
// the probe, the text's own tokens.
qint64 count_message_tokens(std::shared_ptr<const Model> model, std::optional<ChatFormat> format,
                            const QString& text) {
  const std::string utf8 = text.toStdString();
  if (format) {
    const std::vector<ChatMessage> before{{"user", "Hello"}, {"assistant", "Hello"}};
    std::vector<ChatMessage> after = before;
    after.push_back({"user", utf8});
    auto rendered_before = format->render("", before);
    auto rendered_after = format->render("", after);
    if (rendered_before && rendered_after) {
      const auto n_before = static_cast<qint64>(format->tokenize(*rendered_before).size());
      const auto n_after = static_cast<qint64>(format->tokenize(*rendered_after).size());
      if (n_after > n_before) return n_after - n_before;
    }
  }
  return static_cast<qint64>(model->tokenizer().encode(utf8, /*add_bos=*/false).size());
}

}  // namespace

QString context_policy_clause(const QString& policy) {
  if (policy == QLatin1String("shift"))
    return tr_meter("the oldest half of the conversation after the system prompt is shifted out");
  if (policy == QLatin1String("sink-window"))
    return tr_meter(
        "the first tokens and the system prompt stay, and the oldest tokens after them leave "
        "a block at a time, so the latest conversation always fits");
  if (policy == QLatin1String("stop"))
    return tr_meter(
        "nothing more fits: start a new chat, summarize and continue, or edit an "
        "earlier message");
  return tr_meter("the oldest whole turns are dropped to make room");
}

ContextMeterView describe_context(const ContextFigures& f) {
  ContextMeterView v;
  if (f.max <= 0) {
    v.level = QStringLiteral("none");
    return v;
  }
  v.percent = static_cast<int>(100 * std::min(f.tokens, f.max) / f.max);
  v.when_full = context_policy_clause(f.policy);
  if (f.full || f.tokens >= f.max) {
    v.level = QStringLiteral("full");
    v.sentence =
        tr_meter("The context is full: %1. Next message: %2.").arg(f.usage_text, v.when_full);
  } else if (v.percent >= 90) {
    v.level = QStringLiteral("almost");
    v.sentence = tr_meter("The context is almost full: %1. When it is full, %2.")
                     .arg(f.usage_text, v.when_full);
  } else {
    v.level = QStringLiteral("room");
    v.sentence = tr_meter("Context: %1.").arg(f.usage_text);
  }
  if (f.draft_tokens < 0) return v;
  const qint64 left = v.level == QLatin1String("full") ? 0 : std::max<qint64>(0, f.max - f.tokens);
  const QString n = count_text(f.draft_tokens);
  v.draft_text = (f.draft_estimated ? tr_meter("about +%1") : tr_meter("+%1")).arg(n);
  v.draft_overflows = f.draft_tokens > left;
  const QString cost =
      (f.draft_estimated ? tr_meter("about %1 tokens") : tr_meter("%1 tokens")).arg(n);
  v.draft_sentence = v.draft_overflows
                         ? tr_meter("This message: %1, more than the %2 left: when it is sent, %3.")
                               .arg(cost, count_text(left), v.when_full)
                         : tr_meter("This message: %1 of the %2 left.").arg(cost, count_text(left));
  return v;
}

ContextMeter::ContextMeter(const MemoryState& memory, EngineWorker& worker,
                           std::function<QString()> policy, QObject* parent)
    : QObject(parent), memory_(memory), worker_(worker), policy_of_model_(std::move(policy)) {
  draft_timer_.setSingleShot(true);
  draft_timer_.setInterval(kDraftDelayMs);
  connect(&draft_timer_, &QTimer::timeout, this, &ContextMeter::count_draft);
  connect(&draft_count_, &QFutureWatcher<qint64>::finished, this, [this] {
    if (draft_count_.isCanceled()) return;
    figures_.draft_tokens = draft_count_.result();
    figures_.draft_estimated = false;
    refresh();
  });
  refresh();
}

void ContextMeter::setDraft(const QString& text) {
  draft_ = text;
  if (!text.trimmed().isEmpty()) {
    draft_timer_.start();
    return;
  }
  draft_timer_.stop();
  draft_count_.setFuture(QFuture<qint64>());  // a count under way is not wanted any more
  if (figures_.draft_tokens < 0) return;
  figures_.draft_tokens = -1;
  refresh();
}

void ContextMeter::count_draft() {
  std::shared_ptr<const Model> model = worker_.shared_model();
  if (!model || draft_.trimmed().isEmpty()) return;
  if (draft_.size() > kTokenizeLimit) {  // about four bytes a token; not worth a long count
    figures_.draft_tokens = draft_.toUtf8().size() / 4;
    figures_.draft_estimated = true;
    refresh();
    return;
  }
  draft_count_.setFuture(
      QtConcurrent::run(count_message_tokens, std::move(model), worker_.chat_format(), draft_));
}

void ContextMeter::mark_full() {
  full_at_tokens_ = memory_.context_usage().value(QStringLiteral("tokens")).toLongLong();
  refresh();
}

void ContextMeter::refresh() {
  const ContextFigures before = figures_;
  const QVariantMap usage = memory_.context_usage();
  figures_.tokens = usage.value(QStringLiteral("tokens")).toLongLong();
  figures_.max = usage.value(QStringLiteral("max")).toLongLong();
  figures_.usage_text = usage.value(QStringLiteral("text")).toString();
  figures_.policy = policy_of_model_ ? policy_of_model_() : QString();
  // Full until the context holds fewer tokens than when it was found full (an edit, a
  // regenerated reply, another conversation, another model).
  if (full_at_tokens_ >= 0 && (figures_.max == 0 || figures_.tokens < full_at_tokens_))
    full_at_tokens_ = -1;
  figures_.full = full_at_tokens_ >= 0;
  // The memory reports come ~30 times a second while a reply streams; the window's
  // bindings are reevaluated only when something the meter says changed.
  ContextMeterView view = describe_context(figures_);
  if (figures_ == before && view == view_) return;
  view_ = std::move(view);
  emit changed();
}

}  // namespace kvchat::app
