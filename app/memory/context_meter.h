// ContextMeter: the one live figure of how full the context is (issue 43 point 1). The
// meter beside the message box, the status line, the memory panel and the banners all say
// its words: the tokens in use against the context (MemoryState::context_usage), its level
// (room / almost full / full), what the context policy does when it is full, and what the
// message being typed will cost, counted with the loaded model's chat format on a pool
// thread while the user types. QML reads it as Chat.contextMeter. GUI thread only.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>

namespace kvchat::app {

class EngineWorker;
class MemoryState;

// What the meter is computed from.
struct ContextFigures {
  qint64 tokens = 0;             // in the KV cache now
  qint64 max = 0;                // the context's size (0: no model)
  QString usage_text;            // MemoryState's "1,234 of 4,096 tokens (30%)"
  QString policy;                // "drop-oldest", "shift", "sink-window" or "stop"
  bool full = false;             // a reply ran out of room and nothing was freed since
  qint64 draft_tokens = -1;      // the typed message's cost; -1: none typed or not known yet
  bool draft_estimated = false;  // counted from its bytes (a very long text), not tokenized
  bool operator==(const ContextFigures&) const = default;
};

// The meter's words and level, computed once for every place that shows them.
struct ContextMeterView {
  QString level;       // "none" (no model), "room", "almost" (>= 90%) or "full"
  int percent = 0;     // whole, rounded down (100 only when full)
  QString when_full;   // what the policy does then, a clause: "the oldest whole turns are dropped"
  QString sentence;    // the status line's: "The context is full: 512 of 512 tokens (100%). ..."
  QString draft_text;  // "+14 tokens", "" without a draft
  bool draft_overflows = false;  // the draft does not fit in what is left
  QString draft_sentence;        // its cost in words, and what sending it will do
  bool operator==(const ContextMeterView&) const = default;
};

ContextMeterView describe_context(const ContextFigures& figures);

// What `policy` does when the context is full, as a clause ("the oldest whole turns are
// dropped to make room").
QString context_policy_clause(const QString& policy);

class ContextMeter : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString level READ level NOTIFY changed)
  Q_PROPERTY(int tokens READ tokens NOTIFY changed)
  Q_PROPERTY(int maxTokens READ max_tokens NOTIFY changed)
  Q_PROPERTY(int percent READ percent NOTIFY changed)
  Q_PROPERTY(QString usageText READ usage_text NOTIFY changed)  // "268 of 512 tokens (52%)"
  Q_PROPERTY(QString policy READ policy NOTIFY changed)
  Q_PROPERTY(QString whenFull READ when_full NOTIFY changed)
  Q_PROPERTY(QString sentence READ sentence NOTIFY changed)
  Q_PROPERTY(int draftTokens READ draft_tokens NOTIFY changed)  // -1: none or not counted yet
  Q_PROPERTY(QString draftText READ draft_text NOTIFY changed)
  Q_PROPERTY(bool draftOverflows READ draft_overflows NOTIFY changed)
  Q_PROPERTY(QString draftSentence READ draft_sentence NOTIFY changed)

 public:
  static constexpr int kDraftDelayMs = 200;          // after the last key stroke
  static constexpr qint64 kTokenizeLimit = 4 << 20;  // longer drafts: estimated from bytes

  // policy: the loaded model's context policy, asked on every refresh.
  ContextMeter(const MemoryState& memory, EngineWorker& worker, std::function<QString()> policy,
               QObject* parent = nullptr);

  QString level() const { return view_.level; }
  int tokens() const { return static_cast<int>(figures_.tokens); }
  int max_tokens() const { return static_cast<int>(figures_.max); }
  int percent() const { return view_.percent; }
  QString usage_text() const { return figures_.usage_text; }
  QString policy() const { return figures_.policy; }
  QString when_full() const { return view_.when_full; }
  QString sentence() const { return view_.sentence; }
  int draft_tokens() const { return static_cast<int>(figures_.draft_tokens); }
  QString draft_text() const { return view_.draft_text; }
  bool draft_overflows() const { return view_.draft_overflows; }
  QString draft_sentence() const { return view_.draft_sentence; }

  // The message box's text: its cost is counted kDraftDelayMs after the last change.
  Q_INVOKABLE void setDraft(const QString& text);
  // The figures changed (a memory report, another model or policy): the words follow.
  void refresh();
  // A reply (or a Continue) found no room: full until the context holds fewer tokens.
  void mark_full();

 signals:
  void changed();

 private:
  void count_draft();

  const MemoryState& memory_;
  EngineWorker& worker_;
  std::function<QString()> policy_of_model_;
  ContextFigures figures_;
  ContextMeterView view_;
  qint64 full_at_tokens_ = -1;  // mark_full's token count (-1: not full)
  QString draft_;
  QTimer draft_timer_;
  QFutureWatcher<qint64> draft_count_;
};

}  // namespace kvchat::app
