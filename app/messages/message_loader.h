// MessageLoader: reads a conversation's messages on a thread of its own and works out what
// their bubbles are drawn from (MessageListModel::prepare), so that opening a conversation
// holding giant texts (a 50 MiB paste: ~0.3-1.2 s of SQLite reading and UTF-16 conversion, a
// 6 MiB reply with reasoning ~0.1 s to split) never holds up the window (issue 40 point 8). It has
// its own read-only SQLite connection to the store's file (WAL: it reads while the window's
// connection writes), opened on its thread at the first load. The window's own texts are freed
// there too (dispose): a 50 MiB message is 100 MB of UTF-16 pages to unmap.
#pragma once

#include <QObject>
#include <QSharedPointer>
#include <QThread>
#include <QVector>

#include "messages/message_list_model.h"
#include "store/conversation_store.h"

namespace kvchat::app {

class MessageLoaderThread;

class MessageLoader : public QObject {
  Q_OBJECT
 public:
  explicit MessageLoader(QString database_path, QObject* parent = nullptr);
  ~MessageLoader() override;  // waits for a load under way

  // Reads conversation `conversation_id`'s shown messages (read_shown_messages) and
  // prepares them; `loaded` brings them to this object's thread with `ticket`, which the
  // caller uses to drop answers it no longer wants.
  void load(quint64 ticket, qint64 conversation_id);
  // Frees `messages` on the loader's thread.
  void dispose(QVector<StoredMessage> messages);

 signals:
  // error: empty, or why nothing could be read (the connection or the query failed).
  void loaded(quint64 ticket, qint64 conversation_id,
              QSharedPointer<MessageListModel::PreparedRows> rows, QString error);

 private:
  QThread thread_;
  MessageLoaderThread* reader_ = nullptr;  // lives on thread_
};

}  // namespace kvchat::app
