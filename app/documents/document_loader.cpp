#include "documents/document_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QPdfDocument>
#include <QPdfSelection>
#include <QtConcurrent>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>

#include "kvchat/document.h"
#include "kvchat/model.h"
#include "kvchat/tokenizer.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

QString cancelled_text() { return QStringLiteral("cancelled"); }

// What a path that is not a regular file is, for a message ("“x” is a FIFO ...").
QString file_type_text(mode_t mode) {
  if (S_ISFIFO(mode)) return QStringLiteral("a FIFO (named pipe)");
  if (S_ISDIR(mode)) return QStringLiteral("a folder");
  if (S_ISCHR(mode)) return QStringLiteral("a character device");
  if (S_ISBLK(mode)) return QStringLiteral("a block device");
  if (S_ISSOCK(mode)) return QStringLiteral("a socket");
  return QStringLiteral("of an unknown type (not a regular file)");
}

// The first bytes of a regular file, and its size. Opened without blocking (O_NONBLOCK: a
// FIFO would wait for a writer, for ever), its type checked on the descriptor (fstat: the
// file itself, nothing swapped in between) before a byte is read: a FIFO, a device, a
// socket are refused with what they are, at once.
bool read_magic(const QString& path, qsizetype n, QByteArray* magic, qint64* size, QString* error) {
  const int fd =
      ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISREG(st.st_mode)) {
      // What open() cannot open at all (a socket: ENXIO) is named too.
      *error = QStringLiteral("“%1” is %2, not a document: nothing was read.")
                   .arg(path, file_type_text(st.st_mode));
    } else {
      *error = QCoreApplication::translate("DocumentLoader", "Cannot open “%1”: %2.")
                   .arg(path, QString::fromLocal8Bit(std::strerror(e)));
    }
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok) {
    *error = QCoreApplication::translate("DocumentLoader", "Cannot open “%1”: %2.")
                 .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
  } else if (!S_ISREG(st.st_mode)) {
    *error = QStringLiteral("“%1” is %2, not a document: nothing was read.")
                 .arg(path, file_type_text(st.st_mode));
    ok = false;
  } else {
    *size = static_cast<qint64>(st.st_size);
    magic->resize(n);
    ssize_t got = -1;
    do {
      got = ::read(fd, magic->data(), static_cast<size_t>(n));
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
      *error = QCoreApplication::translate("DocumentLoader", "Cannot open “%1”: %2.")
                   .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
      ok = false;
    } else {
      magic->resize(static_cast<qsizetype>(got));
    }
  }
  ::close(fd);
  return ok;
}

// Decodes everything `reader` yields into doc->text, hashing it as it goes.
bool decode_all(DocumentReader& reader, const LoadProgress& progress, ExtractedDocument* doc,
                QString* error) {
  QCryptographicHash hash(QCryptographicHash::Sha256);
  doc->text.clear();
  doc->text.reserve(static_cast<qsizetype>(std::min<uint64_t>(reader.size_bytes(), 1ull << 31)));
  std::string piece;
  for (;;) {
    piece.clear();
    auto more = reader.next(piece);
    if (!more) {
      *error = qstr(more.message());
      return false;
    }
    if (!piece.empty()) {
      doc->text.append(piece.data(), static_cast<qsizetype>(piece.size()));
      hash.addData(QByteArrayView(piece.data(), static_cast<qsizetype>(piece.size())));
    }
    if (progress && !progress(static_cast<qint64>(reader.bytes_read()),
                              static_cast<qint64>(reader.size_bytes()))) {
      *error = cancelled_text();
      return false;
    }
    if (!*more) break;
  }
  doc->text.squeeze();
  doc->encoding = qstr(reader.encoding().name);
  doc->notice = qstr(reader.encoding().notice);
  doc->sha256 = QString::fromLatin1(hash.result().toHex());
  if (doc->text.trimmed().isEmpty()) {
    *error = QStringLiteral("“%1” holds no text (only blank space): there is nothing to read.")
                 .arg(doc->name);
    return false;
  }
  return true;
}

QString pdf_error_text(QPdfDocument::Error e) {
  switch (e) {
    case QPdfDocument::Error::FileNotFound: return QStringLiteral("the file was not found");
    case QPdfDocument::Error::InvalidFileFormat: return QStringLiteral("it is not a valid PDF");
    case QPdfDocument::Error::DataNotYetAvailable: return QStringLiteral("its data is incomplete");
    default: return QStringLiteral("unknown PDF error");
  }
}

// The text layer of a PDF, page by page.
std::optional<ExtractedDocument> extract_pdf(const QString& path, const LoadProgress& progress,
                                             ExtractedDocument doc, QString* error) {
  QPdfDocument pdf;
  const QPdfDocument::Error e = pdf.load(path);
  if (e == QPdfDocument::Error::IncorrectPassword ||
      e == QPdfDocument::Error::UnsupportedSecurityScheme) {
    *error = QStringLiteral(
                 "“%1” is an encrypted (password-protected) PDF: kvchat cannot read "
                 "its text. Save an unprotected copy and attach that.")
                 .arg(doc.name);
    return std::nullopt;
  }
  if (e != QPdfDocument::Error::None || pdf.status() != QPdfDocument::Status::Ready) {
    *error = QCoreApplication::translate("DocumentLoader", "Cannot read “%1” as a PDF: %2.")
                 .arg(doc.name, pdf_error_text(e));
    return std::nullopt;
  }
  const int pages = pdf.pageCount();
  QString all;
  for (int i = 0; i < pages; ++i) {
    const QString page = pdf.getAllText(i).text();
    if (!page.trimmed().isEmpty()) {
      if (!all.isEmpty()) all += QStringLiteral("\n\n");
      all += page;
    }
    if (progress && !progress(i + 1, pages)) {
      *error = cancelled_text();
      return std::nullopt;
    }
  }
  if (all.trimmed().isEmpty()) {
    *error = QStringLiteral(
                 "“%1” has no text layer (%2 page(s) of images, e.g. a scan): there is "
                 "no text to read. Run it through OCR first.")
                 .arg(doc.name)
                 .arg(pages);
    return std::nullopt;
  }
  auto reader = DocumentReader::from_bytes(all.toUtf8().toStdString(), doc.name.toStdString());
  if (!reader) {
    *error = qstr(reader.message());
    return std::nullopt;
  }
  if (!decode_all(**reader, {}, &doc, error)) return std::nullopt;
  return doc;
}

}  // namespace

std::optional<ExtractedDocument> extract_document(const QString& path, const LoadProgress& progress,
                                                  QString* error) {
  QString local_error;
  if (!error) error = &local_error;
  const QFileInfo info(path);
  ExtractedDocument doc;
  doc.name = info.fileName();
  if (!info.exists()) {
    *error =
        QStringLiteral("“%1” does not exist (deleted or moved?): nothing was loaded.").arg(path);
    return std::nullopt;
  }
  if (info.isDir()) {
    *error = QStringLiteral("“%1” is a folder, not a document.").arg(path);
    return std::nullopt;
  }
  QByteArray magic;
  if (!read_magic(path, 5, &magic, &doc.bytes, error)) return std::nullopt;
  if (magic == "%PDF-" ||
      (doc.bytes == 0 && info.suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0)) {
    doc.mime = QStringLiteral("application/pdf");
    if (doc.bytes == 0) {
      *error = QStringLiteral("“%1” is empty (0 bytes): there is nothing to read.").arg(doc.name);
      return std::nullopt;
    }
    return extract_pdf(path, progress, std::move(doc), error);
  }
  const QString suffix = info.suffix().toLower();
  doc.mime = (suffix == QLatin1String("md") || suffix == QLatin1String("markdown"))
                 ? QStringLiteral("text/markdown")
                 : QStringLiteral("text/plain");
  auto reader = DocumentReader::open(QFile::encodeName(path).toStdString());
  if (!reader) {
    *error = qstr(reader.message());
    return std::nullopt;
  }
  doc.bytes = static_cast<qint64>((*reader)->size_bytes());
  if (!decode_all(**reader, progress, &doc, error)) return std::nullopt;
  return doc;
}

std::optional<ExtractedDocument> extract_pasted_text(const QString& text, QString* error) {
  QString local_error;
  if (!error) error = &local_error;
  ExtractedDocument doc;
  doc.name = QCoreApplication::translate("DocumentLoader", "Pasted text");
  doc.mime = QStringLiteral("text/plain");
  QByteArray utf8 = text.toUtf8();
  doc.bytes = utf8.size();
  auto reader = DocumentReader::from_bytes(utf8.toStdString(), doc.name.toStdString());
  if (!reader) {
    *error = qstr(reader.message());
    return std::nullopt;
  }
  if (!decode_all(**reader, {}, &doc, error)) return std::nullopt;
  return doc;
}

qint64 count_document_tokens(const Tokenizer& tokenizer, const QByteArray& utf8,
                             const LoadProgress& progress) {
  const qint64 n = utf8.size();
  qint64 total = 0;
  for (qint64 pos = 0; pos < n;) {
    qint64 end = std::min(n, pos + kTokenPieceBytes);
    if (end < n) {
      // Cut after a line break (no token spans one), else before a UTF-8 lead byte.
      const qint64 nl = utf8.lastIndexOf('\n', end - 1);
      if (nl >= pos) {
        end = nl + 1;
      } else {
        while (end > pos && (static_cast<unsigned char>(utf8[end]) & 0xC0) == 0x80) --end;
        if (end == pos) end = std::min(n, pos + kTokenPieceBytes);
      }
    }
    const std::string_view piece(utf8.constData() + pos, static_cast<size_t>(end - pos));
    total += static_cast<qint64>(tokenizer.encode(piece, /*add_bos=*/false).size());
    pos = end;
    if (progress && !progress(pos, n)) return -1;
  }
  return total;
}

QString model_identity(const Model& model) {
  return QStringLiteral("%1").arg(static_cast<qulonglong>(model.info().identity), 16, 16,
                                  QLatin1Char('0'));
}

QVariantMap document_map(const StoredDocument& d) {
  return {{QStringLiteral("id"), d.id},
          {QStringLiteral("conversation_id"), d.conversation_id},
          {QStringLiteral("name"), d.name},
          {QStringLiteral("mime"), d.mime},
          {QStringLiteral("bytes"), d.bytes},
          {QStringLiteral("sha256"), d.sha256},
          {QStringLiteral("encoding"), d.encoding},
          {QStringLiteral("notice"), d.notice},
          {QStringLiteral("n_tokens"), d.n_tokens},
          {QStringLiteral("tokens_model"), d.tokens_model},
          {QStringLiteral("text_bytes"), d.text_bytes}};
}

// ---- DocumentLoader ---------------------------------------------------------------------

namespace {

using Outcome = DocumentLoader::Outcome;

Outcome failure(QString message) {
  Outcome o;
  o.error = std::move(message);
  return o;
}

// Stores `doc` unless its content is there already, counting its tokens with `model` when
// the stored count is not from this model.
Outcome store_document(const QString& db_path, ExtractedDocument doc, qint64 conversation_id,
                       const std::shared_ptr<const Model>& model, const LoadProgress& counting) {
  QString error;
  auto store = DocumentStore::open(db_path, &error);
  if (!store) return failure(error);
  const QString identity = model ? model_identity(*model) : QString();
  std::optional<StoredDocument> existing = store->document_by_hash(doc.sha256);
  qint64 n_tokens = existing ? existing->n_tokens : 0;
  const bool count = model && (!existing || existing->tokens_model != identity);
  if (count) {
    n_tokens = count_document_tokens(model->tokenizer(), doc.text, counting);
    if (n_tokens < 0) return failure(cancelled_text());
  }
  Outcome o;
  qint64 id = existing ? existing->id : 0;
  if (!existing) {
    StoredDocument meta;
    meta.conversation_id = conversation_id;
    meta.name = doc.name;
    meta.mime = doc.mime;
    meta.bytes = doc.bytes;
    meta.sha256 = doc.sha256;
    meta.encoding = doc.encoding;
    meta.notice = doc.notice;
    meta.n_tokens = n_tokens;
    meta.tokens_model = identity;
    id = store->add_document(meta, doc.text, &o.inserted, &error);
    if (!id) return failure(error);
    doc.text.clear();
  } else if (count && !store->set_token_count(id, n_tokens, identity, &error)) {
    return failure(error);
  }
  o.document = store->document(id);
  if (!o.document)
    return failure(
        QCoreApplication::translate("DocumentLoader", "The stored document %1 cannot be read back.")
            .arg(id));
  // The name, encoding and notice of this load (the same text may come from another file).
  o.document->name = doc.name;
  o.document->bytes = doc.bytes;
  o.document->encoding = doc.encoding;
  o.document->notice = doc.notice;
  o.document->mime = doc.mime;
  return o;
}

}  // namespace

namespace {

// The pools of loaders destroyed while a task was stuck: never deleted (a thread of theirs
// may still run), kept reachable from here so a leak checker does not count them.
QThreadPool* g_left_behind[16] = {};
std::atomic<int> g_left_behind_count{0};

}  // namespace

struct DocumentLoader::Link {
  std::mutex mutex;
  DocumentLoader* loader = nullptr;  // null once it is destroyed
};

struct DocumentLoader::TaskEnd {
  std::mutex mutex;
  std::condition_variable cv;
  bool ended = false;
  void end() {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ended = true;
    }
    cv.notify_all();
  }
  void wait_for(int ms) {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return ended; });
  }
};

DocumentLoader::DocumentLoader(QString database_path, QObject* parent)
    : QObject(parent),
      database_path_(std::move(database_path)),
      pool_(new QThreadPool),
      link_(std::make_shared<Link>()) {
  link_->loader = this;
  // One load runs at a time (each waits for the one it superseded, see start); the other
  // threads are for loads stuck in a read, which must not hold up the next.
  pool_->setMaxThreadCount(kMaxThreads);
}

DocumentLoader::~DocumentLoader() {
  cancel();
  {
    const std::lock_guard<std::mutex> lock(link_->mutex);
    link_->loader = nullptr;  // no task reaches this object from now on
  }
  if (pool_->waitForDone(kExitWaitMs)) {
    delete pool_;
  } else {
    // A read that never returns (its thread cannot be stopped): left behind, not waited for.
    qWarning("kvchat: a document load did not end; not waiting for it");
    const int i = g_left_behind_count.fetch_add(1);
    if (i < static_cast<int>(std::size(g_left_behind))) g_left_behind[i] = pool_;
  }
}

void DocumentLoader::cancel() {
  if (cancel_) cancel_->store(true);
}

void DocumentLoader::abandon() {
  if (!watcher_) return;
  cancel();
  ++generation_;       // whatever it reports from now on is dropped
  watcher_ = nullptr;  // it deletes itself if it ever ends
  emit failed(cancelled_text());
}

void DocumentLoader::load_file(const QString& path, qint64 conversation_id,
                               std::shared_ptr<const Model> model) {
  const QString db = database_path_;
  start([path, db, conversation_id, model, hook = before_read_](const LoadProgress& reading,
                                                                const LoadProgress& counting) {
    if (hook) hook(path);
    QString error;
    auto doc = extract_document(path, reading, &error);
    if (!doc) return failure(error);
    return store_document(db, std::move(*doc), conversation_id, model, counting);
  });
}

void DocumentLoader::load_text(const QString& text, qint64 conversation_id,
                               std::shared_ptr<const Model> model) {
  const QString db = database_path_;
  start([text, db, conversation_id, model](const LoadProgress&, const LoadProgress& counting) {
    QString error;
    auto doc = extract_pasted_text(text, &error);
    if (!doc) return failure(error);
    return store_document(db, std::move(*doc), conversation_id, model, counting);
  });
}

void DocumentLoader::count_tokens(qint64 document_id, std::shared_ptr<const Model> model) {
  const QString db = database_path_;
  start([document_id, db, model](const LoadProgress&, const LoadProgress& counting) {
    QString error;
    auto store = DocumentStore::open(db, &error);
    if (!store) return failure(error);
    Outcome o;
    o.document = store->document(document_id);
    if (!o.document)
      return failure(QCoreApplication::translate("DocumentLoader", "Document %1 is not stored.")
                         .arg(document_id));
    if (model && o.document->tokens_model != model_identity(*model)) {
      const qint64 n =
          count_document_tokens(model->tokenizer(), store->document_text(document_id), counting);
      if (n < 0) return failure(cancelled_text());
      if (!store->set_token_count(document_id, n, model_identity(*model), &error))
        return failure(error);
      o.document->n_tokens = n;
      o.document->tokens_model = model_identity(*model);
    }
    return o;
  });
}

void DocumentLoader::start(Task task) {
  cancel();
  auto flag = std::make_shared<std::atomic<bool>>(false);
  cancel_ = flag;
  auto previous_end = std::move(last_end_);
  auto end = std::make_shared<TaskEnd>();
  last_end_ = end;
  const quint64 generation = ++generation_;
  auto reporter = [link = link_, flag, generation](QString stage) -> LoadProgress {
    return [link, flag, generation, stage](qint64 done, qint64 total) {
      {
        const std::lock_guard<std::mutex> lock(link->mutex);
        if (DocumentLoader* loader = link->loader) {
          QMetaObject::invokeMethod(
              loader,
              [loader, generation, done, total, stage] {
                if (generation == loader->generation_) emit loader->progress(done, total, stage);
              },
              Qt::QueuedConnection);
        }
      }
      return !flag->load();
    };
  };
  auto* watcher = new QFutureWatcher<Outcome>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    const Outcome o = watcher->result();
    watcher->deleteLater();
    if (watcher_ == watcher) watcher_ = nullptr;
    if (generation != generation_) return;
    if (o.document) {
      QVariantMap m = document_map(*o.document);
      m.insert(QStringLiteral("inserted"), o.inserted);
      emit finished(m);
    } else {
      emit failed(o.error);
    }
  });
  watcher->setFuture(QtConcurrent::run(
      pool_, [task = std::move(task), reading = reporter(QStringLiteral("reading")),
              counting = reporter(QStringLiteral("counting tokens")), flag, previous_end, end] {
        // The task this one superseded ends first (cancelled, it stops at its next block),
        // unless it is stuck: then this one goes ahead without it.
        if (previous_end) previous_end->wait_for(kSupersededWaitMs);
        Outcome o;
        if (flag->load()) {
          o = failure(cancelled_text());
        } else {
          try {
            o = task(reading, counting);
          } catch (const std::exception& e) {
            o = failure(
                QCoreApplication::translate("DocumentLoader", "Loading the document failed: %1")
                    .arg(QString::fromUtf8(e.what())));
          } catch (...) {
            o = failure(
                QCoreApplication::translate("DocumentLoader", "Loading the document failed."));
          }
        }
        end->end();
        return o;
      }));
}

}  // namespace kvchat::app
