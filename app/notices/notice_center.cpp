#include "notices/notice_center.h"

namespace kvchat::app {

QVariantMap NoticeCenter::action(const char* id, const QString& label) {
  return {{QStringLiteral("id"), QLatin1String(id)}, {QStringLiteral("label"), label}};
}

void NoticeCenter::set_notice(const QString& kind, const QString& text,
                              const QVariantList& actions) {
  notice_ = {{QStringLiteral("kind"), kind},
             {QStringLiteral("text"), text},
             {QStringLiteral("actions"), actions}};
  emit noticeChanged();
}

void NoticeCenter::dismissNotice() {
  if (notice_.isEmpty()) return;
  notice_.clear();
  emit noticeChanged();
}

void NoticeCenter::noticeAction(const QString& id) {
  QVariantMap chosen;
  for (const QVariant& a : notice_.value(QStringLiteral("actions")).toList()) {
    if (a.toMap().value(QStringLiteral("id")).toString() == id) chosen = a.toMap();
  }
  if (!chosen.isEmpty()) emit actionRequested(id, chosen);
}

void NoticeCenter::set_message(const QString& text, bool error, qint64 conversation_id) {
  if (conversation_id == kCurrent) conversation_id = conversation_;
  if (text.isEmpty()) {
    messages_.remove(conversation_id);
  } else {
    messages_.insert(conversation_id, Message{text, error});
  }
  show_conversation_message();
}

void NoticeCenter::show_error(const QString& text) {
  set_message(text, true);
  emit errorShown(text);
}

void NoticeCenter::dismissMessage() {
  if (!messages_.remove(conversation_)) messages_.remove(0);
  show_conversation_message();
}

void NoticeCenter::set_conversation(qint64 conversation_id) {
  conversation_ = conversation_id;
  show_conversation_message();
}

void NoticeCenter::forget_conversation(qint64 conversation_id) {
  if (conversation_id == 0) return;
  messages_.remove(conversation_id);
  show_conversation_message();
}

void NoticeCenter::show_conversation_message() {
  const Message shown =
      messages_.contains(conversation_) ? messages_.value(conversation_) : messages_.value(0);
  if (shown.text == message_ && shown.error == message_is_error_) return;
  message_ = shown.text;
  message_is_error_ = shown.error;
  emit messageChanged();
}

}  // namespace kvchat::app
