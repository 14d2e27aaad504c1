// Loading long documents: a file (plain text, Markdown, PDF) or pasted text becomes UTF-8
// text, a content hash and a token count, stored once in SQLite (DocumentStore). The
// work runs on a pool thread (QtConcurrent) with byte progress, so a 200 MB file does not
// freeze the window.
//
// Memory: text files are decoded by kvchat::DocumentReader one 1 MiB block at a time and
// hashed as they are read; the decoded text (UTF-8, about the file's size) is then held
// once to store it in SQLite, which copies it once more while it writes the row: about
// 2x the text at the peak, transiently. Tokens are counted 1 MiB of text at a time. A
// PDF's text layer is extracted page by page (Qt PDF) and goes through the same decoder.
#pragma once

#include <QByteArray>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QVariantMap>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "store/document_store.h"

namespace kvchat {
class Model;
class Tokenizer;
}  // namespace kvchat

namespace kvchat::app {

// A document's text as read, before it is stored.
struct ExtractedDocument {
  QByteArray text;  // UTF-8, line ends \n
  QString name;     // the file name, or "Pasted text"
  QString mime;     // "text/plain", "text/markdown", "application/pdf"
  QString encoding;
  QString notice;
  qint64 bytes = 0;  // of the file (pasted text: its UTF-8 bytes)
  QString sha256;    // hex, of `text`
};

// done/total bytes (or pages, tokens); return false to cancel.
using LoadProgress = std::function<bool(qint64 done, qint64 total)>;

// Blocking, any thread. nullopt with *error (a sentence naming the file) when the file
// cannot be read, is not a regular file (a FIFO, a device, a socket: refused at once, on
// the descriptor opened with O_NONBLOCK, before a byte is read), is binary, empty, an
// encrypted or image-only PDF, changes or vanishes while read, or when progress()
// cancelled ("cancelled").
std::optional<ExtractedDocument> extract_document(const QString& path, const LoadProgress& progress,
                                                  QString* error);
// Pasted text, through the same decoder (line ends, refusals).
std::optional<ExtractedDocument> extract_pasted_text(const QString& text, QString* error);
// Tokens of `utf8` without BOS. Exact for text up to kTokenPieceBytes; longer text is
// counted in pieces cut after a line break (within a token or so of the whole count per
// piece). -1 when progress() cancelled.
constexpr qint64 kTokenPieceBytes = 1 << 20;
qint64 count_document_tokens(const Tokenizer& tokenizer, const QByteArray& utf8,
                             const LoadProgress& progress = {});
// ModelInfo::identity as stored in documents.tokens_model.
QString model_identity(const Model& model);
// A StoredDocument for QML and the test state.
QVariantMap document_map(const StoredDocument& d);

class DocumentLoader : public QObject {
  Q_OBJECT
 public:
  explicit DocumentLoader(QString database_path, QObject* parent = nullptr);
  // Cancels the running task and waits for it, a bounded time (kExitWaitMs): a task stuck
  // in a read that never returns is left behind, it can no longer reach this object.
  ~DocumentLoader() override;

  // One task at a time: starting one cancels the one running and drops its result. The
  // new one starts once the cancelled one has ended, or after kSupersededWaitMs if that one
  // is stuck (in a read that never returns): a stuck load never holds up the next.
  // `model` may be null (the tokens are then counted later with count_tokens).
  // conversation_id: where it is attached (0: none), recorded when the document is stored
  // for the first time.
  void load_file(const QString& path, qint64 conversation_id, std::shared_ptr<const Model> model);
  void load_text(const QString& text, qint64 conversation_id, std::shared_ptr<const Model> model);
  // Counts a stored document's tokens with another model.
  void count_tokens(qint64 document_id, std::shared_ptr<const Model> model);
  // Asks the running task to stop; it ends with failed("cancelled") when it notices.
  void cancel();
  // Cancels the running task and drops it now, whether or not it ever ends: busy() is false
  // and failed("cancelled") is emitted before this returns (nothing when none runs).
  void abandon();
  bool busy() const { return watcher_ != nullptr; }

  static constexpr int kSupersededWaitMs = 500;
  static constexpr int kExitWaitMs = 3000;
  // Loads stuck at once beyond which a new one waits for a thread.
  static constexpr int kMaxThreads = 4;

  // Tests only: called on the loading thread with the path before a file is read (a hook
  // that blocks stands for a read that never returns).
  void set_before_read_for_testing(std::function<void(const QString& path)> hook) {
    before_read_ = std::move(hook);
  }

 signals:
  // stage: "reading" (bytes of the file; a PDF: pages), "counting tokens" (bytes of text).
  void progress(qint64 done, qint64 total, const QString& stage);
  // document_map() + "inserted" (false: the same content was stored before).
  void finished(const QVariantMap& document);
  void failed(const QString& message);

 public:
  struct Outcome {
    std::optional<StoredDocument> document;
    bool inserted = false;
    QString error;  // when !document
  };
  // Shared by this loader and its tasks: where their progress goes (null once the loader
  // is gone), and whether each task has ended.
  struct Link;
  struct TaskEnd;

 private:
  using Task = std::function<Outcome(const LoadProgress& reading, const LoadProgress& counting)>;
  // A superseded task is cancelled; its result is dropped (generation_).
  void start(Task task);
  QString database_path_;
  // Heap-held: left behind (never destroyed) when a stuck task outlives the loader.
  QThreadPool* pool_;
  std::shared_ptr<Link> link_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::shared_ptr<TaskEnd> last_end_;  // the running (or last) task's
  QFutureWatcher<Outcome>* watcher_ = nullptr;
  quint64 generation_ = 0;
  std::function<void(const QString&)> before_read_;
};

}  // namespace kvchat::app
