#include "messages/message_list_model.h"

#include <QClipboard>
#include <algorithm>
#include <QGuiApplication>
#include <QVariantMap>

#include "kvchat/reasoning.h"
#include "messages/text_pages.h"

namespace kvchat::app {

namespace {
// What a change of a row's text changes.
const QList<int> kTextRoles = {
    MessageListModel::ContentRole,        MessageListModel::SegmentsRole,
    MessageListModel::ThinkingRole,       MessageListModel::AnswerRole,
    MessageListModel::AnswerLengthRole,   MessageListModel::PageRole,
    MessageListModel::PageCountRole,      MessageListModel::ShownTextRole,
    MessageListModel::ThinkingPageRole,   MessageListModel::ThinkingPageCountRole,
    MessageListModel::ThinkingLengthRole, MessageListModel::AnswerMissingRole};
}  // namespace

ReplyParts reply_parts(const StoredMessage& m) {
  if (m.role != QLatin1String("assistant")) return {{}, m.content};
  const bool opened = m.stats.value(QStringLiteral("thinking_opened_by_prompt")).toBool();
  if (!opened && !m.content.contains(QLatin1String("<think>"))) return {{}, m.content};
  const ReasoningParts parts = split_reasoning(m.content.toStdString(), {}, opened);
  return {QString::fromStdString(parts.thinking), QString::fromStdString(parts.answer)};
}

bool reasoning_only(const ReplyParts& parts) {
  if (parts.thinking.isEmpty()) return false;
  // Stops at the answer's first letter (no trimmed() copy of a long answer).
  return std::all_of(parts.answer.cbegin(), parts.answer.cend(),
                     [](QChar c) { return c.isSpace(); });
}

QString message_state_name(MessageState s) {
  switch (s) {
    case MessageState::Complete: return QStringLiteral("complete");
    case MessageState::Streaming: return QStringLiteral("streaming");
    case MessageState::Interrupted: return QStringLiteral("interrupted");
  }
  return {};
}

int MessageListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= items_.size()) return {};
  const StoredMessage& m = items_[index.row()];
  switch (role) {
    case IdRole: return m.id;
    case RoleRole: return m.role;
    case ContentRole:
    case Qt::DisplayRole: return m.content;
    case StateRole: return message_state_name(m.state);
    case StatsRole: return m.stats;
    case ToolStepsRole: return m.tool_steps;
    case SavedRole: return !unsaved_[index.row()];
    case VersionRole: return m.version;
    case VersionCountRole: return m.version_count;
    case SegmentsRole: return page_segments(view(index.row()), m);
    case ThinkingRole: {
      const RowView& v = view(index.row());
      const TextPage p = text_page(v.thinking, v.thinking_page);
      return v.thinking.mid(p.begin, p.end - p.begin);
    }
    case AnswerRole: return view(index.row()).answer;
    case AnswerLengthRole: return static_cast<qint64>(view(index.row()).answer.size());
    case PageRole: return static_cast<int>(view(index.row()).page);
    case PageCountRole: return static_cast<int>(page_count(view(index.row()).answer.size()));
    case ShownTextRole: {
      const RowView& v = view(index.row());
      const TextPage p = text_page(v.answer, v.page);
      return v.answer.mid(p.begin, p.end - p.begin);
    }
    case ThinkingPageRole: return static_cast<int>(view(index.row()).thinking_page);
    case ThinkingPageCountRole:
      return static_cast<int>(page_count(view(index.row()).thinking.size()));
    case ThinkingLengthRole: return static_cast<qint64>(view(index.row()).thinking.size());
    case AnswerMissingRole:
      return m.state != MessageState::Streaming && view(index.row()).reasoning_only;
    default: return {};
  }
}

void MessageListModel::work_out(RowView& v, const StoredMessage& m) {
  ReplyParts parts = reply_parts(m);
  v.reasoning_only = reasoning_only(parts);
  v.thinking = std::move(parts.thinking);
  v.answer = std::move(parts.answer);
  v.segments =
      m.role == QLatin1String("assistant") ? segment_ranges(v.answer) : QVector<SegmentRange>{};
  v.page = std::clamp<qsizetype>(v.page, 0, page_count(v.answer.size()) - 1);
  v.thinking_page = std::clamp<qsizetype>(v.thinking_page, 0, page_count(v.thinking.size()) - 1);
  v.valid = true;
}

const MessageListModel::RowView& MessageListModel::view(int row) const {
  RowView& v = views_[row];
  if (!v.valid) work_out(v, items_[row]);
  return v;
}

MessageListModel::PreparedRows MessageListModel::prepare(QVector<StoredMessage> messages) {
  PreparedRows rows{std::move(messages), {}};
  rows.views.resize(rows.items.size());
  for (qsizetype i = 0; i < rows.items.size(); ++i) work_out(rows.views[i], rows.items[i]);
  return rows;
}

void MessageListModel::changed(int row) {
  RowView& v = views_[row];
  if (v.valid) {  // a reader on the last page stays on the last page as the text grows
    v.follow = v.follow || v.page + 1 >= page_count(v.answer.size());
    v.thinking_follow = v.thinking_follow || v.thinking_page + 1 >= page_count(v.thinking.size());
  }
  v.valid = false;
  view(row);
  if (v.follow) v.page = page_count(v.answer.size()) - 1;
  if (v.thinking_follow) v.thinking_page = page_count(v.thinking.size()) - 1;
}

QVariantList MessageListModel::page_segments(const RowView& v, const StoredMessage& m) const {
  QVariantList out;
  if (m.role != QLatin1String("assistant")) return out;
  const TextPage page = text_page(v.answer, v.page);
  for (int i = 0; i < v.segments.size(); ++i) {
    const SegmentRange& r = v.segments[i];
    const qsizetype begin = std::max(r.begin, page.begin);
    const qsizetype end = std::min(r.end, page.end);
    // A code block is shown on every page it overlaps; an empty one on the page it sits on.
    const bool on_page = r.begin == r.end ? page.begin <= r.begin &&
                                                (r.begin < page.end || page.end == v.answer.size())
                                          : r.begin < page.end && r.end > page.begin;
    const bool touches = r.code ? on_page : end > begin;
    if (!touches) continue;
    const QString text = end > begin ? v.answer.mid(begin, end - begin) : QString();
    if (!r.code && text.trimmed().isEmpty()) continue;
    out.append(QVariantMap{
        {QStringLiteral("kind"), r.code ? QStringLiteral("code") : QStringLiteral("text")},
        {QStringLiteral("text"), text},
        {QStringLiteral("language"), r.language},
        {QStringLiteral("closed"), r.closed},
        {QStringLiteral("index"), i},
        {QStringLiteral("continued"), r.begin < page.begin}});
  }
  return out;
}

void MessageListModel::showPage(int row, int page) {
  if (row < 0 || row >= items_.size()) return;
  const RowView& v = view(row);
  const qsizetype to = std::clamp<qsizetype>(page, 0, page_count(v.answer.size()) - 1);
  if (to == v.page) return;
  views_[row].page = to;
  views_[row].follow = to + 1 >= page_count(v.answer.size());
  emit dataChanged(index(row), index(row), {PageRole, ShownTextRole, SegmentsRole});
}

void MessageListModel::showThinkingPage(int row, int page) {
  if (row < 0 || row >= items_.size()) return;
  const RowView& v = view(row);
  const qsizetype to = std::clamp<qsizetype>(page, 0, page_count(v.thinking.size()) - 1);
  if (to == v.thinking_page) return;
  views_[row].thinking_page = to;
  views_[row].thinking_follow = to + 1 >= page_count(v.thinking.size());
  emit dataChanged(index(row), index(row), {ThinkingPageRole, ThinkingRole});
}

QString MessageListModel::textOf(int row, const QString& what) const {
  if (row < 0 || row >= items_.size()) return {};
  if (what == QLatin1String("content")) return items_[row].content;
  if (what == QLatin1String("answer")) return view(row).answer;
  if (what == QLatin1String("thinking")) return view(row).thinking;
  if (what == QLatin1String("shown")) return copy_text(row);
  return {};
}

QString MessageListModel::copy_text(int row) const {
  if (row < 0 || row >= items_.size()) return {};
  if (items_[row].role != QLatin1String("assistant")) return items_[row].content;
  const RowView& v = view(row);
  return v.reasoning_only ? v.thinking : v.answer;
}

namespace {
void to_clipboard(const QString& text) {
  // Only where there is a clipboard: the window's (not a test's QCoreApplication).
  if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
    QGuiApplication::clipboard()->setText(text);
}
}  // namespace

void MessageListModel::copy(int row, const QString& what) const { to_clipboard(textOf(row, what)); }

void MessageListModel::copyCode(int row, int index) const {
  if (row < 0 || row >= items_.size()) return;
  const RowView& v = view(row);
  if (index < 0 || index >= v.segments.size() || !v.segments[index].code) return;
  const SegmentRange& r = v.segments[index];
  to_clipboard(v.answer.mid(r.begin, r.end - r.begin));
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
  return {{IdRole, "messageId"},
          {RoleRole, "role"},
          {ContentRole, "content"},
          {StateRole, "state"},
          {StatsRole, "stats"},
          {ToolStepsRole, "toolSteps"},
          {SavedRole, "saved"},
          {VersionRole, "version"},
          {VersionCountRole, "versionCount"},
          {SegmentsRole, "segments"},
          {ThinkingRole, "thinking"},
          {AnswerRole, "answer"},
          {AnswerLengthRole, "answerLength"},
          {PageRole, "page"},
          {PageCountRole, "pageCount"},
          {ShownTextRole, "shownText"},
          {ThinkingPageRole, "thinkingPage"},
          {ThinkingPageCountRole, "thinkingPageCount"},
          {ThinkingLengthRole, "thinkingLength"},
          {AnswerMissingRole, "answerMissing"}};
}

void MessageListModel::reset(QVector<StoredMessage> messages) {
  reset_prepared({std::move(messages), {}});
}

void MessageListModel::reset_prepared(PreparedRows rows) {
  beginResetModel();
  items_ = std::move(rows.items);
  unsaved_ = QVector<bool>(items_.size(), false);
  // Rows not prepared are worked out when first read.
  views_ =
      rows.views.size() == items_.size() ? std::move(rows.views) : QVector<RowView>(items_.size());
  endResetModel();
}

void MessageListModel::append(const StoredMessage& message, bool saved) {
  const int row = static_cast<int>(items_.size());
  beginInsertRows({}, row, row);
  items_.push_back(message);
  unsaved_.push_back(!saved);
  RowView v;
  v.follow = v.thinking_follow = true;  // a reply about to stream in
  views_.push_back(v);
  endInsertRows();
}

void MessageListModel::set_unsaved(int row) {
  if (row < 0 || row >= items_.size() || unsaved_[row]) return;
  unsaved_[row] = true;
  emit dataChanged(index(row), index(row), {SavedRole});
}

void MessageListModel::set_saved(int row, qint64 id) {
  if (row < 0 || row >= items_.size()) return;
  items_[row].id = id;
  unsaved_[row] = false;
  emit dataChanged(index(row), index(row), {IdRole, SavedRole});
}

void MessageListModel::append_to_last(const QString& text) {
  if (items_.isEmpty()) return;
  items_.back().content += text;
  const int row = static_cast<int>(items_.size()) - 1;
  changed(row);
  emit dataChanged(index(row), index(row), kTextRoles);
}

void MessageListModel::update_last(MessageState state, const QVariantMap& stats) {
  if (items_.isEmpty()) return;
  items_.back().state = state;
  items_.back().stats = stats;
  const int row = static_cast<int>(items_.size()) - 1;
  changed(row);  // the stats say whether the prompt opened its reasoning
  emit dataChanged(index(row), index(row), QList<int>{StateRole, StatsRole} + kTextRoles);
}

void MessageListModel::set_last_tool_steps(const QVariantList& steps, const QString& content) {
  if (items_.isEmpty()) return;
  items_.back().tool_steps = steps;
  const int row = static_cast<int>(items_.size()) - 1;
  if (items_.back().content != content) {
    items_.back().content = content;
    changed(row);
  }
  emit dataChanged(index(row), index(row), QList<int>{ToolStepsRole} + kTextRoles);
}

void MessageListModel::set_row(int row, const StoredMessage& message) {
  if (row < 0 || row >= items_.size()) return;
  items_[row] = message;
  views_[row] = {};  // another text: from its first page
  emit dataChanged(index(row), index(row));
}

void MessageListModel::truncate(int count) {
  if (count >= items_.size()) return;
  beginRemoveRows({}, count, static_cast<int>(items_.size()) - 1);
  items_.resize(count);
  unsaved_.resize(count);
  views_.resize(count);
  endRemoveRows();
}

}  // namespace kvchat::app
