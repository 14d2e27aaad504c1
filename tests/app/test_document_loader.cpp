// Document loading (app/documents/document_loader): text in every encoding the reader
// detects, the refusals (binary, empty, blank, missing, deleted or truncated while read,
// encrypted and image-only PDFs), a PDF's text layer, token counts with the demo model's
// tokenizer, and DocumentLoader: off the GUI thread (the event loop keeps running),
// progress, storage deduplicated by content hash.
//
// Issue 40: a FIFO (or a device, a socket) named as a document is refused at once, never
// waited on; a load stuck in a read that never returns does not hold up the next one.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "documents/document_loader.h"
#include "kvchat/model.h"
#include "store/conversation_store.h"
#include "store/document_store.h"

using kvchat::app::count_document_tokens;
using kvchat::app::DocumentLoader;
using kvchat::app::DocumentStore;
using kvchat::app::extract_document;
using kvchat::app::extract_pasted_text;
using kvchat::app::ExtractedDocument;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");
const QString kSample = QStringLiteral(KVCHAT_SOURCE_DIR "/tests/data/kjv-revelation-21-22.txt");
const QString kPdfText = QStringLiteral("The quick brown fox jumps over the lazy dog 4711");

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(f.write(bytes), bytes.size());
}

QString sha256_hex(const QByteArray& text) {
  return QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex());
}

// A PDF whose trailer names a Standard security handler with a user password: any
// reader must ask for the password (the /O and /U entries match no empty password).
QByteArray encrypted_pdf() {
  QByteArray pdf = "%PDF-1.4\n";
  QVector<qsizetype> offsets;
  const QByteArray objects[] = {
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
      "<< /Filter /Standard /V 1 /R 2 /P -44"
      " /O <6a1f3c2e9b7d4a5f8e0c1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6>"
      " /U <0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0> >>"};
  for (int i = 0; i < 4; ++i) {
    offsets.push_back(pdf.size());
    pdf += QByteArray::number(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const qsizetype xref = pdf.size();
  pdf += "xref\n0 5\n0000000000 65535 f \n";
  for (qsizetype o : offsets) pdf += QByteArray::number(o).rightJustified(10, '0') + " 00000 n \n";
  pdf +=
      "trailer\n<< /Size 5 /Root 1 0 R /Encrypt 4 0 R"
      " /ID [<00112233445566778899aabbccddeeff><00112233445566778899aabbccddeeff>] >>\n";
  pdf += "startxref\n" + QByteArray::number(xref) + "\n%%EOF\n";
  return pdf;
}

// A FIFO at `path`, and its writer end opened (and closed) by unblock(): what frees a
// reader stuck in open() on it (the code before issue 40), so that a test failing on that
// code fails in seconds instead of hanging.
class Fifo {
 public:
  explicit Fifo(const QString& path) : path_(QFile::encodeName(path)) {
    ok_ = ::mkfifo(path_.constData(), 0600) == 0;
  }
  ~Fifo() { ::unlink(path_.constData()); }
  bool ok() const { return ok_; }
  void unblock() const {
    const int fd = ::open(path_.constData(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }

 private:
  QByteArray path_;
  bool ok_ = false;
};

// A Unix socket file at `path` (nobody listening).
bool make_socket_file(const QString& path) {
  const QByteArray p = QFile::encodeName(path);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (static_cast<size_t>(p.size()) >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, p.constData(), static_cast<size_t>(p.size()));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

class TestDocumentLoader : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const kvchat::Model> model_;
  QString path(const QString& name) const { return dir_.filePath(name); }

  ExtractedDocument extract_ok(const QString& file) {
    QString error;
    auto doc = extract_document(file, {}, &error);
    if (!doc) qWarning() << "extract failed:" << error;
    return doc ? *doc : ExtractedDocument{};
  }
  QString extract_error(const QString& file, const kvchat::app::LoadProgress& progress = {}) {
    QString error;
    auto doc = extract_document(file, progress, &error);
    return doc ? QStringLiteral("<loaded>") : error;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    auto model = kvchat::Model::load(kDemo.toStdString());
    QVERIFY2(model, model ? "" : model.message().c_str());
    model_ = std::move(model).value();
  }

  void utf8TextAndMarkdown() {
    const QByteArray text = "Chapter 1\r\n\r\nIn the beginning — “quoted” — café.\r\nThe end.\n";
    write_file(path("plain.txt"), text);
    const ExtractedDocument d = extract_ok(path("plain.txt"));
    QCOMPARE(d.text, QByteArray("Chapter 1\n\nIn the beginning — “quoted” — café.\nThe end.\n"));
    QCOMPARE(d.encoding, QStringLiteral("utf-8"));
    QVERIFY(d.notice.isEmpty());
    QCOMPARE(d.mime, QStringLiteral("text/plain"));
    QCOMPARE(d.name, QStringLiteral("plain.txt"));
    QCOMPARE(d.bytes, qint64(text.size()));
    QCOMPARE(d.sha256, sha256_hex(d.text));  // of the text, not of the file's bytes

    write_file(path("notes.md"), "# Title\n\n- item\n");
    QCOMPARE(extract_ok(path("notes.md")).mime, QStringLiteral("text/markdown"));
  }

  void utf16WithBom() {
    const QString text = QStringLiteral("Grüße aus Köln — 東京\nzweite Zeile\n");
    QByteArray le("\xFF\xFE", 2), be("\xFE\xFF", 2);
    for (QChar c : text) {
      const ushort u = c.unicode();
      le += char(u & 0xFF);
      le += char(u >> 8);
      be += char(u >> 8);
      be += char(u & 0xFF);
    }
    write_file(path("le.txt"), le);
    write_file(path("be.txt"), be);
    const ExtractedDocument l = extract_ok(path("le.txt"));
    QCOMPARE(QString::fromUtf8(l.text), text);
    QCOMPARE(l.encoding, QStringLiteral("utf-16le"));
    const ExtractedDocument b = extract_ok(path("be.txt"));
    QCOMPARE(QString::fromUtf8(b.text), text);
    QCOMPARE(b.encoding, QStringLiteral("utf-16be"));
    QCOMPARE(l.sha256, b.sha256);  // the same text: the same hash
  }

  void invalidUtf8IsReadAsLatin1WithANotice() {
    write_file(path("latin1.txt"), QByteArray("caf\xE9 cr\xE8me br\xFBl\xE9\ne = mc\xB2\n"));
    const ExtractedDocument d = extract_ok(path("latin1.txt"));
    QCOMPARE(QString::fromUtf8(d.text), QStringLiteral("café crème brûlé\ne = mc²\n"));
    QCOMPARE(d.encoding, QStringLiteral("latin-1"));
    QVERIFY2(!d.notice.isEmpty(), "no notice for a guessed encoding");
  }

  void refusesBinaryEmptyAndBlank() {
    QByteArray png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    for (int i = 0; i < 2000; ++i) png += char(i * 7);
    write_file(path("image.png"), png);
    QString error = extract_error(path("image.png"));
    QVERIFY2(error.contains(QStringLiteral("image.png")) &&
                 error.contains(QStringLiteral("binary"), Qt::CaseInsensitive),
             qPrintable(error));

    write_file(path("empty.txt"), {});
    error = extract_error(path("empty.txt"));
    QVERIFY2(error.contains(QStringLiteral("empty"), Qt::CaseInsensitive), qPrintable(error));

    write_file(path("blank.txt"), "  \n\n\t \n");
    error = extract_error(path("blank.txt"));
    QVERIFY2(error.contains(QStringLiteral("no text")), qPrintable(error));

    QVERIFY(extract_error(path("missing.txt")).contains(QStringLiteral("does not exist")));
    QVERIFY(extract_error(dir_.path()).contains(QStringLiteral("folder")));
    QVERIFY(!extract_pasted_text(QStringLiteral(" \n "), &error));
  }

  // The reader checks the file before every 1 MiB block: deleted or cut short while it is
  // read, the load fails with a message instead of a truncated document.
  void fileDeletedOrTruncatedWhileRead() {
    QByteArray big;
    const QByteArray sample = read_all(kSample);
    while (big.size() < 3 * (1 << 20)) big += sample;
    write_file(path("deleted.txt"), big);
    int calls = 0;
    QString error = extract_error(path("deleted.txt"), [&](qint64, qint64) {
      if (calls++ == 0) QFile::remove(path("deleted.txt"));
      return true;
    });
    QVERIFY2(error.contains(QStringLiteral("deleted")), qPrintable(error));

    write_file(path("truncated.txt"), big);
    calls = 0;
    error = extract_error(path("truncated.txt"), [&](qint64, qint64) {
      if (calls++ == 0) QFile::resize(path("truncated.txt"), 1000);
      return true;
    });
    QVERIFY2(error.contains(QStringLiteral("shrank")), qPrintable(error));

    write_file(path("cancelled.txt"), big);
    error = extract_error(path("cancelled.txt"), [](qint64, qint64) { return false; });
    QCOMPARE(error, QStringLiteral("cancelled"));

    // Progress is in bytes of the file, up to its size.
    qint64 last = 0, total = 0;
    const ExtractedDocument d = [&] {
      QString e;
      auto doc = extract_document(
          path("cancelled.txt"),
          [&](qint64 done, qint64 all) {
            last = done;
            total = all;
            return true;
          },
          &e);
      return doc ? *doc : ExtractedDocument{};
    }();
    QCOMPARE(total, qint64(big.size()));
    QCOMPARE(last, total);
    QCOMPARE(d.text, big);
  }

  void pdfTextLayer() {
    {
      QPdfWriter writer(path("text.pdf"));
      writer.setPageSize(QPageSize(QPageSize::A5));
      QPainter painter(&writer);
      QFont font = painter.font();
      font.setPointSize(14);
      painter.setFont(font);
      painter.drawText(QPointF(200, 600), kPdfText);
      writer.newPage();
      painter.drawText(QPointF(200, 600), QStringLiteral("Second page"));
    }
    const ExtractedDocument d = extract_ok(path("text.pdf"));
    QCOMPARE(d.mime, QStringLiteral("application/pdf"));
    QVERIFY2(d.text.contains(kPdfText.toUtf8()), d.text.constData());
    QVERIFY2(d.text.contains("Second page"), d.text.constData());
    QCOMPARE(d.encoding, QStringLiteral("utf-8"));
    QCOMPARE(d.bytes, QFileInfo(path("text.pdf")).size());
  }

  void refusesImageOnlyAndEncryptedPdfs() {
    {
      QPdfWriter writer(path("scan.pdf"));
      QPainter painter(&writer);
      QImage image(300, 200, QImage::Format_RGB32);
      image.fill(Qt::white);
      QPainter ip(&image);
      ip.fillRect(20, 20, 100, 50, Qt::black);  // "scanned" marks, no text
      ip.end();
      painter.drawImage(QRectF(100, 100, 3000, 2000), image);
    }
    QString error = extract_error(path("scan.pdf"));
    QVERIFY2(error.contains(QStringLiteral("no text layer")) &&
                 error.contains(QStringLiteral("scan.pdf")),
             qPrintable(error));

    write_file(path("locked.pdf"), encrypted_pdf());
    error = extract_error(path("locked.pdf"));
    QVERIFY2(error.contains(QStringLiteral("encrypted")), qPrintable(error));

    write_file(path("broken.pdf"), "%PDF-1.4\nthis is not really a PDF\n");
    error = extract_error(path("broken.pdf"));
    QVERIFY2(error.contains(QStringLiteral("broken.pdf")), qPrintable(error));
  }

  void tokenCounts() {
    const kvchat::Tokenizer& tok = model_->tokenizer();
    const QByteArray sample = extract_ok(kSample).text;
    QCOMPARE(
        count_document_tokens(tok, sample),
        qint64(
            tok.encode(std::string_view(sample.constData(), size_t(sample.size())), false).size()));
    // Longer than one piece: counted piecewise, within a token per piece of the whole.
    QByteArray big;
    while (big.size() < 3 * kvchat::app::kTokenPieceBytes) big += sample;
    const qint64 whole =
        qint64(tok.encode(std::string_view(big.constData(), size_t(big.size())), false).size());
    const qint64 pieces = count_document_tokens(tok, big);
    QVERIFY2(std::abs(pieces - whole) <= 4,
             qPrintable(QStringLiteral("%1 vs %2").arg(pieces).arg(whole)));
    QCOMPARE(count_document_tokens(tok, big, [](qint64, qint64) { return false; }), -1);
  }

  // The loader: off the GUI thread, with progress; the same content is stored once.
  void loaderStoresOnceAndKeepsTheEventLoopRunning() {
    const QString db = path("loader/kvchat.sqlite");
    QString error;
    auto conversations = kvchat::app::ConversationStore::open(db, &error);
    QVERIFY2(conversations, qPrintable(error));
    DocumentStore store(*conversations);

    QByteArray big;
    const QByteArray sample = read_all(kSample);
    while (big.size() < 24 * (1 << 20)) big += sample;
    write_file(path("large.txt"), big);

    DocumentLoader loader(db);
    QSignalSpy finished(&loader, &DocumentLoader::finished);
    QSignalSpy failed(&loader, &DocumentLoader::failed);
    QSignalSpy progress(&loader, &DocumentLoader::progress);
    // The longest the event loop goes without running while the file is loaded.
    QElapsedTimer since;
    qint64 longest = 0;
    QTimer tick;
    tick.setInterval(5);
    connect(&tick, &QTimer::timeout, this, [&] { longest = std::max(longest, since.restart()); });
    since.start();
    tick.start();
    loader.load_file(path("large.txt"), 0, model_);
    QVERIFY(loader.busy());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 120000);
    tick.stop();
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed[0][0].toString()));
    QVERIFY(!loader.busy());
    QVERIFY2(longest < 250,
             qPrintable(QStringLiteral("the event loop stalled %1 ms").arg(longest)));
    QVERIFY(progress.count() >= 24);  // one per 1 MiB block read, then the token count
    QCOMPARE(progress.first()[2].toString(), QStringLiteral("reading"));
    QCOMPARE(progress.last()[2].toString(), QStringLiteral("counting tokens"));
    const QVariantMap doc = finished[0][0].toMap();
    QVERIFY(doc.value(QStringLiteral("inserted")).toBool());
    QVERIFY(doc.value(QStringLiteral("n_tokens")).toLongLong() > 5'000'000);
    QCOMPARE(doc.value(QStringLiteral("tokens_model")).toString(),
             kvchat::app::model_identity(*model_));
    QCOMPARE(store.document_text(doc.value(QStringLiteral("id")).toLongLong()), big);

    // The same file again, and its text pasted: the same row, not counted again.
    finished.clear();
    loader.load_file(path("large.txt"), 0, model_);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished[0][0].toMap().value(QStringLiteral("id")), doc.value(QStringLiteral("id")));
    QVERIFY(!finished[0][0].toMap().value(QStringLiteral("inserted")).toBool());
    const QString small = QString::fromUtf8(sample);
    finished.clear();
    loader.load_text(small, 0, nullptr);  // no model yet: stored uncounted
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const qint64 pasted = finished[0][0].toMap().value(QStringLiteral("id")).toLongLong();
    QCOMPARE(finished[0][0].toMap().value(QStringLiteral("n_tokens")).toLongLong(), 0);
    finished.clear();
    loader.load_text(small, 0, model_);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QCOMPARE(finished[0][0].toMap().value(QStringLiteral("id")).toLongLong(), pasted);
    QVERIFY(finished[0][0].toMap().value(QStringLiteral("n_tokens")).toLongLong() > 1000);
    QCOMPARE(store.document_count(), 2);

    // A refusal reaches the window as a message; nothing is stored.
    loader.load_file(path("no-such-file.txt"), 0, model_);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY(failed[0][0].toString().contains(QStringLiteral("does not exist")));
    QCOMPARE(store.document_count(), 2);

    // Cancelled mid-way: "cancelled", nothing stored.
    failed.clear();
    QByteArray other = big;
    other[0] = 'X';
    write_file(path("other.txt"), other);
    loader.load_file(path("other.txt"), 0, model_);
    loader.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    QCOMPARE(failed[0][0].toString(), QStringLiteral("cancelled"));
    QCOMPARE(store.document_count(), 2);
  }

  // ---- issue 40: what is not a regular file ----------------------------------------------

  // A FIFO named as a document: refused at once, naming what it is (before: open() waited
  // for a writer for ever). A device and a socket the same way.
  void fifoDeviceAndSocketAreRefusedAtOnce_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("named");
    QTest::newRow("FIFO") << "fifo"
                          << "a FIFO (named pipe)";
    QTest::newRow("character device") << "/dev/null"
                                      << "a character device";
    QTest::newRow("socket") << "socket"
                            << "a socket";
  }
  void fifoDeviceAndSocketAreRefusedAtOnce() {
    QFETCH(QString, kind);
    QFETCH(QString, named);
    std::unique_ptr<Fifo> fifo;
    QString file = kind;
    if (kind == QLatin1String("fifo")) {
      file = path(QStringLiteral("notes-fifo.txt"));
      fifo = std::make_unique<Fifo>(file);
      QVERIFY(fifo->ok());
    } else if (kind == QLatin1String("socket")) {
      file = path(QStringLiteral("notes-socket.txt"));
      QFile::remove(file);
      QVERIFY(make_socket_file(file));
    }
    std::atomic<bool> done{false};
    QString error;
    QElapsedTimer timer;
    timer.start();
    std::thread reader([&] {
      auto doc = extract_document(file, {}, &error);
      if (doc) error = QStringLiteral("<loaded>");
      done = true;
    });
    while (!done && timer.elapsed() < 2000) QThread::msleep(5);
    const bool in_time = done;
    if (!in_time && fifo) fifo->unblock();  // the old code: stuck in open()
    reader.join();
    if (kind == QLatin1String("socket")) QFile::remove(file);
    QVERIFY2(in_time, "extract_document waited on it (no answer in 2 s)");
    QVERIFY2(error.contains(QStringLiteral("is %1, not a document").arg(named)), qPrintable(error));
    QVERIFY(error.contains(file));
  }

  // The same through DocumentLoader: "failed" within 2 s, and the next document loads
  // (before: the one loading thread stayed in open() for good, nothing loaded after it).
  void loaderRefusesAFifoAndLoadsTheNextDocument() {
    const QString db = path("fifo/kvchat.sqlite");
    QVERIFY(QDir().mkpath(path("fifo")));
    const Fifo fifo(path("fifo/pipe.md"));
    QVERIFY(fifo.ok());
    DocumentLoader loader(db);
    QSignalSpy finished(&loader, &DocumentLoader::finished);
    QSignalSpy failed(&loader, &DocumentLoader::failed);
    loader.load_file(path("fifo/pipe.md"), 0, model_);
    QElapsedTimer timer;
    timer.start();
    while (failed.isEmpty() && finished.isEmpty() && timer.elapsed() < 2000) QTest::qWait(10);
    if (failed.isEmpty() && finished.isEmpty()) {
      fifo.unblock();  // the old code: free its thread so that this fails instead of hanging
      QTRY_VERIFY_WITH_TIMEOUT(!loader.busy(), 10000);
      QFAIL("the load of a FIFO did not end within 2 s");
    }
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed[0][0].toString().contains(QStringLiteral("FIFO")),
             qPrintable(failed[0][0].toString()));
    QVERIFY(!loader.busy());
    loader.load_file(kSample, 0, nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
    QCOMPARE(finished[0][0].toMap().value(QStringLiteral("name")).toString(),
             QFileInfo(kSample).fileName());
  }

  // A load stuck in a read that never returns (a hook that blocks stands for it: a hung
  // network file system; a FIFO is refused now): the next document starts anyway, within
  // about kSupersededWaitMs, and loads; the stuck one's result, once it comes, is dropped.
  void newDocumentReplacesAStuckLoad() {
    QVERIFY(QDir().mkpath(path("stuck")));
    write_file(path("stuck/stuck.txt"), "a document that is slow to read\n");
    QSemaphore entered, gate;
    {
      DocumentLoader loader(path("stuck/kvchat.sqlite"));
      loader.set_before_read_for_testing([&](const QString& p) {
        if (!p.endsWith(QLatin1String("stuck.txt"))) return;
        entered.release();
        gate.acquire();
      });
      // Whatever fails below, the stuck task is let go before the loader is destroyed.
      const std::unique_ptr<QSemaphore, void (*)(QSemaphore*)> let_go(
          &gate, [](QSemaphore* g) { g->release(100); });
      QSignalSpy finished(&loader, &DocumentLoader::finished);
      QSignalSpy failed(&loader, &DocumentLoader::failed);
      loader.load_file(path("stuck/stuck.txt"), 0, nullptr);
      QVERIFY(entered.tryAcquire(1, 5000));
      QTest::qWait(100);
      QVERIFY(loader.busy());
      QElapsedTimer timer;
      timer.start();
      loader.load_file(kSample, 0, nullptr);
      QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 5000);
      // kSupersededWaitMs, then a small file read (bounded loosely: a loaded machine).
      QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
      QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed[0][0].toString()));
      QCOMPARE(finished[0][0].toMap().value(QStringLiteral("name")).toString(),
               QFileInfo(kSample).fileName());
      QVERIFY(!loader.busy());
      // The stuck one ends at last: nothing of it comes out.
      gate.release();
      QTest::qWait(500);
      QCOMPARE(finished.size(), 1);
      QCOMPARE(failed.size(), 0);
      QVERIFY(!loader.busy());

      // Cancelled while stuck: "cancelled" at once, not busy, and the next one loads.
      loader.load_file(path("stuck/stuck.txt"), 0, nullptr);
      QVERIFY(entered.tryAcquire(1, 5000));
      QVERIFY(loader.busy());
      loader.abandon();
      QCOMPARE(failed.size(), 1);
      QCOMPARE(failed[0][0].toString(), QStringLiteral("cancelled"));
      QVERIFY(!loader.busy());
      loader.load_text(QStringLiteral("pasted after a stuck load"), 0, nullptr);
      QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 5000);
      gate.release();
      QTest::qWait(300);
      QCOMPARE(finished.size(), 2);
      QCOMPARE(failed.size(), 1);
    }
  }

  // The loader destroyed while a load is stuck (the window closed): it does not wait for
  // ever, and the stuck task, when it ends, reaches nothing of it.
  void destroyedWhileALoadIsStuck() {
    QVERIFY(QDir().mkpath(path("gone")));
    write_file(path("gone/stuck.txt"), "never read in time\n");
    auto entered = std::make_shared<QSemaphore>();
    auto gate = std::make_shared<QSemaphore>();
    auto loader = std::make_unique<DocumentLoader>(path("gone/kvchat.sqlite"));
    loader->set_before_read_for_testing([entered, gate](const QString&) {
      entered->release();
      gate->acquire();
    });
    loader->load_file(path("gone/stuck.txt"), 0, nullptr);
    QVERIFY(entered->tryAcquire(1, 5000));
    // Lets the stuck task go after 3 s more than the loader should wait (or when told):
    // a loader that waits for ever fails here instead of hanging.
    QSemaphore told;
    std::thread releaser([&told, gate] {
      told.tryAcquire(1, DocumentLoader::kExitWaitMs + 3000);
      gate->release();
    });
    QElapsedTimer timer;
    timer.start();
    QTest::ignoreMessage(QtWarningMsg, "kvchat: a document load did not end; not waiting for it");
    loader.reset();
    const qint64 waited = timer.elapsed();
    told.release();  // it goes on: reads, stores, reports to no one
    releaser.join();
    QTest::qWait(500);  // (a crash here would be a use after free)
    QVERIFY2(waited < DocumentLoader::kExitWaitMs + 1000, qPrintable(QString::number(waited)));
  }
};

QTEST_MAIN(TestDocumentLoader)
#include "test_document_loader.moc"
