// SingleInstance: one kvchat window per data directory. The first process listens on a
// local socket (QLocalServer) named after its data directory; a second launch on the same
// directory connects, hands over the files it was asked to open and exits, and the first
// emits filesReceived. Two data directories are two independent instances (the tests run
// with temporary ones side by side).
//
// A running instance that does not answer within the timeout (frozen, stopped), or a socket
// file left by a killed one, does not block a new launch: hand_over() returns false and
// listen() takes the name over.
#pragma once

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

  // The local socket's name for a data directory: "kvchat-" and a hash of its absolute,
  // cleaned (canonical where it exists) path, so "d", "./d" and "d/" are one instance.
  static QString server_name_for(const QString& data_dir);
  QString server_name() const { return name_; }

  // The second process: true when a running instance on this data directory took `files`
  // (and acknowledged them) within `timeout_ms`; false when there is none, or it did not
  // answer in time. Blocking; needs no event loop (safe on any thread).
  bool hand_over(const QStringList& files, int timeout_ms = 1000) const;

  // The first process: listen for later launches, taking over a stale name (a socket file
  // nobody answers on). false (error() says why) leaves the app working as before, just
  // not single-instance.
  bool listen();
  bool listening() const;
  QString error() const { return error_; }

 signals:
  // What a later launch handed over, in its order (absolute paths as it sent them). An
  // empty list: launched without files (the window should just come to the front).
  void filesReceived(const QStringList& files);

 private:
  void on_new_connection();
  void read_request(QLocalSocket* socket);

  QString name_;
  QLocalServer* server_ = nullptr;
  QString error_;
};

}  // namespace kvchat::app
