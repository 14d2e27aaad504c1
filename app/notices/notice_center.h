// NoticeCenter: the one owner of every banner of the window (`notices` in QML).
// Owns the action banner (notice: kind, text, actions [{id, label}]; a failed model load,
// a full context, a reply that wrote nothing, a summary being written) and the message
// banner (message, messageIsError): each conversation's notices and the window's (id 0,
// shown in every conversation that has none of its own), errors included (show_error).
// It knows no controller: the open conversation is told to it (set_conversation), and a
// chosen action goes back to its owner through actionRequested. GUI thread only.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace kvchat::app {

class NoticeCenter : public QObject {
  Q_OBJECT
  // The action banner: kind ("load-failed", "context-full", "no-reply", "summarizing",
  // "conversation-model"), text, actions [{id, label, ...}] for noticeAction(). Empty: none.
  Q_PROPERTY(QVariantMap notice READ notice NOTIFY noticeChanged)
  // The message banner: the open conversation's notice, else the window's.
  Q_PROPERTY(QString message READ message NOTIFY messageChanged)
  Q_PROPERTY(bool messageIsError READ message_is_error NOTIFY messageChanged)

 public:
  explicit NoticeCenter(QObject* parent = nullptr) : QObject(parent) {}

  // A banner action: {"id": id, "label": label}.
  static QVariantMap action(const char* id, const QString& label);

  QVariantMap notice() const { return notice_; }
  QString notice_kind() const { return notice_.value(QStringLiteral("kind")).toString(); }
  void set_notice(const QString& kind, const QString& text, const QVariantList& actions);
  Q_INVOKABLE void dismissNotice();
  // One of the banner's actions chosen: actionRequested with its map (nothing when the
  // banner has no such action).
  Q_INVOKABLE void noticeAction(const QString& id);

  QString message() const { return message_; }
  bool message_is_error() const { return message_is_error_; }
  // A notice of a conversation (kCurrent: the open one; 0: the whole window, shown in
  // every conversation until dismissed); an empty text removes it.
  static constexpr qint64 kCurrent = -1;
  void set_message(const QString& text, bool error, qint64 conversation_id = kCurrent);
  // An error of the open conversation (errorShown tells who listens).
  void show_error(const QString& text);
  // The open conversation's notice goes, else the window's.
  Q_INVOKABLE void dismissMessage();
  // The open conversation (0: none): its notices are shown.
  void set_conversation(qint64 conversation_id);
  // A conversation deleted for good: its notices go with it.
  void forget_conversation(qint64 conversation_id);

 signals:
  void noticeChanged();
  void messageChanged();
  void actionRequested(const QString& id, const QVariantMap& action);
  void errorShown(const QString& text);

 private:
  void show_conversation_message();  // message_ from messages_ for the open conversation

  QVariantMap notice_;
  qint64 conversation_ = 0;
  QString message_;
  bool message_is_error_ = false;
  struct Message {
    QString text;
    bool error = false;
  };
  QHash<qint64, Message> messages_;  // per conversation id; 0: the whole window
};

}  // namespace kvchat::app
