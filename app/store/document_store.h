// DocumentStore: long documents and their summary jobs, in the same SQLite file as the
// conversations (schema version 2, store/schema.cpp). A document is stored once per
// content: its sha256 (of the extracted UTF-8 text) is UNIQUE. A summary job's partial
// summaries are written one row per transaction as they arrive, keyed (job, level, idx),
// so a cancelled or crashed job resumes with what is there and never duplicates a row.
//
// Threads: QtSql connections belong to the thread that opened them. On the GUI thread a
// DocumentStore shares ConversationStore's connection; another thread (the loader, the
// engine worker) opens its own with DocumentStore::open and drops it on that thread.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QVariantMap>
#include <QVector>
#include <memory>
#include <optional>

namespace kvchat::app {

class ConversationStore;

struct StoredDocument {
  qint64 id = 0;
  qint64 conversation_id = 0;  // where it was first attached (0: none)
  QString name;                // file name, or "Pasted text"
  QString mime;                // "text/plain", "text/markdown", "application/pdf"
  qint64 bytes = 0;            // of the file as read (pasted text: its UTF-8 bytes)
  QString sha256;              // hex, of the extracted UTF-8 text
  QString encoding;            // "utf-8", "utf-16le", "utf-16be", "latin-1"
  QString notice;              // for the user when the encoding was a guess; else empty
  qint64 n_tokens = 0;         // with the model tokens_model names
  QString tokens_model;        // ModelInfo::identity (hex); empty: not counted yet
  qint64 text_bytes = 0;       // UTF-8 bytes of the stored text
  QDateTime created;
};

enum class JobStatus { Running, Cancelled, Done, Failed };
QString job_status_name(JobStatus s);  // "running", "cancelled", "done", "failed"

struct StoredSummaryJob {
  qint64 id = 0;
  qint64 document_id = 0;
  qint64 conversation_id = 0;
  QVariantMap options;  // SummarizeOptions (documents/summary_job.h converts)
  QVariantMap plan;     // SummaryPlan as planned when the job was created
  JobStatus status = JobStatus::Running;
  QString final_summary;
  QString error;
  int partials = 0;  // rows in summary_partials
  QDateTime created;
  QDateTime updated;
};

struct StoredPartial {
  int level = 0;
  int index = 0;
  qint64 token_begin = 0, token_end = 0;
  int source_begin = 0, source_end = 0;
  QString text;
  qint64 written_at = 0;  // ms since the epoch, of the last write of this row
};

class DocumentStore {
 public:
  // Shares `store`'s connection: use on the thread that opened `store`, while it lives.
  explicit DocumentStore(const ConversationStore& store);
  // Opens a connection of its own (ConversationStore::open: migrations, WAL, refusals),
  // for use on the calling thread only.
  static std::unique_ptr<DocumentStore> open(const QString& path, QString* error);
  ~DocumentStore();
  DocumentStore(const DocumentStore&) = delete;
  DocumentStore& operator=(const DocumentStore&) = delete;

  // Stores the document with its UTF-8 text unless one with the same sha256 exists;
  // returns the id either way (*inserted says which), 0 with *error on failure. The text
  // is bound as bytes (no UTF-16 copy) and stored as TEXT.
  qint64 add_document(const StoredDocument& meta, const QByteArray& utf8_text, bool* inserted,
                      QString* error);
  std::optional<StoredDocument> document(qint64 id) const;
  std::optional<StoredDocument> document_by_hash(const QString& sha256) const;
  // The stored text, UTF-8; empty when there is no such document.
  QByteArray document_text(qint64 id) const;
  bool set_token_count(qint64 id, qint64 n_tokens, const QString& tokens_model, QString* error);
  int document_count() const;

  // A job in status running; 0 with *error on failure.
  qint64 create_job(qint64 document_id, qint64 conversation_id, const QVariantMap& options,
                    const QVariantMap& plan, QString* error);
  // Status, and for done the final summary, for failed the error text.
  bool set_job_status(qint64 job_id, JobStatus status, const QString& final_summary,
                      const QString& error_text, QString* error);
  // The plan as the job measured it (its counting pass), replacing the estimate.
  bool set_job_plan(qint64 job_id, const QVariantMap& plan, QString* error);
  std::optional<StoredSummaryJob> job(qint64 id) const;
  // Jobs that can be resumed (cancelled, failed, or running: left so by a crash; the
  // caller knows whether one is really running), newest first. conversation_id 0: all.
  QVector<StoredSummaryJob> resumable_jobs(qint64 conversation_id) const;

  // One partial summary, in its own transaction; writing (job, level, idx) again
  // replaces that row (never a second one).
  bool save_partial(qint64 job_id, const StoredPartial& partial, QString* error);
  // In (level, idx) order.
  QVector<StoredPartial> partials(qint64 job_id) const;

 private:
  DocumentStore(QString connection, std::unique_ptr<ConversationStore> owned);
  QString connection_;
  std::unique_ptr<ConversationStore> owned_;  // when opened with open()
};

}  // namespace kvchat::app
