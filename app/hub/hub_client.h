// The Hugging Face Hub's model API, asynchronously on the calling thread's event loop:
// the search for GGUF repositories and a repository's file tree (sizes, LFS SHA-256).
// Every request has a timeout; errors come in plain words (HubError); names from the
// network are validated (hub/names.h) and invalid entries are left out and listed.
// The access token goes in the Authorization header only, to the Hub's own origin.
#pragma once

#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>

#include "hub/hub_endpoint.h"
#include "hub/hub_error.h"
#include "hub/hub_request.h"

namespace kvchat::hub {

struct HubModel {
  QString id;  // "owner/name", validated
  qint64 downloads = 0;
  qint64 likes = 0;
  bool gated = false;     // the Hub asks people to accept terms (a token is needed)
  QString last_modified;  // ISO 8601 as the Hub gives it
  QStringList tags;
};

struct HubSearchResult {
  QString query;
  QList<HubModel> models;  // in the Hub's order (most downloaded first)
  QStringList rejected;    // "<id>: why" for entries left out
  HubError error;
};

struct HubFile {
  QString path;     // inside the repository, validated (no "..", not absolute)
  qint64 size = 0;  // bytes
  QString sha256;   // lfs.oid: the SHA-256 of the content; empty for a non-LFS file
  bool is_gguf() const { return path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive); }
};

struct HubFileList {
  QString repo;
  QList<HubFile> files;  // files only (no folders), in the Hub's order
  QStringList rejected;  // "<path>: why" for entries left out
  HubError error;
  QList<HubFile> gguf_files() const;
};

class HubClient : public QObject {
  Q_OBJECT
 public:
  // With its own network manager (the system proxy honoured).
  explicit HubClient(QObject* parent = nullptr);
  // With the caller's network manager (not owned).
  explicit HubClient(QNetworkAccessManager* network, QObject* parent = nullptr);

  void set_endpoint(const HubEndpoint& endpoint) { endpoint_ = endpoint; }
  const HubEndpoint& endpoint() const { return endpoint_; }
  void set_token(const QString& token) { token_ = token.trimmed(); }
  bool has_token() const { return !token_.isEmpty(); }
  // The whole-request timeout of API calls (default 30 s) and the stall timeout (no
  // byte for this long; default 20 s).
  void set_timeouts(int total_ms, int stall_ms);
  int total_timeout_ms() const { return total_timeout_ms_; }
  int stall_timeout_ms() const { return stall_timeout_ms_; }
  // The longest Retry-After waited for once before a 429 is reported (default 30 s).
  void set_max_retry_after_s(int s) { max_retry_after_s_ = s; }
  QNetworkAccessManager* network() const { return network_; }

  // Options for a request of `what` with this client's token, origin and timeouts (for
  // the other hub classes: the header reader, the downloads).
  HubRequestOptions request_options(const QString& what) const;
  // A started request (parented to `parent`, or to this client).
  HubRequest* get(const QUrl& url, HubRequestOptions options, QObject* parent = nullptr);

  // GGUF repositories whose name contains `query`. `done` runs once on this thread,
  // unless `context` was destroyed first.
  void search(const QString& query, int limit, QObject* context,
              std::function<void(const HubSearchResult&)> done);
  // The files of `repo` (an invalid name fails at once, without a request).
  void list_files(const QString& repo, QObject* context,
                  std::function<void(const HubFileList&)> done);

 private:
  QNetworkAccessManager* network_;
  HubEndpoint endpoint_;
  QString token_;
  int total_timeout_ms_ = 30000;
  int stall_timeout_ms_ = 20000;
  int max_retry_after_s_ = 30;
};

// The JSON bodies, parsed and validated (public for tests).
HubSearchResult parse_search_json(const QByteArray& json);
HubFileList parse_tree_json(const QByteArray& json);

}  // namespace kvchat::hub
