#include "messages/message_loader.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <atomic>

namespace kvchat::app {

// The part of the loader that lives on its thread: the connection is made, used and closed
// there (a QSqlDatabase connection belongs to the thread that made it).
class MessageLoaderThread : public QObject {
  Q_OBJECT
 public:
  explicit MessageLoaderThread(QString path) : path_(std::move(path)) {
    static std::atomic<int> next{0};
    connection_ = QStringLiteral("kvchat-message-loader-%1").arg(next++);
  }
  ~MessageLoaderThread() override {
    if (!QSqlDatabase::contains(connection_)) return;
    QSqlDatabase::database(connection_, false).close();
    QSqlDatabase::removeDatabase(connection_);
  }

  void load(quint64 ticket, qint64 conversation_id) {
    QString error;
    auto rows = QSharedPointer<MessageListModel::PreparedRows>::create();
    if (open(&error)) {
      *rows = MessageListModel::prepare(
          read_shown_messages(QSqlDatabase::database(connection_, false), conversation_id, &error));
    }
    emit loaded(ticket, conversation_id, rows, error);
  }

 signals:
  void loaded(quint64 ticket, qint64 conversation_id,
              QSharedPointer<MessageListModel::PreparedRows> rows, QString error);

 private:
  bool open(QString* error) {
    if (QSqlDatabase::contains(connection_)) return true;
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection_);
    db.setDatabaseName(path_);
    db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
    if (db.open()) return true;
    *error = QStringLiteral("cannot read %1: %2").arg(path_, db.lastError().text());
    db = QSqlDatabase();
    QSqlDatabase::removeDatabase(connection_);
    return false;
  }

  QString path_, connection_;
};

MessageLoader::MessageLoader(QString database_path, QObject* parent) : QObject(parent) {
  reader_ = new MessageLoaderThread(std::move(database_path));
  reader_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, reader_, &QObject::deleteLater);
  connect(reader_, &MessageLoaderThread::loaded, this, &MessageLoader::loaded,
          Qt::QueuedConnection);
  thread_.setObjectName(QStringLiteral("kvchat message loader"));
  thread_.start();
}

MessageLoader::~MessageLoader() {
  thread_.quit();
  thread_.wait();
}

void MessageLoader::load(quint64 ticket, qint64 conversation_id) {
  QMetaObject::invokeMethod(
      reader_, [r = reader_, ticket, conversation_id] { r->load(ticket, conversation_id); },
      Qt::QueuedConnection);
}

void MessageLoader::dispose(QVector<StoredMessage> messages) {
  if (messages.isEmpty()) return;
  // The last reference goes with the lambda, on the loader's thread.
  QMetaObject::invokeMethod(
      reader_, [m = std::move(messages)]() mutable { m = {}; }, Qt::QueuedConnection);
}

}  // namespace kvchat::app

#include "message_loader.moc"
