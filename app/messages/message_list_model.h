// MessageListModel: the messages of the open conversation, for QML. The streaming reply
// grows in place (append_to_last). A long message reaches the bubble a page at a time
// (models/text_pages.h: at most kPageChars laid out, however long it is); each row keeps
// the page it shows of its answer and of its reasoning, and what it was split into (its
// reasoning, its code blocks) is worked out once per change, not per role read. A row the store
// could not take yet (disk full, I/O error) stays, marked unsaved (role "saved" false; id 0 when it
// was never written) until the controller's next save writes it. Mutated only on the GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QVector>

#include "messages/message_segments.h"
#include "store/conversation_store.h"

namespace kvchat::app {

class MessageListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  // version / versionCount: which reply version the row shows (0-based) of how many.
  // answer: a reply's text after its reasoning (a user's: all of it), answerLength its
  // length; page / pageCount: the page of it the bubble shows (0-based) of how many;
  // shownText: that page; segments: that page split at fenced code blocks
  // (message_segments.h; a reply's only): {kind: "text"|"code", text, language, closed,
  // index (of the block in the whole answer, for copyCode), continued (it began on an
  // earlier page)}. thinking: the page shown of a reply's reasoning, thinkingPage /
  // thinkingPageCount / thinkingLength the same for it. answerMissing: a finished reply
  // (not streaming) with reasoning and no answer (reasoning_only()): one that ended, was cut
  // or stopped while still reasoning; its bubble keeps its reasoning open and says so.
  enum Roles {
    IdRole = Qt::UserRole + 1,
    RoleRole,
    ContentRole,
    StateRole,
    StatsRole,
    SavedRole,
    VersionRole,
    VersionCountRole,
    SegmentsRole,
    ThinkingRole,
    AnswerRole,
    AnswerLengthRole,
    PageRole,
    PageCountRole,
    ShownTextRole,
    ThinkingPageRole,
    ThinkingPageCountRole,
    ThinkingLengthRole,
    AnswerMissingRole,
    ToolStepsRole  // toolSteps: a reply's tool calls (app/tools/tool_steps.h)
  };
  using QAbstractListModel::QAbstractListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void reset(QVector<StoredMessage> messages);
  // Rows worked out before they are shown (what the bubbles are drawn from: reasoning split
  // off, code blocks found): prepare() touches nothing of a model, so a thread other than
  // the window's may run it on texts of many MiB (models/message_loader.h). reset() is
  // reset_prepared() of rows not prepared (their views worked out when first read).
  struct PreparedRows;
  static PreparedRows prepare(QVector<StoredMessage> messages);
  void reset_prepared(PreparedRows rows);
  void append(const StoredMessage& message, bool saved = true);
  void append_to_last(const QString& text);
  void update_last(MessageState state, const QVariantMap& stats);
  // The last row's tool steps and text (a reply that made calls: what it wrote before them
  // moved into its step, the text starting again empty for what comes after the results).
  void set_last_tool_steps(const QVariantList& steps, const QString& content);
  void truncate(int count);                             // keeps the first `count` messages
  void set_row(int row, const StoredMessage& message);  // another version of it, say
  // Unsaved rows: appended with append(m, false), or marked after a failed update.
  void set_unsaved(int row);
  void set_saved(int row, qint64 id);  // written: its store id
  bool saved(int row) const { return row >= 0 && row < unsaved_.size() && !unsaved_[row]; }
  int unsaved_count() const { return static_cast<int>(unsaved_.count(true)); }

  const QVector<StoredMessage>& items() const { return items_; }

  // The page a row shows of its answer, of its reasoning (clamped to those there are).
  Q_INVOKABLE void showPage(int row, int page);
  Q_INVOKABLE void showThinkingPage(int row, int page);
  // To the clipboard, whole however long: a message as stored ("content"), its answer
  // ("answer"), its reasoning ("thinking") or what its bubble shows ("shown": copy_text());
  // copyCode: code block `index` of its answer. (Passing such a text through QML would lay
  // it out.)
  Q_INVOKABLE void copy(int row, const QString& what) const;
  Q_INVOKABLE void copyCode(int row, int index) const;
  // The text copy() puts on the clipboard ("" for an unknown row or part).
  Q_INVOKABLE QString textOf(int row, const QString& what) const;
  // What the bubble's Copy copies: what it shows. A user's text as stored; a reply's answer
  // (not its reasoning), or its reasoning when it has no answer (reasoning_only()): copying
  // an empty answer of a reply that is all reasoning would copy nothing of what is shown.
  QString copy_text(int row) const;

 private:
  // What a row's bubble is drawn from, worked out from its content when first read after a
  // change (the page numbers survive the change).
  struct RowView {
    bool valid = false;
    QString thinking, answer;        // reply_parts(); answer shares the content without reasoning
    QVector<SegmentRange> segments;  // of the answer (a reply's)
    bool reasoning_only = false;     // reasoning_only() of its parts
    qsizetype page = 0, thinking_page = 0;
    // On the last page as the text grows: a reply streaming in (set by append()), or one
    // whose reader was on its last page. Kept across a change, like the pages.
    bool follow = false, thinking_follow = false;
  };
  static void work_out(RowView& v, const StoredMessage& m);  // v from m's text
  const RowView& view(int row) const;
  void changed(int row);  // its content changed: worked out again, the pages followed
  QVariantList page_segments(const RowView& v, const StoredMessage& m) const;

  QVector<StoredMessage> items_;
  QVector<bool> unsaved_;           // per row
  mutable QVector<RowView> views_;  // per row
};

struct MessageListModel::PreparedRows {
  QVector<StoredMessage> items;
  QVector<RowView> views;  // one per item, worked out; or none
};

QString message_state_name(MessageState s);

// A message's text as the bubble shows it: a reply's reasoning (kvchat/reasoning.h; it
// starts inside it when its stats say the prompt opened it: "thinking_opened_by_prompt")
// apart from its answer; a user's text is all answer. The stored content stays the raw
// sampled text (the model's template decides how history renders it).
struct ReplyParts {
  QString thinking, answer;
};
ReplyParts reply_parts(const StoredMessage& m);
// A reply that has reasoning and no answer (nothing but white space after it): its bubble
// shows only the reasoning.
bool reasoning_only(const ReplyParts& parts);

}  // namespace kvchat::app
