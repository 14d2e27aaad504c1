#include "hub/hub_client.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "hub/names.h"

namespace kvchat::hub {

namespace {

HubError bad_json(const QString& what) {
  return HubError::make(
      HubError::Kind::BadResponse,
      QCoreApplication::translate("HubClient", "The Hub's answer for %1 is not the JSON expected.")
          .arg(what));
}

// Runs `done` when `request` finishes (unless `context` is gone), then deletes it.
template <class Done>
void when_finished(HubRequest* request, QObject* context, Done done) {
  QPointer<QObject> guard(context);
  QObject::connect(request, &HubRequest::finished, request,
                   [request, guard, has_context = context != nullptr, done = std::move(done)] {
                     request->deleteLater();
                     if (has_context && !guard) return;
                     done(*request);
                   });
}

// The Hub's answers are JSON arrays; anything else is a BadResponse.
bool parse_json_array(const QByteArray& json, QJsonArray* items, HubError* error) {
  QJsonParseError parse_error;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parse_error);
  if (parse_error.error != QJsonParseError::NoError || !doc.isArray()) {
    *error = HubError::make(HubError::Kind::BadResponse, parse_error.errorString());
    return false;
  }
  *items = doc.array();
  return true;
}

}  // namespace

QList<HubFile> HubFileList::gguf_files() const {
  QList<HubFile> out;
  for (const HubFile& f : files) {
    if (f.is_gguf()) out.push_back(f);
  }
  return out;
}

HubClient::HubClient(QObject* parent)
    : QObject(parent), network_(new QNetworkAccessManager(this)) {}

HubClient::HubClient(QNetworkAccessManager* network, QObject* parent)
    : QObject(parent), network_(network) {}

void HubClient::set_timeouts(int total_ms, int stall_ms) {
  total_timeout_ms_ = total_ms;
  stall_timeout_ms_ = stall_ms;
}

HubRequestOptions HubClient::request_options(const QString& what) const {
  HubRequestOptions o;
  o.token_origin = endpoint_.base();
  o.token = token_;
  o.total_timeout_ms = total_timeout_ms_;
  o.stall_timeout_ms = stall_timeout_ms_;
  o.max_retry_after_s = max_retry_after_s_;
  o.what = what;
  return o;
}

HubRequest* HubClient::get(const QUrl& url, HubRequestOptions options, QObject* parent) {
  return new HubRequest(network_, url, std::move(options), parent ? parent : this);
}

void HubClient::search(const QString& query, int limit, QObject* context,
                       std::function<void(const HubSearchResult&)> done) {
  const QString what = QCoreApplication::translate("HubClient", "the search for \"%1\"").arg(query);
  if (!endpoint_.ok()) {
    HubSearchResult r;
    r.query = query;
    r.error = HubError::make(HubError::Kind::Refused, endpoint_.error());
    QMetaObject::invokeMethod(
        context ? context : this, [r, done] { done(r); }, Qt::QueuedConnection);
    return;
  }
  HubRequest* request = get(endpoint_.search_url(query, limit), request_options(what));
  when_finished(request, context, [query, what, done](const HubRequest& req) {
    HubSearchResult r;
    if (req.error().ok()) {
      r = parse_search_json(req.body());
      if (!r.error.ok()) r.error = bad_json(what);
    } else {
      r.error = req.error();
    }
    r.query = query;
    done(r);
  });
}

void HubClient::list_files(const QString& repo, QObject* context,
                           std::function<void(const HubFileList&)> done) {
  HubFileList early;
  early.repo = repo;
  if (const QString why = repo_id_problem(repo); !why.isEmpty()) {
    early.error = HubError::make(HubError::Kind::Refused, why);
  } else if (!endpoint_.ok()) {
    early.error = HubError::make(HubError::Kind::Refused, endpoint_.error());
  }
  if (!early.error.ok()) {
    QMetaObject::invokeMethod(
        context ? context : this, [early, done] { done(early); }, Qt::QueuedConnection);
    return;
  }
  HubRequest* request = get(endpoint_.tree_url(repo), request_options(repo));
  when_finished(request, context, [repo, done](const HubRequest& req) {
    HubFileList r;
    if (req.error().ok()) {
      r = parse_tree_json(req.body());
      if (!r.error.ok()) r.error = bad_json(repo);
    } else {
      r.error = req.error();
    }
    r.repo = repo;
    done(r);
  });
}

HubSearchResult parse_search_json(const QByteArray& json) {
  HubSearchResult r;
  QJsonArray items;
  if (!parse_json_array(json, &items, &r.error)) return r;
  for (const QJsonValue& v : items) {
    const QJsonObject o = v.toObject();
    HubModel m;
    m.id = o.value(QLatin1String("id")).toString(o.value(QLatin1String("modelId")).toString());
    if (const QString why = repo_id_problem(m.id); !why.isEmpty()) {
      r.rejected.push_back(m.id.left(kMaxRepoIdLength) + QStringLiteral(": ") + why);
      continue;
    }
    m.downloads = std::max<qint64>(0, o.value(QLatin1String("downloads")).toInteger());
    m.likes = std::max<qint64>(0, o.value(QLatin1String("likes")).toInteger());
    const QJsonValue gated = o.value(QLatin1String("gated"));
    m.gated = gated.isString() || (gated.isBool() && gated.toBool());
    m.last_modified = o.value(QLatin1String("lastModified")).toString().left(64);
    for (const QJsonValue& t : o.value(QLatin1String("tags")).toArray()) {
      if (t.isString() && m.tags.size() < 100) m.tags.push_back(t.toString().left(100));
    }
    r.models.push_back(m);
  }
  return r;
}

HubFileList parse_tree_json(const QByteArray& json) {
  HubFileList r;
  QJsonArray items;
  if (!parse_json_array(json, &items, &r.error)) return r;
  for (const QJsonValue& v : items) {
    const QJsonObject o = v.toObject();
    if (o.value(QLatin1String("type")).toString() != QLatin1String("file")) continue;
    HubFile f;
    f.path = o.value(QLatin1String("path")).toString();
    const QString shown = f.path.left(kMaxFilePathLength);
    if (const QString why = file_path_problem(f.path); !why.isEmpty()) {
      r.rejected.push_back(shown + QStringLiteral(": ") + why);
      continue;
    }
    const QJsonValue size = o.value(QLatin1String("size"));
    f.size = size.isDouble() ? size.toInteger(-1) : -1;
    const QJsonObject lfs = o.value(QLatin1String("lfs")).toObject();
    if (!lfs.isEmpty()) {
      f.sha256 = lfs.value(QLatin1String("oid")).toString();
      const QJsonValue lfs_size = lfs.value(QLatin1String("size"));
      if (lfs_size.isDouble()) f.size = lfs_size.toInteger(-1);
      if (const QString why = sha256_problem(f.sha256); !why.isEmpty()) {
        r.rejected.push_back(shown + QStringLiteral(": ") + why);
        continue;
      }
    }
    if (const QString why = file_size_problem(f.size); !why.isEmpty()) {
      r.rejected.push_back(shown + QStringLiteral(": ") + why);
      continue;
    }
    r.files.push_back(f);
  }
  return r;
}

}  // namespace kvchat::hub
