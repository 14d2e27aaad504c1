// SingleInstance (single_instance.h). The exchange on the socket, one per connection:
//   launcher -> instance: "kvc1", the payload's size (4 bytes, big-endian, at most
//                         kMaxPayload), the payload: each file in UTF-8 followed by a NUL
//                         (a path cannot hold one)
//   instance -> launcher: one byte kAck once the files were taken
// Read by hand, sizes checked before anything is allocated: whatever another process of the
// user writes to the socket, the window neither allocates much nor crashes. A process of
// another user gets nothing: the launcher checks the listener's uid before it writes, the
// instance checks the launcher's before it reads.
#include "platform/single_instance.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QtEndian>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>
#include <cerrno>
#include <cstring>

namespace kvchat::app {

namespace {

constexpr char kRequestMagic[4] = {'k', 'v', 'c', '1'};
constexpr qsizetype kHeaderSize = 8;          // magic + payload size
constexpr quint32 kMaxPayload = 1024 * 1024;  // a thousand long paths
constexpr char kAck = 'k';
// A connection that has not sent a whole request by then is dropped.
constexpr int kRequestTimeoutMs = 5000;
// "/kvchat-" and 24 hex digits after the directory.
constexpr qsizetype kSocketNameBytes = 8 + 24;

QString reason(int e) { return QString::fromLocal8Bit(std::strerror(e)); }

QString mode_text(mode_t mode) {
  return QStringLiteral("0") + QString::number(mode & 07777, 8).rightJustified(3, QLatin1Char('0'));
}

// Whether a socket path in `dir` fits sockaddr_un (with its NUL).
bool fits_socket_path(const QString& dir) {
  return static_cast<size_t>(QFile::encodeName(dir).size() + kSocketNameBytes) <
         sizeof(sockaddr_un::sun_path);
}

}  // namespace

SingleInstance::SingleInstance(const QString& data_dir, QObject* parent)
    : QObject(parent), name_(server_name_for(data_dir, &untrusted_)), peer_uid_(::getuid()) {}

SingleInstance::~SingleInstance() = default;  // server_ is a child: closed and removed with us

bool SingleInstance::private_directory(const QString& dir, uid_t owner, QString* why) {
  QString local;
  if (!why) why = &local;
  struct stat st {};
  if (::lstat(QFile::encodeName(dir).constData(), &st) != 0) {
    *why = QStringLiteral("%1 cannot be examined: %2").arg(dir, reason(errno));
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    *why = QStringLiteral("%1 is a symbolic link, not a directory of this user's own").arg(dir);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *why = QStringLiteral("%1 is not a directory").arg(dir);
    return false;
  }
  if (st.st_uid != owner) {
    *why = QStringLiteral("%1 belongs to another user (uid %2)").arg(dir).arg(st.st_uid);
    return false;
  }
  if ((st.st_mode & 07777) != 0700) {
    *why = QStringLiteral("%1 has mode %2, not 0700: other users can reach it")
               .arg(dir, mode_text(st.st_mode));
    return false;
  }
  return true;
}

QString SingleInstance::socket_directory(QString* why) {
  QString local;
  if (!why) why = &local;
  why->clear();
  QString runtime_refused;
  const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
  if (!runtime.isEmpty()) {
    const QString dir = QDir::cleanPath(runtime);
    if (!QDir::isAbsolutePath(dir)) {
      runtime_refused = QStringLiteral("XDG_RUNTIME_DIR (%1) is not an absolute path").arg(runtime);
    } else if (!fits_socket_path(dir)) {
      runtime_refused = QStringLiteral("%1 is too long for a local socket's path").arg(dir);
    } else if (private_directory(dir, ::getuid(), &runtime_refused)) {
      return dir;
    }
  }
  // The user's own directory in the temporary one (shared: /tmp is writable by all, its
  // sticky bit keeps others from renaming or removing what is ours).
  const QString dir =
      QDir::cleanPath(QDir::tempPath()) + QStringLiteral("/kvchat-") + QString::number(::getuid());
  const QByteArray native = QFile::encodeName(dir);
  if (::mkdir(native.constData(), 0700) == 0) {
    ::chmod(native.constData(), 0700);  // whatever the umask took away; it is ours, just made
  } else if (errno != EEXIST) {
    *why = QStringLiteral("%1 cannot be created: %2").arg(dir, reason(errno));
  }
  if (why->isEmpty() && !fits_socket_path(dir)) {
    *why = QStringLiteral("%1 is too long for a local socket's path").arg(dir);
  }
  if (why->isEmpty() && private_directory(dir, ::getuid(), why)) return dir;
  if (!runtime_refused.isEmpty()) *why = runtime_refused + QStringLiteral("; ") + *why;
  return {};
}

QString SingleInstance::server_name_for(const QString& data_dir, QString* why) {
  const QString socket_dir = socket_directory(why);
  if (socket_dir.isEmpty()) return {};
  const QFileInfo info(data_dir.isEmpty() ? QStringLiteral(".") : data_dir);
  QString path = info.canonicalFilePath();  // empty when it does not exist (yet)
  if (path.isEmpty()) path = QDir::cleanPath(info.absoluteFilePath());
  const QByteArray hash =
      QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha256).toHex();
  // A full path: QLocalServer and QLocalSocket take it as it is.
  return socket_dir + QStringLiteral("/kvchat-") + QString::fromLatin1(hash.left(24));
}

bool SingleInstance::socket_file_of(const QString& path, uid_t owner, QString* why) {
  QString local;
  if (!why) why = &local;
  why->clear();
  struct stat st {};
  if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
    if (errno != ENOENT)
      *why = QStringLiteral("%1 cannot be examined: %2").arg(path, reason(errno));
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    *why = QStringLiteral("%1 is a symbolic link, not a socket of this user's own").arg(path);
  } else if (!S_ISSOCK(st.st_mode)) {
    *why = QStringLiteral("%1 is not a socket").arg(path);
  } else if (st.st_uid != owner) {
    *why =
        QStringLiteral("the socket %1 belongs to another user (uid %2)").arg(path).arg(st.st_uid);
  }
  return why->isEmpty();
}

bool SingleInstance::peer_is(qintptr fd, uid_t expected, QString* why) {
  QString local;
  if (!why) why = &local;
  uid_t uid = 0;
#if defined(SO_PEERCRED)
  ucred cred{};
  socklen_t size = sizeof cred;
  if (::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 ||
      size != sizeof cred) {
    *why = QStringLiteral("the user at the other end of the socket cannot be checked: %1")
               .arg(reason(errno));
    return false;
  }
  uid = cred.uid;
#else
  gid_t gid = 0;
  if (::getpeereid(static_cast<int>(fd), &uid, &gid) != 0) {
    *why = QStringLiteral("the user at the other end of the socket cannot be checked: %1")
               .arg(reason(errno));
    return false;
  }
#endif
  if (uid != expected) {
    *why =
        QStringLiteral("the process at the other end of the socket runs as another user (uid %1)")
            .arg(uid);
    return false;
  }
  return true;
}

bool SingleInstance::hand_over(const QStringList& files, int timeout_ms, QString* untrusted) const {
  QString local;
  if (!untrusted) untrusted = &local;
  untrusted->clear();
  if (name_.isEmpty()) {
    *untrusted = untrusted_;
    return false;
  }
  // Checked again now: the directory, then what is in it, then who listens on it.
  if (!private_directory(QFileInfo(name_).path(), ::getuid(), untrusted)) return false;
  if (!socket_file_of(name_, ::getuid(), untrusted)) return false;  // nothing, or not ours
  const QDeadlineTimer deadline(timeout_ms);
  QLocalSocket socket;
  socket.connectToServer(name_);
  if (!socket.waitForConnected(static_cast<int>(deadline.remainingTime()))) return false;
  if (!peer_is(socket.socketDescriptor(), peer_uid_, untrusted)) {
    socket.abort();  // nothing was written
    return false;
  }
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
  if (name_.isEmpty()) {
    error_ = untrusted_;
    return false;
  }
  if (!private_directory(QFileInfo(name_).path(), ::getuid(), &error_)) return false;
  if (!server_) {
    server_ = new QLocalServer(this);
    // Only this user may connect (the directory is private too; the peer is checked).
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    connect(server_, &QLocalServer::newConnection, this, &SingleInstance::on_new_connection);
  }
  if (server_->listen(name_)) return true;
  if (server_->serverError() == QAbstractSocket::AddressInUseError) {
    // A socket file nobody answered on (hand_over failed first): a killed or frozen
    // instance's. Take the name over, if it is a socket of ours.
    QString why;
    if (!socket_file_of(name_, ::getuid(), &why) && !why.isEmpty()) {
      error_ = why;
      return false;
    }
    QLocalServer::removeServer(name_);
    if (server_->listen(name_)) return true;
  }
  error_ = server_->errorString();
  return false;
}

bool SingleInstance::listening() const { return server_ && server_->isListening(); }

void SingleInstance::on_new_connection() {
  while (QLocalSocket* socket = server_->nextPendingConnection()) {
    // Nothing is read from a process of another user.
    QString why;
    if (!peer_is(socket->socketDescriptor(), peer_uid_, &why)) {
      qWarning("kvchat: single instance: a connection dropped unread: %s", qPrintable(why));
      socket->abort();
      socket->deleteLater();
      continue;
    }
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
