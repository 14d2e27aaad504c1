#include "hub/remote_header.h"

#include <QCoreApplication>
#include <QPointer>
#include <algorithm>

#include "hub/names.h"
#include "util/byte_size.h"

namespace kvchat::hub {

namespace {

// One fetch: the bytes read so far and the next range. Deletes itself when done.
class HeaderJob : public QObject {
 public:
  HeaderJob(HubClient* client, QUrl url, QString what, qint64 first, qint64 cap,
            RemoteHeaderResult result, QObject* context,
            std::function<void(const RemoteHeaderResult&)> done)
      : QObject(client),
        client_(client),
        url_(std::move(url)),
        what_(std::move(what)),
        cap_(cap),
        result_(std::move(result)),
        context_(context),
        has_context_(context != nullptr),
        done_(std::move(done)) {
    request_range(0, first);
  }

 private:
  // Asks for bytes [from, to) of the file.
  void request_range(qint64 from, qint64 to) {
    from_ = from;
    to_ = to;
    HubRequestOptions o = client_->request_options(what_);
    o.stream = true;
    o.total_timeout_ms = std::max(o.total_timeout_ms, 120000);  // up to 63 MiB
    o.headers.push_back(
        {"Range", "bytes=" + QByteArray::number(from) + "-" + QByteArray::number(to - 1)});
    request_ = client_->get(url_, o, this);
    result_.requests += 1;
    connect(request_, &HubRequest::responseStarted, this,
            [this](int status) { on_response(status); });
    connect(request_, &HubRequest::dataReceived, this, [this](const QByteArray& b) { on_data(b); });
    connect(request_, &HubRequest::finished, this, [this] { on_finished(); });
  }

  void on_response(int status) {
    if (status == 206) {
      // Content-Range: bytes FROM-END/TOTAL; the range must start where asked.
      const QByteArray range = request_->header("Content-Range");
      const qint64 start =
          range.startsWith("bytes ") ? range.mid(6, range.indexOf('-') - 6).toLongLong() : -1;
      if (start != from_) {
        fail(HubError::make(
            HubError::Kind::BadResponse,
            QCoreApplication::translate("RemoteHeader",
                                        "The server sent another byte range than asked for %1.")
                .arg(what_)));
        return;
      }
    } else if (status == 200) {
      buffer_.clear();  // the server ignored Range: the whole file from its start
      from_ = 0;
    }
    if (status == 200 || status == 206) file_size_ = request_->total_size();
  }

  void on_data(const QByteArray& bytes) {
    if (finished_) return;
    result_.bytes_read += bytes.size();
    const qint64 room = to_ - static_cast<qint64>(buffer_.size());
    buffer_.append(bytes.left(std::max<qint64>(0, room)));
    if (static_cast<qint64>(buffer_.size()) >= to_) {
      enough_ = true;
      request_->abort();  // a server that ignored Range: the rest is not needed
    }
  }

  // A range ended: whole, cut off midway (an error, or fewer bytes than asked for), or
  // refused. What arrived is inspected even when cut off: the header may be whole.
  void on_finished() {
    if (finished_) return;
    HubRequest* r = request_;
    r->deleteLater();
    HubError cut;  // why the range stopped short, when it did
    if (!r->error().ok() && !(enough_ && r->error().kind == HubError::Kind::Cancelled)) {
      if (r->error().kind != HubError::Kind::Interrupted) {
        fail(r->error());
        return;
      }
      cut = r->error();
    }
    enough_ = false;
    url_ = r->final_url();  // the next range straight from where the Hub redirected
    if (file_size_ < 0) {
      if (!cut.ok()) {
        resume_or_fail(std::move(cut));  // broke off before the answer said the size
        return;
      }
      fail(HubError::make(
          HubError::Kind::BadResponse,
          QCoreApplication::translate("RemoteHeader", "The server did not say how large %1 is.")
              .arg(what_)));
      return;
    }
    if (const QString why = file_size_problem(file_size_); !why.isEmpty()) {
      fail(HubError::make(HubError::Kind::BadResponse, what_ + QStringLiteral(": ") + why));
      return;
    }
    result_.file_size = file_size_;
    const qint64 have = std::min<qint64>(buffer_.size(), file_size_);
    const bool short_range = have < std::min(to_, file_size_);
    if (short_range && cut.ok()) {
      cut = HubError::make(
          HubError::Kind::Interrupted,
          QCoreApplication::translate("RemoteHeader", "The server sent %1 of %2 bytes of %3.")
              .arg(have - from_)
              .arg(std::min(to_, file_size_) - from_)
              .arg(what_));
    }
    if (have == 0) {
      resume_or_fail(std::move(cut));
      return;
    }
    auto inspection = kvchat::inspect_gguf_prefix(
        {reinterpret_cast<const uint8_t*>(buffer_.constData()), static_cast<size_t>(have)},
        static_cast<uint64_t>(file_size_));
    if (!inspection) {
      fail(HubError::make(
          HubError::Kind::BadResponse,
          QCoreApplication::translate("RemoteHeader", "%1 is not a GGUF kvchat can read: %2")
              .arg(what_, QString::fromStdString(inspection.message()))));
      return;
    }
    if (inspection->bytes_needed == 0) {  // the whole header, even if the range was cut
      result_.inspection = std::move(inspection.value());
      finish();
      return;
    }
    if (short_range) {
      resume_or_fail(std::move(cut));
      return;
    }
    const qint64 next = std::min<qint64>(
        file_size_, std::max<qint64>(static_cast<qint64>(inspection->bytes_needed), 2 * have));
    if (next > cap_) {
      fail(HubError::make(
          HubError::Kind::BadResponse,
          QCoreApplication::translate(
              "RemoteHeader", "The GGUF header of %1 is larger than %2: kvchat does not read it.")
              .arg(what_, util::format_bytes(double(cap_)))));
      return;
    }
    request_range(have, next);
  }

  // The range was cut off (`cut` says how) before the header was whole: asks for the
  // rest of it from the byte where it stopped, at most RemoteHeader::kMaxResumes times
  // in this fetch; then fails saying how often it broke off and how much had arrived.
  void resume_or_fail(HubError cut) {
    const qint64 have = static_cast<qint64>(buffer_.size());
    if (result_.resumes < RemoteHeader::kMaxResumes) {
      result_.resumes += 1;
      request_range(have, to_);
      return;
    }
    cut.message = QCoreApplication::translate(
                      "RemoteHeader",
                      "The connection broke off %1 times while reading the header of %2 "
                      "(%3 of the %4 bytes asked for had arrived): giving up; try again later. "
                      "The last time: %5")
                      .arg(result_.resumes + 1)
                      .arg(what_)
                      .arg(have)
                      .arg(to_)
                      .arg(cut.message);
    fail(std::move(cut));
  }

  void fail(HubError error) {
    result_.error = std::move(error);
    finish();
  }

  void finish() {
    if (finished_) return;
    finished_ = true;
    if (request_ && !request_->is_finished()) request_->abort();
    if (!has_context_ || context_) done_(result_);
    deleteLater();
  }

  HubClient* client_;
  QUrl url_;
  QString what_;
  qint64 cap_;
  RemoteHeaderResult result_;
  QPointer<QObject> context_;
  bool has_context_;
  std::function<void(const RemoteHeaderResult&)> done_;
  QPointer<HubRequest> request_;
  QByteArray buffer_;
  qint64 from_ = 0, to_ = 0;
  qint64 file_size_ = -1;
  bool enough_ = false;
  bool finished_ = false;
};

}  // namespace

RemoteHeader::RemoteHeader(HubClient* client, QObject* parent) : QObject(parent), client_(client) {}

void RemoteHeader::set_limits(qint64 first_range_bytes, qint64 max_header_bytes) {
  first_range_bytes_ = std::max<qint64>(1, first_range_bytes);
  max_header_bytes_ = std::max(first_range_bytes_, max_header_bytes);
}

void RemoteHeader::fetch(const QString& repo, const QString& file, QObject* context,
                         std::function<void(const RemoteHeaderResult&)> done) {
  RemoteHeaderResult early;
  early.repo = repo;
  early.file = file;
  QString why = repo_id_problem(repo);
  if (why.isEmpty()) why = file_path_problem(file);
  if (why.isEmpty() && !client_->endpoint().ok()) why = client_->endpoint().error();
  if (!why.isEmpty()) {
    early.error = HubError::make(HubError::Kind::Refused, why);
    QMetaObject::invokeMethod(
        context ? context : this, [early, done] { done(early); }, Qt::QueuedConnection);
    return;
  }
  new HeaderJob(client_, client_->endpoint().resolve_url(repo, file), repo + u'/' + file,
                first_range_bytes_, max_header_bytes_, early, context, std::move(done));
}

void RemoteHeader::fetch_url(const QUrl& url, const QString& what, QObject* context,
                             std::function<void(const RemoteHeaderResult&)> done) {
  new HeaderJob(client_, url, what, first_range_bytes_, max_header_bytes_, RemoteHeaderResult{},
                context, std::move(done));
}

}  // namespace kvchat::hub
