// SingleInstance (single_instance.h). The exchange on the socket, one per connection:
//   launcher -> instance: "kvc1", the payload's size (4 bytes, big-endian, at most
//                         kMaxPayload), the payload: each file in UTF-8 followed by a NUL
//                         (a path cannot hold one)
//   instance -> launcher: one byte kAck once the files were taken
// Read by hand, sizes checked before anything is allocated: whatever another process of the
// user writes to the socket, the window neither allocates much nor crashes.
#include "single_instance.h"

#include <QCryptographicHash>
#include <QtEndian>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

namespace kvchat::app {

namespace {

constexpr char kRequestMagic[4] = {'k', 'v', 'c', '1'};
constexpr qsizetype kHeaderSize = 8;          // magic + payload size
constexpr quint32 kMaxPayload = 1024 * 1024;  // a thousand long paths
constexpr char kAck = 'k';
// A connection that has not sent a whole request by then is dropped.
constexpr int kRequestTimeoutMs = 5000;

}  // namespace

SingleInstance::SingleInstance(const QString& data_dir, QObject* parent)
    : QObject(parent), name_(server_name_for(data_dir)) {}

SingleInstance::~SingleInstance() = default;  // server_ is a child: closed and removed with us

QString SingleInstance::server_name_for(const QString& data_dir) {
  const QFileInfo info(data_dir.isEmpty() ? QStringLiteral(".") : data_dir);
  QString path = info.canonicalFilePath();  // empty when it does not exist (yet)
  if (path.isEmpty()) path = QDir::cleanPath(info.absoluteFilePath());
  const QByteArray hash =
      QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha256).toHex();
  // Short enough for a Unix socket path under the temporary directory (108 bytes).
  return QStringLiteral("kvchat-") + QString::fromLatin1(hash.left(24));
}

bool SingleInstance::hand_over(const QStringList& files, int timeout_ms) const {
  const QDeadlineTimer deadline(timeout_ms);
  QLocalSocket socket;
  socket.connectToServer(name_);
  if (!socket.waitForConnected(static_cast<int>(deadline.remainingTime()))) return false;
  QByteArray payload;
  for (const QString& f : files) payload += f.toUtf8() + '\0';
  if (static_cast<quint64>(payload.size()) > kMaxPayload) return false;
  QByteArray request(kRequestMagic, sizeof kRequestMagic);
  const quint32 size = qToBigEndian(static_cast<quint32>(payload.size()));
  request.append(reinterpret_cast<const char*>(&size), sizeof size);
  request += payload;
  socket.write(request);
  while (socket.bytesToWrite() > 0) {
    if (deadline.hasExpired() ||
        !socket.waitForBytesWritten(static_cast<int>(deadline.remainingTime()))) {
      return false;
    }
  }
  while (socket.bytesAvailable() < 1) {
    if (deadline.hasExpired() ||
        !socket.waitForReadyRead(static_cast<int>(deadline.remainingTime()))) {
      return false;
    }
  }
  char ack = 0;
  return socket.getChar(&ack) && ack == kAck;
}

bool SingleInstance::listen() {
  if (listening()) return true;
  if (!server_) {
    server_ = new QLocalServer(this);
    // Only this user may connect (the socket lives in the shared temporary directory).
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    connect(server_, &QLocalServer::newConnection, this, &SingleInstance::on_new_connection);
  }
  if (server_->listen(name_)) return true;
  if (server_->serverError() == QAbstractSocket::AddressInUseError) {
    // A socket file nobody answered on (hand_over failed first): a killed or frozen
    // instance's. Take the name over.
    QLocalServer::removeServer(name_);
    if (server_->listen(name_)) return true;
  }
  error_ = server_->errorString();
  return false;
}

bool SingleInstance::listening() const { return server_ && server_->isListening(); }

void SingleInstance::on_new_connection() {
  while (QLocalSocket* socket = server_->nextPendingConnection()) {
    socket->setParent(this);
    connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QLocalSocket::readyRead, this, [this, socket] { read_request(socket); });
    QTimer::singleShot(kRequestTimeoutMs, socket, [socket] { socket->abort(); });
    read_request(socket);  // the request may be there already
  }
}

void SingleInstance::read_request(QLocalSocket* socket) {
  if (socket->property("kvchat_done").toBool()) return;
  if (socket->bytesAvailable() < kHeaderSize) return;  // not all there yet
  const QByteArray header = socket->peek(kHeaderSize);
  const quint32 size = qFromBigEndian<quint32>(header.constData() + sizeof kRequestMagic);
  if (!header.startsWith(QByteArray(kRequestMagic, sizeof kRequestMagic)) || size > kMaxPayload) {
    socket->setProperty("kvchat_done", true);
    socket->abort();  // not a launcher of ours
    return;
  }
  if (socket->bytesAvailable() < kHeaderSize + size) return;
  socket->setProperty("kvchat_done", true);
  socket->skip(kHeaderSize);
  const QByteArray payload = socket->read(size);
  QStringList files;
  qsizetype from = 0;
  for (qsizetype nul = payload.indexOf('\0'); nul >= 0; nul = payload.indexOf('\0', from)) {
    files.append(QString::fromUtf8(payload.constData() + from, nul - from));
    from = nul + 1;
  }
  socket->putChar(kAck);
  socket->flush();
  socket->disconnectFromServer();  // after the acknowledgement is written
  emit filesReceived(files);
}

}  // namespace kvchat::app
