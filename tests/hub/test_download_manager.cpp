// DownloadManager against the fake Hub (tests/hub/fake_hub.py on 127.0.0.1; no test
// touches the internet). The truth each download is checked against is the shared file
// itself (its bytes and their SHA-256, computed here), and the requests the server saw.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QMutex>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QUrlQuery>
#include <QtTest>
#include <algorithm>

#include "util/byte_size.h"
#include "hub/download_http.h"
#include "hub/download_manager.h"
#include "hub/fake_hub_process.h"

using kvchat::hub::DownloadManager;
using kvchat::hub::DownloadRecord;
using kvchat::hub::DownloadRequest;
using kvchat::hub::DownloadStore;
namespace download = kvchat::hub::download;

namespace {

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString sha256_hex(const QByteArray& data) {
  return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

// Every message logged while a test runs (to check that the token never is).
QMutex log_mutex;
QStringList log_lines;
QtMessageHandler previous_handler = nullptr;
void capture(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  {
    QMutexLocker lock(&log_mutex);
    log_lines.append(message);
  }
  if (previous_handler) previous_handler(type, context, message);
}

// Qt's complaint about a read from a reply that was already closed (issue 24 point 10).
int device_not_open_warnings() {
  QMutexLocker lock(&log_mutex);
  int n = 0;
  for (const QString& line : log_lines) n += line.contains(QLatin1String("device not open"));
  return n;
}

}  // namespace

class TestDownloadManager : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  kvchat::test::FakeHubProcess hub_;
  kvchat::test::FakeHubProcess other_hub_;  // another origin: the same host, another port
  QByteArray demo_;
  QString demo_sha_;
  int n_ = 0;
  QString db_;
  QString models_;

  // A manager on this test's database, quick to retry.
  std::unique_ptr<DownloadManager> manager(int max_retries = 4) {
    auto m = std::make_unique<DownloadManager>();
    QString error;
    if (!m->open(db_, DownloadStore::Table::CreateIfMissing, &error)) {
      qWarning("open: %s", qPrintable(error));
      return nullptr;
    }
    DownloadManager::Options o;
    o.transfer_timeout_ms = 10000;
    o.retry_delay_ms = 50;
    o.max_retries = max_retries;
    m->set_options(o);
    return m;
  }

  DownloadRequest demo_request(const QString& repo,
                               const QString& file = QStringLiteral("kjv-demo-f16.gguf")) {
    DownloadRequest r;
    r.repo = repo;
    r.file = file;
    r.url = download::resolve_url(hub_.url(), repo, file);
    r.models_dir = models_;
    r.expected_size = demo_.size();
    r.sha256 = demo_sha_;
    return r;
  }

  // The Range headers of the server's requests whose path contains `part`.
  QStringList ranges(const QString& part) {
    QStringList out;
    for (const auto& v : hub_.requests()) {
      const QJsonObject o = v.toObject();
      if (o.value(QStringLiteral("path")).toString().contains(part))
        out.append(o.value(QStringLiteral("range")).isNull()
                       ? QStringLiteral("-")
                       : o.value(QStringLiteral("range")).toString());
    }
    return out;
  }

  QStringList parts_left() const {
    return QDir(models_).entryList({QStringLiteral("*.part")}, QDir::Files | QDir::Hidden);
  }

  // The requests `hub` saw whose path starts with `prefix` and has `tag` in its query (the
  // fake Hub passes a resolve's query on to its redirect, re-encoded).
  static QList<QJsonObject> seen(const kvchat::test::FakeHubProcess& hub, const QString& prefix,
                                 const QString& tag) {
    QList<QJsonObject> out;
    for (const auto& v : hub.requests()) {
      const QJsonObject o = v.toObject();
      const QString path = o.value(QStringLiteral("path")).toString();
      if (path.startsWith(prefix) &&
          QUrlQuery(QUrl(path).query()).queryItemValue(QStringLiteral("case")) == tag)
        out.append(o);
    }
    return out;
  }

  // How many of the requests a manager sent (its requestSent signals) went to the CDN.
  static int cdn_requests(const QSignalSpy& sent) {
    int n = 0;
    for (const auto& s : sent) n += s.at(1).toUrl().path().startsWith(QLatin1String("/cdn/"));
    return n;
  }

  // Runs a download of `request` to its end; the message it failed with ("" when done).
  QString run_to_end(DownloadManager* m, const DownloadRequest& request, int timeout_ms = 60000) {
    QSignalSpy failed(m, &DownloadManager::failed);
    QSignalSpy done(m, &DownloadManager::finished);
    QString error;
    if (m->start(request, &error) == 0) return QStringLiteral("refused: ") + error;
    if (!QTest::qWaitFor([&] { return failed.count() + done.count() > 0; }, timeout_ms))
      return QStringLiteral("no end in %1 ms").arg(timeout_ms);
    return failed.isEmpty() ? QString() : failed.at(0).at(1).toString();
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY2(hub_.start(), qPrintable(hub_.error()));
    QVERIFY2(other_hub_.start(), qPrintable(other_hub_.error()));
    demo_ = read_all(QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf"));
    QVERIFY(demo_.size() > (2 << 20));  // the drop fault cuts after 1 MiB
    demo_sha_ = sha256_hex(demo_);
    previous_handler = qInstallMessageHandler(capture);
  }

  void init() {
    ++n_;
    db_ = dir_.filePath(QStringLiteral("state%1.sqlite").arg(n_));
    models_ = dir_.filePath(QStringLiteral("models%1").arg(n_));
  }

  void cleanupTestCase() { qInstallMessageHandler(previous_handler); }

  void httpPieces() {
    const auto r = download::parse_content_range("bytes 1048576-5563967/5563968");
    QVERIFY(r.has_value());
    QCOMPARE(r->first, 1048576);
    QCOMPARE(r->last, 5563967);
    QCOMPARE(r->total, 5563968);
    QVERIFY(!download::parse_content_range("bytes 10-5/20"));
    QVERIFY(!download::parse_content_range("bytes 0-20/20"));
    QCOMPARE(download::parse_content_range("bytes 0-4/*")->total, -1);
    const QDateTime now(QDate(2026, 12, 1), QTime(6, 0, 0), QTimeZone::utc());
    QCOMPARE(download::retry_after_seconds("7", now, 60, 5), 7);
    QCOMPARE(download::retry_after_seconds("Tue, 01 Dec 2026 06:00:30 GMT", now, 60, 5), 30);
    QCOMPARE(download::retry_after_seconds("3600", now, 60, 5), 60);
    QCOMPARE(download::retry_after_seconds("soon", now, 60, 5), 5);
    const QUrl from(QStringLiteral("https://huggingface.co/a/b/resolve/main/x.gguf"));
    QCOMPARE(download::redirect_target(from, "https://cdn.example/x?sig=1").host(),
             QStringLiteral("cdn.example"));
    QCOMPARE(download::redirect_target(from, "/other/x.gguf").toString(),
             QStringLiteral("https://huggingface.co/other/x.gguf"));
    QVERIFY(download::redirect_target(from, "http://cdn.example/x").isEmpty());  // no downgrade
    QVERIFY(download::redirect_target(from, "file:///etc/passwd").isEmpty());
    QVERIFY(!download::redirect_target(QUrl(QStringLiteral("http://127.0.0.1:8/a")), "/cdn/b")
                 .isEmpty());
    QString why;
    QCOMPARE(download::local_file_name(QStringLiteral("sub/model-Q4_K_M.gguf"), &why),
             QStringLiteral("model-Q4_K_M.gguf"));
    for (const char* bad : {"../../evil.gguf", "/etc/evil.gguf", "a/../b.gguf", "a\\b.gguf",
                            ".hidden.gguf", "x\n.gguf", "README.md", ""})
      QVERIFY2(download::local_file_name(QString::fromUtf8(bad), &why).isEmpty(), bad);
    QCOMPARE(download::strong_etag("\"abc\""), QByteArray("\"abc\""));
    QVERIFY(download::strong_etag("W/\"abc\"").isEmpty());
    QCOMPARE(download::resolve_url(QUrl(QStringLiteral("http://127.0.0.1:9/mirror/")),
                                   QStringLiteral("o/r"), QStringLiteral("d/a b.gguf"))
                 .toString(QUrl::FullyEncoded),
             QStringLiteral("http://127.0.0.1:9/mirror/o/r/resolve/main/d/a%20b.gguf"));
  }

  // The demo model through the /resolve/ -> /cdn/ redirect, verified and renamed in place.
  void downloadsThroughTheRedirect() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QSignalSpy progress(m.get(), &DownloadManager::progress);
    QString error;
    const qint64 id = m->start(demo_request(QStringLiteral("kvchat/kjv-demo-GGUF")), &error);
    QVERIFY2(id > 0, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    const QString dest = QDir(models_).filePath(QStringLiteral("kjv-demo-f16.gguf"));
    QCOMPARE(done.at(0).at(1).toString(), dest);
    QCOMPARE(read_all(dest), demo_);
    QVERIFY(parts_left().isEmpty());
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.last().at(1).toLongLong(), qint64(demo_.size()));  // bytes done
    QCOMPARE(progress.last().at(2).toLongLong(), qint64(demo_.size()));  // total
    const QStringList resolve = ranges(QStringLiteral("/kvchat/kjv-demo-GGUF/resolve/main/"));
    const QStringList cdn = ranges(QStringLiteral("/cdn/kvchat/kjv-demo-GGUF/"));
    QCOMPARE(resolve.size(), 1);
    QCOMPARE(cdn.size(), 1);
    QCOMPARE(cdn.at(0), QStringLiteral("-"));  // the whole file: no Range
    QCOMPARE(m->record(id)->status, QStringLiteral("done"));
    // Already there: refused, nothing fetched.
    QVERIFY(m->start(demo_request(QStringLiteral("kvchat/kjv-demo-GGUF")), &error) == 0);
    QVERIFY2(error.contains(QStringLiteral("already")), qPrintable(error));
  }

  // The server drops the connection after 1 MiB; the manager asks for the rest with Range.
  void droppedConnectionResumesWithRange() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QSignalSpy status(m.get(), &DownloadManager::statusChanged);
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    QString error;
    QVERIFY2(m->start(demo_request(QStringLiteral("kvchat/drop-GGUF")), &error) > 0,
             qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QCOMPARE(read_all(done.at(0).at(1).toString()), demo_);
    // What the manager asked: from 0, then from where the drop left it, never back.
    QList<qint64> starts;
    for (const auto& s : sent)
      if (s.at(1).toUrl().path().startsWith(QLatin1String("/cdn/")))
        starts.append(s.at(2).toLongLong());
    QVERIFY(starts.size() >= 2);
    QCOMPARE(starts.first(), 0);
    QVERIFY(starts.contains(1 << 20));
    QVERIFY(std::is_sorted(starts.begin(), starts.end()));
    // What the server saw (a connection that breaks before its first byte may be asked
    // again with the same range).
    const QStringList cdn = ranges(QStringLiteral("/cdn/kvchat/drop-GGUF/"));
    QVERIFY2(cdn.contains(QStringLiteral("bytes=1048576-")), qPrintable(cdn.join(u',')));
    bool waited = false;
    for (const auto& s : status) waited |= s.at(1).toString() == QLatin1String("waiting");
    QVERIFY(waited);
  }

  // A download interrupted, then the process gone: a new manager on the same database
  // continues the partial (its hash recomputed) with a Range request. (?fault=drop:N cuts
  // every answer after 1 MiB: the second manager goes on 1 MiB per request.)
  void resumesAfterARestart() {
    qint64 id = 0;
    DownloadRequest request = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
    request.url.setQuery(QStringLiteral("fault=drop:1048576"));
    {
      auto m = manager(0);  // no retry: the drop leaves a partial
      QVERIFY(m);
      QSignalSpy failed(m.get(), &DownloadManager::failed);
      QString error;
      id = m->start(request, &error);
      QVERIFY2(id > 0, qPrintable(error));
      QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    }
    const QStringList parts = parts_left();
    QCOMPARE(parts.size(), 1);
    QCOMPARE(QFileInfo(QDir(models_).filePath(parts.at(0))).size(), qint64(1 << 20));
    auto m = manager();
    QVERIFY(m);
    const QVector<DownloadRecord> left = m->unfinished();
    QCOMPARE(left.size(), 1);
    QCOMPARE(left.at(0).id, id);
    QCOMPARE(left.at(0).bytes_done, qint64(1 << 20));
    QCOMPARE(left.at(0).sha256, demo_sha_);
    QVERIFY(!left.at(0).etag.isEmpty());
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    QString error;
    QVERIFY2(m->resume(id, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QCOMPARE(read_all(done.at(0).at(1).toString()), demo_);
    QCOMPARE(sent.first().at(2).toLongLong(), qint64(1 << 20));
    for (const auto& s : sent) QVERIFY(s.at(2).toLongLong() >= (1 << 20));  // never from 0 again
    const QStringList cdn =
        ranges(QStringLiteral("/cdn/kvchat/kjv-demo-GGUF/kjv-demo-f16.gguf?fault=drop"));
    QVERIFY2(cdn.contains(QStringLiteral("bytes=1048576-")) &&
                 cdn.contains(QStringLiteral("bytes=5242880-")),
             qPrintable(cdn.join(u',')));
    QVERIFY(parts_left().isEmpty());
  }

  void wrongHashIsRejectedAndRemoved() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy failed(m.get(), &DownloadManager::failed);
    DownloadRequest r = demo_request(QStringLiteral("kvchat/wrong-hash-GGUF"));
    r.sha256 = sha256_hex("not the file");  // what the fake Hub's tree says for this repo
    QString error;
    QVERIFY2(m->start(r, &error) > 0, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    const QString message = failed.at(0).at(1).toString();
    QVERIFY2(
        message.contains(QStringLiteral("SHA-256")) && message.contains(QStringLiteral("removed")),
        qPrintable(message));
    QVERIFY(parts_left().isEmpty());
    QVERIFY(!QFileInfo::exists(QDir(models_).filePath(QStringLiteral("kjv-demo-f16.gguf"))));
    QCOMPARE(m->unfinished().at(0).status, QStringLiteral("failed"));
    QCOMPARE(m->unfinished().at(0).error, message);
  }

  void notFound() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy failed(m.get(), &DownloadManager::failed);
    QString error;
    QVERIFY(m->start(demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"),
                                  QStringLiteral("missing.gguf")),
                     &error) > 0);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("404")),
             qPrintable(failed.at(0).at(1).toString()));
    QVERIFY(parts_left().isEmpty());
  }

  // 401 without a token; with one, the file — and the token in neither the database nor
  // the log.
  void gatedNeedsTheTokenWhichIsNeverStored() {
    {
      QMutexLocker lock(&log_mutex);
      log_lines.clear();
    }
    auto m = manager();
    QVERIFY(m);
    QSignalSpy failed(m.get(), &DownloadManager::failed);
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QString error;
    QVERIFY(m->start(demo_request(QStringLiteral("kvchat/gated-GGUF")), &error) > 0);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("access token")),
             qPrintable(failed.at(0).at(1).toString()));
    QVERIFY(parts_left().isEmpty());
    m->set_access_token(QString::fromLatin1(kvchat::test::kFakeHubToken));
    QVERIFY2(m->start(demo_request(QStringLiteral("kvchat/gated-GGUF")), &error) > 0,
             qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QCOMPARE(read_all(done.at(0).at(1).toString()), demo_);
    m.reset();  // the database closed
    const QByteArray token(kvchat::test::kFakeHubToken);
    for (const QString& suffix :
         {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"), QStringLiteral("-journal")}) {
      const QByteArray bytes = read_all(db_ + suffix);
      QVERIFY2(!bytes.contains(token), qPrintable(db_ + suffix));
    }
    QVERIFY(read_all(db_).size() > 0);
    QMutexLocker lock(&log_mutex);
    QVERIFY(!log_lines.isEmpty());  // the manager did log (requests, failures)
    for (const QString& line : log_lines)
      QVERIFY2(!line.contains(QLatin1String(token)), qPrintable(line));
  }

  void rateLimitedWaitsForRetryAfter() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QSignalSpy status(m.get(), &DownloadManager::statusChanged);
    QString error;
    QVERIFY(m->start(demo_request(QStringLiteral("kvchat/ratelimit-GGUF")), &error) > 0);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QCOMPARE(read_all(done.at(0).at(1).toString()), demo_);
    QString waiting;
    for (const auto& s : status)
      if (s.at(1).toString() == QLatin1String("waiting")) waiting = s.at(2).toString();
    QVERIFY2(waiting.contains(QStringLiteral("429")) && waiting.contains(QStringLiteral("1 s")),
             qPrintable(waiting));
    QCOMPARE(ranges(QStringLiteral("/kvchat/ratelimit-GGUF/resolve/main/")).size(),
             2);  // asked again
  }

  void slowTrickleCancelledRemovesThePartial() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy progress(m.get(), &DownloadManager::progress);
    QString error;
    const qint64 id = m->start(demo_request(QStringLiteral("kvchat/slow-GGUF")), &error);
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(1).toLongLong() >= 16 * 1024,
                             30000);
    QCOMPARE(parts_left().size(), 1);
    m->cancel(id);
    QVERIFY(!m->is_active(id));
    QVERIFY(parts_left().isEmpty());
    QVERIFY(m->unfinished().isEmpty());
    QVERIFY(!m->record(id));
    const int seen = progress.count();
    QTest::qWait(300);
    QCOMPARE(progress.count(), seen);  // nothing more arrives
  }

  // Pause keeps the partial; resume asks for the rest with Range and If-Range (the ETag of
  // the first answer).
  void pauseThenResumeAsksForTheRest() {
    auto m = manager();
    QVERIFY(m);
    QSignalSpy progress(m.get(), &DownloadManager::progress);
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    QSignalSpy status(m.get(), &DownloadManager::statusChanged);
    QString error;
    const qint64 id = m->start(demo_request(QStringLiteral("kvchat/slow-GGUF")), &error);
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(1).toLongLong() >= 16 * 1024,
                             30000);
    m->pause(id);
    QVERIFY(!m->is_active(id));
    QCOMPARE(status.last().at(1).toString(), QStringLiteral("paused"));
    const QStringList parts = parts_left();
    QCOMPARE(parts.size(), 1);
    const qint64 kept = QFileInfo(QDir(models_).filePath(parts.at(0))).size();
    QVERIFY(kept >= 16 * 1024);
    QCOMPARE(m->record(id)->bytes_done, kept);
    QCOMPARE(m->record(id)->status, QStringLiteral("paused"));
    QVERIFY(m->resume(id, &error));
    QTRY_VERIFY_WITH_TIMEOUT(progress.last().at(1).toLongLong() > kept, 30000);
    QCOMPARE(sent.last().at(2).toLongLong(), kept);  // after the rehash of what is kept
    // The server saw the range, with the first answer's ETag (the file's SHA-256) as If-Range.
    QJsonObject last;
    for (const auto& v : hub_.requests()) {
      const QJsonObject o = v.toObject();
      if (o.value(QStringLiteral("path"))
              .toString()
              .startsWith(QLatin1String("/cdn/kvchat/slow-GGUF/")))
        last = o;
    }
    QCOMPARE(last.value(QStringLiteral("range")).toString(), QStringLiteral("bytes=%1-").arg(kept));
    QCOMPARE(last.value(QStringLiteral("if_range")).toString(),
             QStringLiteral("\"%1\"").arg(demo_sha_));
    m->cancel(id);
    QVERIFY(parts_left().isEmpty());
  }

  // A server that ignores Range answers 200 with the whole file: the partial is started
  // over, not appended to (a garbage partial would otherwise fail the SHA-256).
  void aServerIgnoringRangeStartsOver() {
    auto m = manager();
    QVERIFY(m);
    QDir().mkpath(models_);
    {
      QFile part(QDir(models_).filePath(QStringLiteral(".kjv-demo-f16.gguf.part")));
      QVERIFY(part.open(QIODevice::WriteOnly));
      part.write(QByteArray(1 << 20, 'x'));
    }
    QSignalSpy done(m.get(), &DownloadManager::finished);
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    DownloadRequest r = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
    r.url.setQuery(QStringLiteral("fault=norange"));
    QString error;
    QVERIFY(m->start(r, &error) > 0);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QCOMPARE(sent.first().at(2).toLongLong(), qint64(1 << 20));  // it asked for the rest
    QCOMPARE(read_all(done.at(0).at(1).toString()), demo_);      // and took the whole file
    QVERIFY(parts_left().isEmpty());
  }

  // A server that never answers: every request has a timeout; the download fails with a
  // message (after its retries) instead of hanging.
  void aServerThatHangsTimesOut() {
    auto m = manager(1);
    QVERIFY(m);
    auto o = m->options();
    o.transfer_timeout_ms = 300;
    m->set_options(o);
    QSignalSpy failed(m.get(), &DownloadManager::failed);
    DownloadRequest r = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
    r.url.setQuery(QStringLiteral("fault=hang"));
    QString error;
    QVERIFY(m->start(r, &error) > 0);
    const int warnings = device_not_open_warnings();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("no data for 300 ms")),
             qPrintable(failed.at(0).at(1).toString()));
    QVERIFY(parts_left().isEmpty());                 // nothing arrived: no empty partial left
    QCOMPARE(device_not_open_warnings(), warnings);  // no read from the aborted reply
  }

  // Issue 24 point 3: the token goes to the download's own origin only. The gated
  // repository's resolve (on the Hub's origin) needs it; each redirect below goes to
  // another origin — another port, the same host written in decimal on another port, a
  // URL with user info, another name for this computer — and must not carry it.
  void theTokenStaysOnItsOrigin() {
    auto m = manager();
    QVERIFY(m);
    m->set_access_token(QString::fromLatin1(kvchat::test::kFakeHubToken));
    const QString other_port = QStringLiteral("127.0.0.1:%1").arg(other_hub_.port());
    const QString here = QStringLiteral("127.0.0.1:%1").arg(hub_.port());
    struct Case {
      const char* name;
      QString cdn;                                // the redirect's origin ("" = the Hub's own)
      const kvchat::test::FakeHubProcess* lands;  // the server that answers it
      QString host;                               // the Host header it is asked with
      bool token;                                 // whether it must carry the token
    };
    const QList<Case> cases = {
        {"same-origin", QString(), &hub_, here, true},
        {"other-port", QStringLiteral("http://") + other_port, &other_hub_, other_port, false},
        {"decimal-ip", QStringLiteral("http://2130706433:%1").arg(other_hub_.port()), &other_hub_,
         other_port, false},
        {"userinfo", QStringLiteral("http://user@") + here, &hub_, here, false},
        {"localhost", QStringLiteral("http://localhost:%1").arg(hub_.port()), &hub_,
         QStringLiteral("localhost:%1").arg(hub_.port()), false},
    };
    int n = 0;
    QStringList wrong;  // every case whose CDN request had the token, or lacked it
    for (const Case& c : cases) {
      models_ = dir_.filePath(QStringLiteral("origin%1").arg(++n));
      DownloadRequest r = demo_request(QStringLiteral("kvchat/gated-GGUF"));
      QUrlQuery q;
      if (!c.cdn.isEmpty()) q.addQueryItem(QStringLiteral("cdn"), c.cdn);
      q.addQueryItem(QStringLiteral("case"), QLatin1String(c.name));
      r.url.setQuery(q);
      const QString message = run_to_end(m.get(), r);
      QVERIFY2(message.isEmpty(),
               qPrintable(QLatin1String(c.name) + QStringLiteral(": ") + message));
      QCOMPARE(read_all(QDir(models_).filePath(QStringLiteral("kjv-demo-f16.gguf"))), demo_);
      const QString tag = QLatin1String(c.name);
      const QList<QJsonObject> resolve =
          seen(hub_, QStringLiteral("/kvchat/gated-GGUF/resolve/main/kjv-demo-f16.gguf?"), tag);
      // (Each request once, unless Qt sent one again on a connection just closed.)
      QVERIFY2(!resolve.isEmpty(), c.name);
      for (const QJsonObject& o : resolve)
        QVERIFY2(o.value(QStringLiteral("bearer")).toBool(), c.name);  // the Hub needs it
      const QList<QJsonObject> cdn =
          seen(*c.lands, QStringLiteral("/cdn/kvchat/gated-GGUF/kjv-demo-f16.gguf?"), tag);
      QVERIFY2(!cdn.isEmpty(), c.name);
      for (const QJsonObject& o : cdn) {
        QVERIFY2(o.value(QStringLiteral("host")).toString() == c.host,
                 qPrintable(QLatin1String(c.name) + QStringLiteral(": Host ") +
                            o.value(QStringLiteral("host")).toString()));
        if (o.value(QStringLiteral("bearer")).toBool() != c.token)
          wrong << QStringLiteral("%1 (%2 the token)")
                       .arg(QLatin1String(c.name), c.token ? "without" : "with");
      }
    }
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral(", "))));
  }

  // Issue 24 point 5: a server that ignores Range and breaks off at the same byte every
  // time is given up on after max_retries + 1 attempts (each got bytes, none got further),
  // and says why; the partial keeps what it has, to resume.
  void aServerThatIgnoresRangeAndBreaksOffIsGivenUpOn() {
    auto m = manager(4);
    QVERIFY(m);
    DownloadRequest r = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
    r.url.setQuery(QStringLiteral("fault=norange,drop:1048576&case=norange-drop"));
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    const QString message = run_to_end(m.get(), r);
    QVERIFY2(message.contains(QStringLiteral("ignores Range")) &&
                 message.contains(QStringLiteral("5 times")) &&
                 message.contains(kvchat::util::format_bytes(1 << 20)) &&
                 message.contains(QStringLiteral("giving up")),
             qPrintable(message));
    // max_retries + 1 attempts: the first from 0, each other one asking to resume.
    QList<qint64> starts;
    for (const auto& s : sent)
      if (s.at(1).toUrl().path().startsWith(QLatin1String("/cdn/")))
        starts.append(s.at(2).toLongLong());
    QCOMPARE(starts, (QList<qint64>{0, 1 << 20, 1 << 20, 1 << 20, 1 << 20}));
    // What the server saw: as many (Qt may send one again on a connection the server
    // had just closed, before any answer).
    const QList<QJsonObject> cdn =
        seen(hub_, QStringLiteral("/cdn/kvchat/kjv-demo-GGUF/"), QStringLiteral("norange-drop"));
    QVERIFY2(cdn.size() >= 5 && cdn.size() <= 10, qPrintable(QString::number(cdn.size())));
    int resumes = 0;
    for (const QJsonObject& o : cdn)
      resumes += o.value(QStringLiteral("range")).toString() == QLatin1String("bytes=1048576-");
    QVERIFY(resumes >= 4);
    const QStringList parts = parts_left();
    QCOMPARE(parts.size(), 1);
    QCOMPARE(QFileInfo(QDir(models_).filePath(parts.at(0))).size(), qint64(1 << 20));
  }

  // The same with a stall instead of a drop: each attempt times out at 1 MiB.
  void aServerThatIgnoresRangeAndStallsIsGivenUpOn() {
    auto m = manager(2);
    QVERIFY(m);
    auto o = m->options();
    o.transfer_timeout_ms = 400;
    m->set_options(o);
    const int warnings = device_not_open_warnings();
    DownloadRequest r = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
    r.url.setQuery(QStringLiteral("fault=norange,stall:1048576&case=norange-stall"));
    QSignalSpy sent(m.get(), &DownloadManager::requestSent);
    const QString message = run_to_end(m.get(), r);
    QVERIFY2(message.contains(QStringLiteral("no data for 400 ms")) &&
                 message.contains(QStringLiteral("ignores Range")) &&
                 message.contains(QStringLiteral("3 times")),
             qPrintable(message));
    QCOMPARE(cdn_requests(sent), 3);
    const int at_server =
        seen(hub_, QStringLiteral("/cdn/kvchat/kjv-demo-GGUF/"), QStringLiteral("norange-stall"))
            .size();
    QVERIFY2(at_server >= 3 && at_server <= 6, qPrintable(QString::number(at_server)));
    QCOMPARE(device_not_open_warnings(), warnings);  // the timed-out replies were not read
  }

  // Issue 24 point 10: a refused redirect, a 500 or a 416 leave no empty .part file.
  void failuresLeaveNoEmptyPartial() {
    struct Case {
      const char* query;
      const char* says;
    };
    int n = 0;
    for (const Case& c : {Case{"cdn=http://example.com", "Refused a redirect"},
                          Case{"fault=500", "HTTP 500"}, Case{"fault=416", "refused the range"}}) {
      models_ = dir_.filePath(QStringLiteral("empty%1").arg(++n));
      auto m = manager(1);
      QVERIFY(m);
      DownloadRequest r = demo_request(QStringLiteral("kvchat/kjv-demo-GGUF"));
      r.url.setQuery(QLatin1String(c.query));
      const QString message = run_to_end(m.get(), r);
      QVERIFY2(message.contains(QLatin1String(c.says)),
               qPrintable(QLatin1String(c.query) + QStringLiteral(": ") + message));
      QVERIFY2(parts_left().isEmpty(), c.query);
    }
  }

  void traversalNamesAreRefusedBeforeAnyRequest() {
    auto m = manager();
    QVERIFY(m);
    const int before = hub_.requests().size();
    for (const char* bad : {"../../evil.gguf", "/etc/evil.gguf"}) {
      QString error;
      QCOMPARE(
          m->start(demo_request(QStringLiteral("kvchat/traversal-GGUF"), QString::fromLatin1(bad)),
                   &error),
          0);
      QVERIFY2(error.contains(QStringLiteral("Refused file name")), qPrintable(error));
    }
    QString error;
    QCOMPARE(m->start(demo_request(QStringLiteral("../traversal-GGUF")), &error), 0);
    QVERIFY2(error.contains(QStringLiteral("Refused repository name")), qPrintable(error));
    QCOMPARE(hub_.requests().size(), before + 1);  // only this test's look at /__requests
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("evil.gguf"))));
  }

  void notEnoughDiskSpaceIsRefusedBeforeStarting() {
    auto m = manager();
    QVERIFY(m);
    auto o = m->options();
    o.free_space = [](const QString&) { return qint64(3) << 20; };  // 3 MiB free
    m->set_options(o);
    const int before = hub_.requests().size();
    QString error;
    QCOMPARE(m->start(demo_request(QStringLiteral("kvchat/kjv-demo-GGUF")), &error), 0);
    QVERIFY2(error.contains(QStringLiteral("Not enough disk space")), qPrintable(error));
    QCOMPARE(hub_.requests().size(), before + 1);
    QVERIFY(parts_left().isEmpty());
    QVERIFY(m->unfinished().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestDownloadManager)
#include "test_download_manager.moc"
