// SingleInstance: one kvchat window per data directory. The first process listens on a
// local socket (QLocalServer) named after its data directory; a second launch on the same
// directory connects, hands over the files it was asked to open and exits, and the first
// emits filesReceived. Two data directories are two independent instances (the tests run
// with temporary ones side by side).
//
// The socket is this user's alone (issue 40): it lives in $XDG_RUNTIME_DIR when that is a
// directory of the user's own with mode 0700, else in <temporary dir>/kvchat-<uid>, created
// 0700 and checked the same way (lstat: a real directory, not a symbolic link, owned by
// getuid(), mode exactly 0700); a directory that fails the check is refused, never used.
// Both ends check the other's uid (SO_PEERCRED) before anything is sent or read: a listener
// or a launcher of another user is never trusted (hand_over says why; the window opens on
// its own). Before this, the socket's name was predictable in the shared /tmp, and another
// user's listener got the files and made the launch exit without a window.
//
// A running instance that does not answer within the timeout (frozen, stopped), or a socket
// file left by a killed one, does not block a new launch: hand_over() returns false and
// listen() takes the name over.
#pragma once

#include <sys/types.h>

#include <QObject>
#include <QString>
#include <QStringList>

class QLocalServer;
class QLocalSocket;

namespace kvchat::app {

class SingleInstance : public QObject {
  Q_OBJECT

 public:
  explicit SingleInstance(const QString& data_dir, QObject* parent = nullptr);
  ~SingleInstance() override;

  // The local socket of a data directory: its full path, the private directory
  // (socket_directory) + "/kvchat-" + a hash of the data directory's absolute, cleaned
  // (canonical where it exists) path, so "d", "./d" and "d/" are one instance. Empty, with
  // *why, when there is no private directory to put it in.
  static QString server_name_for(const QString& data_dir, QString* why = nullptr);
  QString server_name() const { return name_; }

  // Where the sockets live: $XDG_RUNTIME_DIR when it passes private_directory (and a socket
  // path fits in it), else <QDir::tempPath()>/kvchat-<uid>, made with mode 0700 if missing.
  // Empty, with *why, when that one fails the check too.
  static QString socket_directory(QString* why = nullptr);
  // lstat(dir): a directory (not a symbolic link), owned by `owner`, mode exactly 0700.
  // false with *why (a sentence naming the directory) otherwise.
  static bool private_directory(const QString& dir, uid_t owner, QString* why = nullptr);
  // lstat(path): a socket (not a symbolic link) owned by `owner`. false with *why empty when
  // nothing is there, with *why set when what is there is not to be trusted.
  static bool socket_file_of(const QString& path, uid_t owner, QString* why = nullptr);
  // The uid of the process at the other end of the connected local socket `fd`
  // (SO_PEERCRED) is `expected`; false with *why otherwise, or when it cannot be read.
  static bool peer_is(qintptr fd, uid_t expected, QString* why = nullptr);

  // The second process: true when a running instance on this data directory took `files`
  // (and acknowledged them) within `timeout_ms`; false when there is none, or it did not
  // answer in time, or it is not to be trusted: then *untrusted says why (a sentence;
  // empty in the other cases) and nothing was sent. Blocking; needs no event loop (safe on
  // any thread).
  bool hand_over(const QStringList& files, int timeout_ms = 1000,
                 QString* untrusted = nullptr) const;

  // The first process: listen for later launches, taking over a stale name (a socket file
  // nobody answers on). false (error() says why) leaves the app working as before, just
  // not single-instance.
  bool listen();
  bool listening() const;
  QString error() const { return error_; }

  // Tests only: the uid both ends expect at the other end (default getuid()). Another value
  // makes this process's own peers look like another user's.
  void expect_peer_uid_for_testing(uid_t uid) { peer_uid_ = uid; }

 signals:
  // What a later launch handed over, in its order (absolute paths as it sent them). An
  // empty list: launched without files (the window should just come to the front).
  void filesReceived(const QStringList& files);

 private:
  void on_new_connection();
  void read_request(QLocalSocket* socket);

  QString untrusted_;  // why the socket directory is refused (before name_: set with it)
  QString name_;       // empty when there is no private directory (untrusted_ says why)
  uid_t peer_uid_;
  QLocalServer* server_ = nullptr;
  QString error_;
};

}  // namespace kvchat::app
