// ConversationHost: what the documents half of the window needs from the chat (the open
// conversation, its messages, the engine's state, sending). ChatController implements
// it and wires its signals to DocumentController's slots, so the two controllers do not
// include each other. GUI thread only.
#pragma once

#include <QString>
#include <QVariantMap>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

class MemoryState;

class ConversationHost {
 public:
  virtual ~ConversationHost() = default;

  virtual qint64 current_conversation() const = 0;
  // The open conversation's messages, in order.
  virtual const QVector<StoredMessage>& message_items() const = 0;
  virtual QString system_prompt() const = 0;
  virtual bool model_loading() const = 0;
  virtual bool generating() const = 0;
  // The chat session's memory figures (its latest report: memory()).
  virtual MemoryState* memory_state() const = 0;
  virtual QVariantMap last_reply_stats() const = 0;
  // Why the database could not be opened ("" when it was).
  virtual QString store_error() const = 0;

  virtual void newConversation() = 0;
  // A user message with stats (a document sent whole), and its reply. False, with the
  // reason shown, when nothing was sent.
  virtual bool send_with_stats(const QString& text, const QVariantMap& stats) = 0;
  // A finished user/assistant pair (a document's summary). False with *error when the
  // store refused it.
  virtual bool append_exchange(qint64 conversation_id, const QString& user_text,
                               const QVariantMap& user_stats, const QString& reply,
                               const QVariantMap& reply_stats, QString* error) = 0;
};

}  // namespace kvchat::app
