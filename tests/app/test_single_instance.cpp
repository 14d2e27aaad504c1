// SingleInstance (app/single_instance.h): a first instance listening and a second handing
// over its files, received exactly; a stale socket file and a frozen instance taken over;
// two data directories never seeing each other. The second instance's hand_over blocks, so
// it runs on a thread of its own while this one runs the first's event loop.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cstring>
#include <thread>

#include "single_instance.h"

using kvchat::app::SingleInstance;

namespace {

// hand_over on a thread of its own; the result once joined.
class HandOver {
 public:
  HandOver(const SingleInstance& launcher, const QStringList& files, int timeout_ms = 1000)
      : thread_([this, &launcher, files, timeout_ms] {
          result_ = launcher.hand_over(files, timeout_ms);
        }) {}
  ~HandOver() {
    if (thread_.joinable()) thread_.join();
  }
  bool result() {
    thread_.join();
    return result_;
  }

 private:
  std::atomic<bool> result_{false};
  std::thread thread_;
};

// Where QLocalServer puts the socket of a name: the temporary directory.
QString socket_path(const QString& name) {
  return QDir::cleanPath(QDir::tempPath()) + QLatin1Char('/') + name;
}

// A socket file with nobody listening on it, as a killed instance leaves it.
bool make_stale_socket(const QString& path) {
  const QByteArray p = path.toLocal8Bit();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (static_cast<size_t>(p.size()) >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, p.constData(), static_cast<size_t>(p.size()));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);  // the file stays
  return ok;
}

}  // namespace

class TestSingleInstance : public QObject {
  Q_OBJECT

 private slots:
  void secondInstanceHandsOverItsFiles() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY2(first.listen(), qPrintable(first.error()));
    QVERIFY(first.listening());
    QSignalSpy received(&first, &SingleInstance::filesReceived);

    SingleInstance second(dir.path());
    const QStringList files = {QStringLiteral("/models/a model.gguf"),
                               QStringLiteral("/docs/notes – é.txt")};
    HandOver hand_over(second, files);
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
    QCOMPARE(received.size(), 1);
    QCOMPARE(received.at(0).at(0).toStringList(), files);

    // Again, with no files (a plain second launch: the window just comes up).
    HandOver again(second, {});
    QVERIFY(received.wait(5000));
    QVERIFY(again.result());
    QCOMPARE(received.size(), 2);
    QCOMPARE(received.at(1).at(0).toStringList(), QStringList());
  }

  void noInstanceMeansNoHandOver() {
    QTemporaryDir dir;
    SingleInstance launcher(dir.path());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!launcher.hand_over({QStringLiteral("/m.gguf")}));
    QVERIFY(timer.elapsed() < 1500);
  }

  void sameDirectorySpelledDifferentlyIsOneInstance() {
    QTemporaryDir dir;
    const QString name = SingleInstance::server_name_for(dir.path());
    QCOMPARE(SingleInstance::server_name_for(dir.path() + QStringLiteral("/")), name);
    QCOMPARE(SingleInstance::server_name_for(dir.path() + QStringLiteral("/sub/..")), name);
    QVERIFY(name.startsWith(QStringLiteral("kvchat-")));
    // Not yet created: still a stable name.
    const QString later = dir.filePath(QStringLiteral("later"));
    QCOMPARE(SingleInstance::server_name_for(later),
             SingleInstance::server_name_for(later + QStringLiteral("/")));
  }

  void differentDataDirsDoNotSeeEachOther() {
    QTemporaryDir a, b;
    QVERIFY(SingleInstance::server_name_for(a.path()) != SingleInstance::server_name_for(b.path()));
    SingleInstance first_a(a.path());
    QVERIFY(first_a.listen());
    QSignalSpy received_a(&first_a, &SingleInstance::filesReceived);
    // B has no instance yet: a launch there does not reach A, and becomes B's instance.
    SingleInstance launcher_b(b.path());
    QVERIFY(!launcher_b.hand_over({QStringLiteral("/b.gguf")}));
    QVERIFY(launcher_b.listen());
    QSignalSpy received_b(&launcher_b, &SingleInstance::filesReceived);

    SingleInstance second_a(a.path());
    HandOver to_a(second_a, {QStringLiteral("/a.gguf")});
    QVERIFY(received_a.wait(5000));
    QVERIFY(to_a.result());
    SingleInstance second_b(b.path());
    HandOver to_b(second_b, {QStringLiteral("/b.gguf")});
    QVERIFY(received_b.wait(5000));
    QVERIFY(to_b.result());
    QCOMPARE(received_a.size(), 1);
    QCOMPARE(received_b.size(), 1);
    QCOMPARE(received_a.at(0).at(0).toStringList(), QStringList{QStringLiteral("/a.gguf")});
    QCOMPARE(received_b.at(0).at(0).toStringList(), QStringList{QStringLiteral("/b.gguf")});
  }

  void staleSocketFileIsTakenOver() {
    QTemporaryDir dir;
    SingleInstance launcher(dir.path());
    const QString path = socket_path(launcher.server_name());
    QVERIFY(make_stale_socket(path));
    QVERIFY(QFileInfo::exists(path));
    QVERIFY(!launcher.hand_over({QStringLiteral("/m.gguf")}));  // refused at once
    QVERIFY2(launcher.listen(), qPrintable(launcher.error()));
    QSignalSpy received(&launcher, &SingleInstance::filesReceived);
    SingleInstance next(dir.path());
    HandOver hand_over(next, {QStringLiteral("/m.gguf")});
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
  }

  void frozenInstanceIsNotWaitedFor() {
    QTemporaryDir dir;
    // Listening, but never answering (its connections are never read).
    QLocalServer frozen;
    QVERIFY(frozen.listen(SingleInstance::server_name_for(dir.path())));
    SingleInstance launcher(dir.path());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!launcher.hand_over({QStringLiteral("/m.gguf")}, 1000));
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(timer.elapsed() >= 900);
    // The new launch becomes the instance.
    QVERIFY2(launcher.listen(), qPrintable(launcher.error()));
    QSignalSpy received(&launcher, &SingleInstance::filesReceived);
    SingleInstance next(dir.path());
    HandOver hand_over(next, {QStringLiteral("/n.gguf")});
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
    QCOMPARE(received.at(0).at(0).toStringList(), QStringList{QStringLiteral("/n.gguf")});
  }

  // What another process might write: junk, or a header announcing gigabytes. Dropped at
  // once, nothing allocated, nothing emitted; the instance goes on serving.
  void garbageIsDroppedWithoutSignal() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY(first.listen());
    QSignalSpy received(&first, &SingleInstance::filesReceived);
    const QByteArray huge =
        QByteArray("kvc1") + QByteArray("\x7f\x7f\x7f\x7f", 4) + QByteArray(64, 'x');
    for (const QByteArray& junk : {QByteArray(64, '\x7f'), huge}) {
      QLocalSocket socket;
      socket.connectToServer(first.server_name());
      QVERIFY(socket.waitForConnected(1000));
      socket.write(junk);
      QVERIFY(socket.waitForBytesWritten(1000));
      QTRY_COMPARE_WITH_TIMEOUT(socket.state(), QLocalSocket::UnconnectedState, 3000);
      QCOMPARE(received.size(), 0);
    }
    SingleInstance second(dir.path());
    HandOver hand_over(second, {QStringLiteral("/ok.gguf")});
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
  }

  // A request that arrives in pieces is read once whole.
  void requestInPiecesIsReadWhole() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY(first.listen());
    QSignalSpy received(&first, &SingleInstance::filesReceived);
    const QByteArray payload = QByteArray("/a.gguf") + '\0' + QByteArray("/b c.txt") + '\0';
    const QByteArray request =
        QByteArray("kvc1") + QByteArray("\0\0\0", 3) + char(payload.size()) + payload;
    QLocalSocket socket;
    socket.connectToServer(first.server_name());
    QVERIFY(socket.waitForConnected(1000));
    for (qsizetype at = 0; at < request.size(); at += 5) {
      socket.write(request.mid(at, 5));
      QVERIFY(socket.waitForBytesWritten(1000));
      QTest::qWait(20);
    }
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 1, 3000);
    QCOMPARE(received.at(0).at(0).toStringList(),
             (QStringList{QStringLiteral("/a.gguf"), QStringLiteral("/b c.txt")}));
    QTRY_VERIFY_WITH_TIMEOUT(socket.bytesAvailable() > 0 || socket.waitForReadyRead(100), 3000);
    QCOMPARE(socket.read(1), QByteArray("k"));
  }
};

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "test_single_instance.moc"
