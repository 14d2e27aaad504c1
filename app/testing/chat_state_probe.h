// ChatStateProbe: what the end-to-end tests read of the window (KVCHAT_TEST_STATE_FILE),
// kept out of the controllers. main.cpp creates it only when that variable is set; its
// StateProbe subscribes to every signal of the chat's controllers (the chat, the model,
// the memory panel, the banners, the sidebar's list, the documents, the message list)
// and rewrites the state file shortly after each. Nothing in the controllers knows it
// exists. GUI thread only.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <memory>
#include <QVariantMap>

namespace kvchat::app {

class ChatController;
class StateProbe;

class ChatStateProbe : public QObject {
  Q_OBJECT
 public:
  ChatStateProbe(ChatController& chat, const QString& path, QObject* parent = nullptr);
  ~ChatStateProbe() override;

  // Every signal of `object` rewrites the state (e.g. the window's language).
  void watch(QObject* object);
  // What the window shows of a message (its text as rendered, from QML), by row.
  Q_INVOKABLE void noteShownText(int row, const QString& text);

  // The state as written: the conversations listed, the messages of the open one, the
  // memory panel's numbers, the model, the banners, the documents.
  QVariantMap state() const;

 private:
  QVariantMap reply_state() const;  // "reply": the last message, what each row shows
  // The sidebar's list: conversations, conversation_titles, search_text, current_listed,
  // pending_delete.
  QVariantMap list_state() const;
  QVariantMap documents_state() const;  // "documents": the preview, the jobs, the banner

  ChatController& chat_;
  // True once a reply has ended (written, refused, or dropped empty) until the next one
  // starts or another conversation's snapshot is restored.
  bool reply_finished_ = false;
  QHash<int, QString> shown_texts_;
  std::unique_ptr<StateProbe> writer_;  // last: it reads the state above
};

}  // namespace kvchat::app
