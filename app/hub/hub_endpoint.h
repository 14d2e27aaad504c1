// Where the Hugging Face Hub is: the app's setting when set, else the HF_ENDPOINT
// environment variable (as the Hub's own tools read it), else https://huggingface.co.
// https anywhere; plain http only for a loopback host (a local mirror or the tests'
// fake Hub); any other value is refused with the reason rather than silently replaced.
#pragma once

#include <QString>
#include <QUrl>

namespace kvchat::hub {

inline constexpr char kDefaultHubEndpoint[] = "https://huggingface.co";
// The settings keys the app keeps the endpoint and the access token under.
inline constexpr char kHubEndpointSetting[] = "hub/endpoint";
inline constexpr char kHubTokenSetting[] = "hub/token";

class HubEndpoint {
 public:
  // `setting`: the app's setting ("" = not set); `env`: the value of HF_ENDPOINT ("" =
  // not set).
  static HubEndpoint choose(const QString& setting, const QString& env);
  // choose(setting, the process's HF_ENDPOINT).
  static HubEndpoint from_setting(const QString& setting);

  bool ok() const { return error_.isEmpty(); }
  // Why the configured value was refused (translated); empty when ok().
  const QString& error() const { return error_; }
  // "setting", "HF_ENDPOINT" or "default": where base() came from.
  const QString& source() const { return source_; }
  // The base URL without a trailing '/', e.g. https://huggingface.co or
  // http://127.0.0.1:8080/mirror.
  const QUrl& base() const { return base_; }

  // {base}/api/models?search=QUERY&filter=gguf&limit=LIMIT (sorted by downloads).
  QUrl search_url(const QString& query, int limit) const;
  // {base}/api/models/{repo}/tree/main
  QUrl tree_url(const QString& repo) const;
  // {base}/{repo}/resolve/main/{file} (file may contain '/': each part percent-encoded)
  QUrl resolve_url(const QString& repo, const QString& file) const;

 private:
  QUrl join(const QString& path) const;
  QUrl base_;
  QString error_;
  QString source_;
};

// localhost, 127.0.0.0/8, ::1.
bool is_loopback_host(const QString& host);
// Whether a URL may be fetched: https, or http to a loopback host.
bool is_allowed_url(const QUrl& url);
// Whether `url` is on the origin `origin` (scheme, host without case, port with the
// scheme's default: https 443, http 80), the only place the access token may go. A URL
// with user info never is: its credentials would compete with the token's, and
// "user@host" is a classic way to dress one host as another.
bool same_origin(const QUrl& url, const QUrl& origin);

}  // namespace kvchat::hub
