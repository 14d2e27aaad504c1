// The fake Hub (tests/hub/fake_hub.py) as a child process of a test: started on
// 127.0.0.1 with a free port (read from its first line of stdout), killed on destruction.
// Needs KVCHAT_FAKE_HUB (the script), KVCHAT_PYTHON3 and KVCHAT_SHARED_DIR defined.
#pragma once

#include <QByteArray>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QEventLoop>
#include <QProcess>
#include <QString>
#include <QUrl>

namespace kvchat::test {

// A model of ../shared/models (what the fake Hub serves).
inline QString shared_model(const char* name) {
  return QStringLiteral(KVCHAT_SHARED_DIR "/models/") + QLatin1String(name);
}

inline constexpr char kFakeHubToken[] = "kvchat-test-token";

class FakeHubProcess {
 public:
  FakeHubProcess() = default;
  ~FakeHubProcess() { stop(); }
  FakeHubProcess(const FakeHubProcess&) = delete;
  FakeHubProcess& operator=(const FakeHubProcess&) = delete;

  // Starts the server; false (with error()) when it did not print its port in time.
  bool start(const QStringList& extra_args = {}) {
    process_.setProgram(QStringLiteral(KVCHAT_PYTHON3));
    process_.setArguments(QStringList{QStringLiteral(KVCHAT_FAKE_HUB), QStringLiteral("--shared"),
                                      QStringLiteral(KVCHAT_SHARED_DIR)} +
                          extra_args);
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    process_.start();
    if (!process_.waitForStarted(10000)) {
      error_ = process_.errorString();
      return false;
    }
    QByteArray line;
    QDeadlineTimer deadline(30000);
    while (!line.contains('\n') && !deadline.hasExpired()) {
      if (!process_.waitForReadyRead(static_cast<int>(deadline.remainingTime()))) break;
      line += process_.readAllStandardOutput();
    }
    bool ok = false;
    port_ = line.trimmed().toInt(&ok);
    if (!ok || port_ <= 0) {
      error_ = QStringLiteral("fake_hub.py printed no port: ") + QString::fromUtf8(line) +
               QString::fromUtf8(process_.readAllStandardError());
      return false;
    }
    return true;
  }

  void stop() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }

  int port() const { return port_; }
  QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port_)); }
  const QString& error() const { return error_; }

  // The requests the server saw so far (/__requests): [{method, path, range, authorization}].
  QJsonArray requests() const {
    QNetworkAccessManager nam;
    QUrl u = url();
    u.setPath(QStringLiteral("/__requests"));
    QNetworkReply* reply = nam.get(QNetworkRequest(u));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const QJsonArray out = QJsonDocument::fromJson(reply->readAll()).array();
    reply->deleteLater();
    return out;
  }

 private:
  QProcess process_;
  int port_ = 0;
  QString error_;
};

}  // namespace kvchat::test
