// SingleInstance (app/single_instance.h): a first instance listening and a second handing
// over its files, received exactly; a stale socket file and a frozen instance taken over;
// two data directories never seeing each other. The second instance's hand_over blocks, so
// it runs on a thread of its own while this one runs the first's event loop.
//
// Issue 40: the socket is in a 0700 directory of the user's own ($XDG_RUNTIME_DIR, else
// <tmp>/kvchat-<uid>), never in the shared temporary directory; a directory that is not
// private (wrong mode, a symbolic link, a file) is refused; both ends check the other's uid
// (SO_PEERCRED) before anything is sent or read. Another user cannot be had in a test: a
// listener of "another user" is a fake listener in a place the launcher must not trust, or
// this process with the uid it expects set to getuid() + 1; the fakes count every byte.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "platform/single_instance.h"

using kvchat::app::SingleInstance;

namespace {

// hand_over on a thread of its own; the result once joined.
class HandOver {
 public:
  HandOver(const SingleInstance& launcher, const QStringList& files, int timeout_ms = 1000)
      : thread_([this, &launcher, files, timeout_ms] {
          result_ = launcher.hand_over(files, timeout_ms);
          done_ = true;
        }) {}
  ~HandOver() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_; }
  bool result() {
    thread_.join();
    return result_;
  }

 private:
  std::atomic<bool> result_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

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

// A listener another user might run: accepts every connection, counts every byte a
// launcher sends and acknowledges any request (as a hostile listener would, to make the
// launch exit). On a thread of its own: hand_over may block the test's.
class FakeListener {
 public:
  explicit FakeListener(const QString& path) : path_(QFile::encodeName(path)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (static_cast<size_t>(path_.size()) >= sizeof(addr.sun_path)) return;
    std::memcpy(addr.sun_path, path_.constData(), static_cast<size_t>(path_.size()));
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(fd_, 8) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeListener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(path_.constData());
    }
  }
  bool ok() const { return fd_ >= 0; }
  int connections() const { return connections_; }
  int bytes() const { return bytes_; }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++connections_;
      int got = 0;
      bool acked = false;
      for (int idle = 0; !stop_ && idle < 50;) {  // until EOF, or 1 s of silence
        pollfd q{c, POLLIN, 0};
        if (::poll(&q, 1, 20) <= 0) {
          ++idle;
          continue;
        }
        char buf[4096];
        const ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        got += static_cast<int>(n);
        bytes_ += static_cast<int>(n);
        if (got >= 8 && !acked) acked = ::write(c, "k", 1) == 1;
      }
      ::close(c);
    }
  }

  QByteArray path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> bytes_{0};
  std::thread thread_;
};

// Sets an environment variable (or unsets it: a null value) for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const QByteArray& value)
      : name_(name), had_(qEnvironmentVariableIsSet(name)), old_(qgetenv(name)) {
    if (value.isNull()) {
      qunsetenv(name);
    } else {
      qputenv(name, value);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      qputenv(name_, old_);
    } else {
      qunsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_;
  QByteArray old_;
};

struct stat lstat_of(const QString& path) {
  struct stat st {};
  if (::lstat(QFile::encodeName(path).constData(), &st) != 0) st.st_mode = 0;
  return st;
}

// A directory of this user's own, exactly 0700.
bool is_private_dir(const QString& path) {
  const struct stat st = lstat_of(path);
  return S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & 07777) == 0700;
}

bool make_dir(const QString& path, mode_t mode) {
  const QByteArray p = QFile::encodeName(path);
  return ::mkdir(p.constData(), 0700) == 0 && ::chmod(p.constData(), mode) == 0;
}

// The name the socket of a data directory had before issue 40, in the shared temporary
// directory: anyone could listen there first.
QString shared_tmp_socket(const QString& data_dir) {
  return QDir::cleanPath(QDir::tempPath()) + QLatin1Char('/') +
         QFileInfo(SingleInstance::server_name_for(data_dir)).fileName();
}

}  // namespace

class TestSingleInstance : public QObject {
  Q_OBJECT

  // Every test's own $XDG_RUNTIME_DIR (0700) and temporary directory (standing for /tmp).
  QTemporaryDir root_;
  std::unique_ptr<ScopedEnv> runtime_env_, tmp_env_;
  QString runtime_, tmp_;

 private slots:
  void init() {
    QVERIFY(root_.isValid());
    static int n = 0;
    ++n;
    runtime_ = root_.filePath(QStringLiteral("run%1").arg(n));
    tmp_ = root_.filePath(QStringLiteral("tmp%1").arg(n));
    QVERIFY(make_dir(runtime_, 0700));
    QVERIFY(make_dir(tmp_, 01777));  // like /tmp
    runtime_env_ = std::make_unique<ScopedEnv>("XDG_RUNTIME_DIR", QFile::encodeName(runtime_));
    tmp_env_ = std::make_unique<ScopedEnv>("TMPDIR", QFile::encodeName(tmp_));
  }
  void cleanup() {
    runtime_env_.reset();
    tmp_env_.reset();
  }

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
    QVERIFY(QFileInfo(name).fileName().startsWith(QStringLiteral("kvchat-")));
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
    const QString path = launcher.server_name();
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

  // ---- issue 40: the socket is the user's alone ------------------------------------------

  // In $XDG_RUNTIME_DIR when it is private; else in <tmp>/kvchat-<uid>, made 0700. Never
  // a name in the shared temporary directory (before: <tmp>/kvchat-<hash>).
  void socketIsInAPrivateDirectoryOfTheUser() {
    QTemporaryDir data;
    SingleInstance first(data.path());
    QVERIFY2(first.listen(), qPrintable(first.error()));
    const QString name = first.server_name();
    QVERIFY2(QFileInfo(name).isAbsolute(), qPrintable(name));
    QCOMPARE(QFileInfo(name).path(), runtime_);
    QVERIFY(is_private_dir(QFileInfo(name).path()));
    const struct stat st = lstat_of(name);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(st.st_uid, ::getuid());

    // No $XDG_RUNTIME_DIR: a directory of the user's own in the temporary one.
    ScopedEnv no_runtime("XDG_RUNTIME_DIR", QByteArray());
    QTemporaryDir data2;
    SingleInstance second(data2.path());
    QVERIFY2(second.listen(), qPrintable(second.error()));
    const QString own =
        QDir(tmp_).canonicalPath() + QStringLiteral("/kvchat-") + QString::number(::getuid());
    QCOMPARE(QFileInfo(second.server_name()).path(), own);
    QVERIFY(is_private_dir(own));
    // And the hand-over works there.
    QSignalSpy received(&second, &SingleInstance::filesReceived);
    SingleInstance launcher(data2.path());
    HandOver hand_over(launcher, {QStringLiteral("/x.txt")});
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
  }

  // The attack of issue 40: another user listens first on the predictable name in the
  // shared temporary directory. The launch never goes there: nothing is sent, no hand-over.
  void listenerInTheSharedTemporaryDirectoryGetsNothing() {
    QTemporaryDir data;
    FakeListener hostile(shared_tmp_socket(data.path()));
    QVERIFY(hostile.ok());
    SingleInstance launcher(data.path());
    QString untrusted;
    QVERIFY(!launcher.hand_over({QStringLiteral("/home/me/notes.txt")}, 1000, &untrusted));
    QTest::qWait(100);
    QCOMPARE(hostile.connections(), 0);
    QCOMPARE(hostile.bytes(), 0);
    // And this launch becomes the instance, in its own directory.
    QVERIFY2(launcher.listen(), qPrintable(launcher.error()));
    QVERIFY(launcher.server_name() != shared_tmp_socket(data.path()));
  }

  // $XDG_RUNTIME_DIR that is not private: not used; the user's own directory instead.
  void runtimeDirThatIsNotPrivateIsNotUsed_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("mode 0755") << "0755";
    QTest::newRow("mode 0777") << "0777";
    QTest::newRow("symbolic link to a 0700 directory") << "symlink";
    QTest::newRow("a file") << "file";
    QTest::newRow("relative") << "relative";
  }
  void runtimeDirThatIsNotPrivateIsNotUsed() {
    QFETCH(QString, kind);
    static int n = 0;
    const QString bad = root_.filePath(QStringLiteral("bad-run-%1").arg(++n));
    if (kind == QLatin1String("symlink")) {
      QVERIFY(make_dir(bad + QStringLiteral("-target"), 0700));
      QVERIFY(QFile::link(bad + QStringLiteral("-target"), bad));
    } else if (kind == QLatin1String("file")) {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
    } else if (kind != QLatin1String("relative")) {
      QVERIFY(make_dir(bad, kind.toUInt(nullptr, 8)));
    }
    ScopedEnv env("XDG_RUNTIME_DIR",
                  kind == QLatin1String("relative") ? QByteArray("run") : QFile::encodeName(bad));
    QTemporaryDir data;
    // What a hostile listener in that directory would be (never contacted).
    std::unique_ptr<FakeListener> hostile;
    if (kind != QLatin1String("file") && kind != QLatin1String("relative")) {
      hostile = std::make_unique<FakeListener>(
          bad + QLatin1Char('/') +
          QFileInfo(SingleInstance::server_name_for(data.path())).fileName());
      QVERIFY(hostile->ok());
    }
    FakeListener shared(shared_tmp_socket(data.path()));
    QVERIFY(shared.ok());
    SingleInstance first(data.path());
    QVERIFY(!QFileInfo(first.server_name()).path().startsWith(bad));
    QVERIFY(!first.hand_over({QStringLiteral("/m.txt")}));
    QVERIFY2(first.listen(), qPrintable(first.error()));
    QVERIFY(is_private_dir(QFileInfo(first.server_name()).path()));
    QSignalSpy received(&first, &SingleInstance::filesReceived);
    SingleInstance second(data.path());
    HandOver hand_over(second, {QStringLiteral("/n.txt")});
    QVERIFY(received.wait(5000));
    QVERIFY(hand_over.result());
    QCOMPARE(shared.bytes(), 0);
    if (hostile) QCOMPARE(hostile->bytes(), 0);
    if (hostile) QCOMPARE(hostile->connections(), 0);
  }

  // Neither $XDG_RUNTIME_DIR nor <tmp>/kvchat-<uid> private (the latter planted by someone:
  // a symbolic link, a directory others can write): no single instance, and hand_over says
  // why, sending nothing to what listens there.
  void noPrivateDirectoryIsRefusedWithAReason_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("own directory mode 0755") << "0755";
    QTest::newRow("own directory mode 0777") << "0777";
    QTest::newRow("own directory a symbolic link") << "symlink";
  }
  void noPrivateDirectoryIsRefusedWithAReason() {
    QFETCH(QString, kind);
    ScopedEnv no_runtime("XDG_RUNTIME_DIR", QByteArray());
    const QString own =
        QDir(tmp_).canonicalPath() + QStringLiteral("/kvchat-") + QString::number(::getuid());
    QString listening_dir = own;
    if (kind == QLatin1String("symlink")) {
      listening_dir = root_.filePath(QStringLiteral("planted"));
      QVERIFY(make_dir(listening_dir, 0700));  // looks right, but is reached through a link
      QVERIFY(QFile::link(listening_dir, own));
    } else {
      QVERIFY(make_dir(own, kind.toUInt(nullptr, 8)));
    }
    QTemporaryDir data;
    const QString base =
        QStringLiteral("kvchat-") +
        QString::fromLatin1(
            QCryptographicHash::hash(QFileInfo(data.path()).canonicalFilePath().toUtf8(),
                                     QCryptographicHash::Sha256)
                .toHex()
                .left(24));
    FakeListener hostile(listening_dir + QLatin1Char('/') + base);
    QVERIFY(hostile.ok());
    FakeListener shared(QDir(tmp_).canonicalPath() + QLatin1Char('/') + base);
    QVERIFY(shared.ok());

    SingleInstance launcher(data.path());
    QString untrusted;
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!launcher.hand_over({QStringLiteral("/home/me/secret.txt")}, 1000, &untrusted));
    QVERIFY(timer.elapsed() < 900);  // refused at once, not after the 1 s timeout
    QVERIFY2(untrusted.contains(own), qPrintable(untrusted));
    QVERIFY2(untrusted.contains(kind == QLatin1String("symlink") ? QStringLiteral("symbolic link")
                                                                 : QStringLiteral("mode 0")),
             qPrintable(untrusted));
    QVERIFY(launcher.server_name().isEmpty());
    QVERIFY(!launcher.listen());
    QVERIFY2(launcher.error().contains(own), qPrintable(launcher.error()));
    QTest::qWait(100);
    QCOMPARE(hostile.connections(), 0);
    QCOMPARE(hostile.bytes(), 0);
    QCOMPARE(shared.connections(), 0);
    QCOMPARE(shared.bytes(), 0);
    if (kind != QLatin1String("symlink"))  // left as it was: not "repaired"
      QCOMPARE(lstat_of(own).st_mode & 07777, kind.toUInt(nullptr, 8));
  }

  // The listener runs as another user (SO_PEERCRED; simulated: the launcher expects
  // getuid() + 1): nothing is sent, hand_over says why.
  void listenerOfAnotherUserGetsNothing() {
    QTemporaryDir data;
    SingleInstance launcher(data.path());
    FakeListener listener(launcher.server_name());
    QVERIFY(listener.ok());
    launcher.expect_peer_uid_for_testing(::getuid() + 1);
    QString untrusted;
    QVERIFY(!launcher.hand_over({QStringLiteral("/home/me/secret.txt")}, 1000, &untrusted));
    QVERIFY2(untrusted.contains(QStringLiteral("another user (uid %1)").arg(::getuid())),
             qPrintable(untrusted));
    QTRY_COMPARE_WITH_TIMEOUT(listener.connections(), 1, 2000);  // it connected, then hung up
    QTest::qWait(100);
    QCOMPARE(listener.bytes(), 0);
    // The same listener, the uid expected: it gets the request (the fake is real enough).
    launcher.expect_peer_uid_for_testing(::getuid());
    QVERIFY(launcher.hand_over({QStringLiteral("/a.txt")}, 1000, &untrusted));
    QVERIFY(untrusted.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(listener.bytes() > 0, 2000);
  }

  // A launcher of another user (simulated: the instance expects getuid() + 1): its request
  // is not read, nothing is emitted, it gets no acknowledgement.
  void launcherOfAnotherUserIsNotRead() {
    QTemporaryDir data;
    SingleInstance first(data.path());
    first.expect_peer_uid_for_testing(::getuid() + 1);
    QVERIFY(first.listen());
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("a connection dropped unread: .*"
                                                           "another user \\(uid \\d+\\)")));
    QSignalSpy received(&first, &SingleInstance::filesReceived);
    SingleInstance second(data.path());
    QElapsedTimer timer;
    timer.start();
    HandOver hand_over(second, {QStringLiteral("/m.gguf")}, 3000);
    QTRY_VERIFY_WITH_TIMEOUT(hand_over.done(), 5000);  // this thread runs the instance
    QVERIFY(!hand_over.result());
    QVERIFY2(timer.elapsed() < 2500, qPrintable(QString::number(timer.elapsed())));  // hung up
    QTest::qWait(100);
    QCOMPARE(received.size(), 0);
  }

  // The checks themselves, with another owner injected.
  void peerCredentialsAndOwnersAreChecked() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    QString why;
    QVERIFY(SingleInstance::peer_is(pair[0], ::getuid(), &why));
    QVERIFY(!SingleInstance::peer_is(pair[0], ::getuid() + 1, &why));
    QVERIFY2(why.contains(QStringLiteral("another user")), qPrintable(why));
    ::close(pair[0]);
    ::close(pair[1]);
    QVERIFY(!SingleInstance::peer_is(-1, ::getuid(), &why));
    QVERIFY(why.contains(QStringLiteral("cannot be checked")));

    QVERIFY(SingleInstance::private_directory(runtime_, ::getuid(), &why));
    QVERIFY(!SingleInstance::private_directory(runtime_, ::getuid() + 1, &why));
    QVERIFY2(why.contains(QStringLiteral("belongs to another user")), qPrintable(why));
    QVERIFY(!SingleInstance::private_directory(tmp_, ::getuid(), &why));
    QVERIFY2(why.contains(QStringLiteral("mode 01777")), qPrintable(why));

    const QString sock = runtime_ + QStringLiteral("/s");
    QVERIFY(make_stale_socket(sock));
    QVERIFY(SingleInstance::socket_file_of(sock, ::getuid(), &why));
    QVERIFY(!SingleInstance::socket_file_of(sock, ::getuid() + 1, &why));
    QVERIFY2(why.contains(QStringLiteral("belongs to another user")), qPrintable(why));
    QVERIFY(QFile::link(sock, runtime_ + QStringLiteral("/link")));
    QVERIFY(!SingleInstance::socket_file_of(runtime_ + QStringLiteral("/link"), ::getuid(), &why));
    QVERIFY2(why.contains(QStringLiteral("symbolic link")), qPrintable(why));
    QVERIFY(!SingleInstance::socket_file_of(runtime_ + QStringLiteral("/none"), ::getuid(), &why));
    QVERIFY(why.isEmpty());  // nothing there: no instance, nothing untrusted
  }

  // A symbolic link where the socket should be (pointing at another listener): refused.
  void symbolicLinkAsTheSocketIsRefused() {
    QTemporaryDir data;
    SingleInstance launcher(data.path());
    const QString elsewhere = root_.filePath(QStringLiteral("elsewhere.sock"));
    FakeListener hostile(elsewhere);
    QVERIFY(hostile.ok());
    QVERIFY(QFile::link(elsewhere, launcher.server_name()));
    QString untrusted;
    QVERIFY(!launcher.hand_over({QStringLiteral("/m.txt")}, 1000, &untrusted));
    QVERIFY2(untrusted.contains(QStringLiteral("symbolic link")), qPrintable(untrusted));
    QTest::qWait(100);
    QCOMPARE(hostile.connections(), 0);
    QCOMPARE(hostile.bytes(), 0);
  }
};

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "test_single_instance.moc"
