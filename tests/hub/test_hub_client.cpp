// The Hub endpoint, name validation and HubClient (search, file tree, errors, the token's
// path) against the fake Hub on 127.0.0.1; sizes and hashes checked against the files.
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QTcpServer>
#include <QtTest>
#include <sys/resource.h>
#include <unistd.h>

#include "hub/hub_client.h"
#include "hub/names.h"
#include "hub/fake_hub_process.h"

using namespace kvchat::hub;
using kvchat::test::FakeHubProcess;
using kvchat::test::kFakeHubToken;
using kvchat::test::shared_model;

namespace {

QString sha256_of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash h(QCryptographicHash::Sha256);
  h.addData(&f);
  return QString::fromLatin1(h.result().toHex());
}

// This process's peak resident memory so far, and its resident memory now (bytes).
qint64 peak_rss() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return qint64(usage.ru_maxrss) * 1024;
}
qint64 current_rss() {
  QFile statm("/proc/self/statm");
  if (!statm.open(QIODevice::ReadOnly)) return -1;
  const QList<QByteArray> fields = statm.readAll().split(' ');
  return fields.size() > 1 ? fields[1].toLongLong() * sysconf(_SC_PAGESIZE) : -1;
}

// What a JSON answer may grow this process by: the cap kept, plus room for Qt's buffers
// and the allocator (an unbounded read of the endless answers takes gigabytes).
constexpr qint64 kJsonCap = qint64(16) << 20;
constexpr qint64 kAllowedGrowth = kJsonCap + (qint64(64) << 20);

// Requests whose path starts with `prefix`, as the fake Hub logged them.
QJsonArray requests_to(const FakeHubProcess& hub, const QString& prefix) {
  QJsonArray out;
  for (const QJsonValue& v : hub.requests()) {
    if (v.toObject().value("path").toString().startsWith(prefix)) out.push_back(v);
  }
  return out;
}

}  // namespace

class HubClientTest : public QObject {
  Q_OBJECT
 private:
  FakeHubProcess hub_;

  HubClient* client(const QUrl& base, const QString& token = {}) {
    auto* c = new HubClient(this);
    c->set_endpoint(HubEndpoint::choose(base.toString(), {}));
    c->set_token(token);
    c->set_timeouts(20000, 15000);
    return c;
  }
  HubSearchResult search(HubClient* c, const QString& q) {
    HubSearchResult out;
    bool done = false;
    c->search(q, 50, this, [&](const HubSearchResult& r) { out = r, done = true; });
    if (!QTest::qWaitFor([&] { return done; }, 30000)) out.error.message = "no answer";
    return out;
  }
  HubFileList files(HubClient* c, const QString& repo) {
    HubFileList out;
    bool done = false;
    c->list_files(repo, this, [&](const HubFileList& r) { out = r, done = true; });
    if (!QTest::qWaitFor([&] { return done; }, 30000)) out.error.message = "no answer";
    return out;
  }
  // A GET through the client's request path (redirects, token, timeouts, 429).
  HubRequest* get(HubClient* c, const QUrl& url, int total_ms = 20000) {
    HubRequestOptions o = c->request_options("test");
    o.total_timeout_ms = total_ms;
    HubRequest* r = c->get(url, o);
    (void)QTest::qWaitFor([&] { return r->is_finished(); }, 60000);
    return r;
  }

 private slots:
  void initTestCase() { QVERIFY2(hub_.start(), qPrintable(hub_.error())); }

  // Issue 24 point 2, first while this process is small (ru_maxrss is a peak): an endless
  // chunked answer, sent as fast as it is read, is cut at the 16 MiB cap; the request
  // fails at once with the cap in its message, and memory grows by no more than the cap.
  void endlessSearchStopsAtItsCap() {
    const qint64 before = current_rss();
    QVERIFY(before > 0);
    QVERIFY2(peak_rss() < before + kAllowedGrowth,
             "the process was already large: this test would prove nothing");
    QElapsedTimer clock;
    clock.start();
    const HubSearchResult r = search(client(hub_.url()), "endless");
    const qint64 ms = clock.elapsed();
    const qint64 growth = peak_rss() - before;
    qInfo("resident memory grew by %lld MiB in %lld ms", growth >> 20, ms);
    QVERIFY2(growth < kAllowedGrowth, qPrintable(QString("grew by %1 MiB").arg(growth >> 20)));
    QVERIFY2(ms < 10000, qPrintable(QString("%1 ms").arg(ms)));  // not the 20 s timeout
    QCOMPARE(r.error.kind, HubError::Kind::BadResponse);
    QVERIFY2(
        r.error.message.contains("16777216 bytes") && r.error.message.contains("stopped reading"),
        qPrintable(r.error.message));
    QVERIFY(r.models.isEmpty());
  }

  void endlessFileTreeStopsAtItsCap() {
    const qint64 before = current_rss();
    const HubFileList list = files(client(hub_.url()), "kvchat/endless-GGUF");
    const qint64 growth = peak_rss() - before;
    qInfo("resident memory grew by %lld MiB", growth >> 20);
    QVERIFY2(growth < kAllowedGrowth, qPrintable(QString("grew by %1 MiB").arg(growth >> 20)));
    QCOMPARE(list.error.kind, HubError::Kind::BadResponse);
    QVERIFY2(list.error.message.contains("kvchat/endless-GGUF") &&
                 list.error.message.contains("16777216 bytes"),
             qPrintable(list.error.message));
  }

  // A Content-Length over the cap is refused before the body: at once, not when the
  // server (which sends one byte, then waits 5 s) gives up.
  void announcedLengthOverTheCapIsRefusedAtOnce() {
    QElapsedTimer clock;
    clock.start();
    const HubSearchResult r = search(client(hub_.url()), "huge-length");
    QCOMPARE(r.error.kind, HubError::Kind::BadResponse);
    QVERIFY2(r.error.message.contains("16777216 bytes") &&
                 r.error.message.contains("announced 1000000000000 bytes"),
             qPrintable(r.error.message));
    QVERIFY2(clock.elapsed() < 4000, qPrintable(QString("%1 ms").arg(clock.elapsed())));
  }

  void endpointChoice() {
    QCOMPARE(HubEndpoint::choose({}, {}).base().toString(), QString("https://huggingface.co"));
    QCOMPARE(HubEndpoint::choose({}, {}).source(), QString("default"));
    const HubEndpoint env = HubEndpoint::choose({}, "https://mirror.example.org/hf/");
    QVERIFY(env.ok());
    QCOMPARE(env.source(), QString("HF_ENDPOINT"));
    QCOMPARE(env.resolve_url("a/b", "sub dir/x.gguf").toString(QUrl::FullyEncoded),
             QString("https://mirror.example.org/hf/a/b/resolve/main/sub%20dir/x.gguf"));
    QCOMPARE(env.tree_url("a/b").toString(),
             QString("https://mirror.example.org/hf/api/models/a/b/tree/main"));
    const HubEndpoint setting =
        HubEndpoint::choose("http://127.0.0.1:8080", "https://mirror.example.org");
    QVERIFY(setting.ok());
    QCOMPARE(setting.source(), QString("setting"));
    QCOMPARE(setting.base().port(), 8080);
    QVERIFY(HubEndpoint::choose("http://localhost:1", {}).ok());
    QVERIFY(HubEndpoint::choose("http://[::1]:1", {}).ok());
    const HubEndpoint plain = HubEndpoint::choose("http://huggingface.co", {});
    QVERIFY(!plain.ok());
    QVERIFY(plain.error().contains("https"));
    QVERIFY(!HubEndpoint::choose({}, "http://192.168.1.2").ok());
    QVERIFY(!HubEndpoint::choose("ftp://127.0.0.1", {}).ok());
    QVERIFY(!HubEndpoint::choose("https://user:pw@hf.co", {}).ok());
    QVERIFY(!HubEndpoint::choose("not a url", {}).ok());
    const QUrl search = env.search_url("llama 3&x=y+z", 5);
    QCOMPARE(QUrlQuery(search).queryItemValue("search", QUrl::FullyDecoded),
             QString("llama 3&x=y+z"));
    QCOMPARE(QUrlQuery(search).queryItemValue("filter"), QString("gguf"));
    QVERIFY(is_loopback_host("127.0.0.9"));
    QVERIFY(!is_loopback_host("127.example.com"));
  }

  // Issue 24 point 3: the one origin test the token's two paths (HubRequest, the
  // downloads) share.
  void tokenOriginIsSchemeHostAndPort() {
    const QUrl hub("https://huggingface.co");
    QVERIFY(same_origin(QUrl("https://huggingface.co/a/b?x=1"), hub));
    QVERIFY(same_origin(QUrl("https://HuggingFace.CO:443/a"), hub));    // case, default port
    QVERIFY(!same_origin(QUrl("http://huggingface.co/a"), hub));        // https -> http
    QVERIFY(!same_origin(QUrl("http://huggingface.co:443/a"), hub));    // scheme, same port
    QVERIFY(!same_origin(QUrl("https://huggingface.co:8443/a"), hub));  // another port
    QVERIFY(!same_origin(QUrl("https://user@huggingface.co/a"), hub));  // user info
    QVERIFY(!same_origin(QUrl("https://huggingface.co@evil.example/a"), hub));
    QVERIFY(!same_origin(QUrl("https://cdn-lfs.huggingface.co/a"), hub));
    QVERIFY(!same_origin(QUrl("https://huggingface.co.evil.example/a"), hub));
    const QUrl local("http://127.0.0.1:8080");
    QVERIFY(same_origin(QUrl("http://127.0.0.1:8080/x"), local));
    QVERIFY(!same_origin(QUrl("http://127.0.0.1:8081/x"), local));
    QVERIFY(!same_origin(QUrl("http://127.0.0.1/x"), local));  // port 80
    QVERIFY(!same_origin(QUrl("https://127.0.0.1:8080/x"), local));
    QVERIFY(!same_origin(QUrl("http://localhost:8080/x"), local));  // another name
    QVERIFY(!same_origin(QUrl("http://user@127.0.0.1:8080/x"), local));
    QVERIFY(!same_origin(QUrl("http://2130706433:8081/x"), local));  // 127.0.0.1, decimal
    // QUrl writes a decimal IPv4 host in dotted form: on the same port it is this origin.
    QCOMPARE(QUrl("http://2130706433:8080/x").host(), QString("127.0.0.1"));
    QVERIFY(same_origin(QUrl("http://2130706433:8080/x"), local));
    QVERIFY(same_origin(QUrl("http://localhost:80/x"), QUrl("http://localhost")));
    QVERIFY(!same_origin(QUrl(), local));
  }

  void namesAreValidated() {
    QVERIFY(valid_repo_id("bartowski/Llama-3.2-1B-Instruct-GGUF"));
    QVERIFY(valid_repo_id("Qwen/Qwen2.5-0.5B-Instruct-GGUF"));
    for (const char* bad : {"", "noslash", "a/b/c", "/b", "a/", "../b", "a/..", "a/b..c", "a/-b",
                            "a/b--c", "a/b c", "a/b\n", "a/ü"}) {
      QVERIFY2(!valid_repo_id(QString::fromUtf8(bad)), bad);
    }
    QVERIFY(!valid_repo_id(QString(300, 'a') + "/b"));
    QVERIFY(valid_file_path("model-Q4_K_M.gguf"));
    QVERIFY(valid_file_path("Q4_K_M/model-00001-of-00002.gguf"));
    for (const char* bad : {"", "../evil.gguf", "a/../../evil", "/etc/passwd", "a//b", "./a",
                            "a\\b", "C:x", "a\tb", "a\x7f"}) {
      QVERIFY2(!valid_file_path(QString::fromUtf8(bad)), bad);
    }
    QVERIFY(!valid_file_path(QString(256, 'x')));
    QVERIFY(
        !valid_file_path(QString("a") + QChar(0x202e) + "fuggg.exe"));  // right-to-left override
    QVERIFY(file_size_problem(0).isEmpty());
    QVERIFY(!file_size_problem(-1).isEmpty());
    QVERIFY(!file_size_problem(kMaxFileBytes + 1).isEmpty());
    QVERIFY(sha256_problem(QString(64, 'a')).isEmpty());
    QVERIFY(!sha256_problem(QString(64, 'A')).isEmpty());
    QVERIFY(!sha256_problem(QString(63, 'a')).isEmpty());
  }

  void searchListsTheFakeRepos() {
    HubClient* c = client(hub_.url());
    const HubSearchResult kjv = search(c, "kjv");
    QVERIFY2(kjv.error.ok(), qPrintable(kjv.error.message));
    QCOMPARE(kjv.models.size(), 1);
    QCOMPARE(kjv.models[0].id, QString("kvchat/kjv-demo-GGUF"));
    QVERIFY(kjv.models[0].tags.contains("gguf"));
    QVERIFY(kjv.models[0].downloads > 0);
    QVERIFY(!kjv.models[0].gated);
    const HubSearchResult all = search(c, "GGUF");
    QVERIFY(all.error.ok());
    QCOMPARE(all.models.size(), 10);  // every repository of fake_hub.py
    bool gated_seen = false;
    for (const HubModel& m : all.models) gated_seen |= m.id == "kvchat/gated-GGUF" && m.gated;
    QVERIFY(gated_seen);
    QCOMPARE(search(c, "no such model").models.size(), 0);
  }

  void fileTreeHasSizesAndHashes() {
    HubClient* c = client(hub_.url());
    const HubFileList list = files(c, "kvchat/kjv-demo-GGUF");
    QVERIFY2(list.error.ok(), qPrintable(list.error.message));
    QCOMPARE(list.files.size(), 2);
    const QList<HubFile> gguf = list.gguf_files();
    QCOMPARE(gguf.size(), 1);
    QCOMPARE(gguf[0].path, QString("kjv-demo-f16.gguf"));
    QCOMPARE(gguf[0].size, QFileInfo(shared_model("kjv-demo-f16.gguf")).size());
    QCOMPARE(gguf[0].sha256, sha256_of(shared_model("kjv-demo-f16.gguf")));
    for (const HubFile& f : list.files) {
      if (f.path == "README.md") QVERIFY(f.sha256.isEmpty());  // not an LFS file
    }
    const HubFileList stories = files(c, "kvchat/stories260K-GGUF");
    QCOMPARE(stories.files.size(), 1);
    QCOMPARE(stories.files[0].sha256, sha256_of(shared_model("stories260K.gguf")));
  }

  void traversalNamesAreLeftOut() {
    const HubFileList list = files(client(hub_.url()), "kvchat/traversal-GGUF");
    QVERIFY(list.error.ok());
    QCOMPARE(list.files.size(), 1);
    QCOMPARE(list.files[0].path, QString("kjv-demo-f16.gguf"));
    QCOMPARE(list.rejected.size(), 2);
    QVERIFY(list.rejected.join('\n').contains("../../evil.gguf"));
    QVERIFY(list.rejected.join('\n').contains("/etc/evil.gguf"));
  }

  void invalidRepoFailsWithoutARequest() {
    const int before = requests_to(hub_, "/api/").size();
    const HubFileList list = files(client(hub_.url()), "../etc");
    QCOMPARE(list.error.kind, HubError::Kind::Refused);
    QCOMPARE(requests_to(hub_, "/api/").size(), before);
  }

  void notFoundIsSaid() {
    const HubFileList list = files(client(hub_.url()), "kvchat/no-such-repo");
    QCOMPARE(list.error.kind, HubError::Kind::NotFound);
    QCOMPARE(list.error.http_status, 404);
    QVERIFY(list.error.message.contains("kvchat/no-such-repo"));
  }

  void gatedNeedsTheTokenInTheHeaderOnly() {
    const HubFileList without = files(client(hub_.url()), "kvchat/gated-GGUF");
    QCOMPARE(without.error.kind, HubError::Kind::Unauthorized);
    QVERIFY(without.error.message.contains("token"));
    const QString wrong = "wrong-secret-4711";
    const HubFileList refused = files(client(hub_.url(), wrong), "kvchat/gated-GGUF");
    QCOMPARE(refused.error.kind, HubError::Kind::Unauthorized);
    QVERIFY(!refused.error.message.contains(wrong));
    const HubFileList with = files(client(hub_.url(), kFakeHubToken), "kvchat/gated-GGUF");
    QVERIFY2(with.error.ok(), qPrintable(with.error.message));
    QCOMPARE(with.files.size(), 1);
    const QJsonArray seen = requests_to(hub_, "/api/models/kvchat/gated-GGUF");
    QCOMPARE(seen.size(), 3);
    QCOMPARE(seen[0].toObject().value("authorization").toBool(), false);
    QCOMPARE(seen[2].toObject().value("authorization").toBool(), true);
    for (const QJsonValue& v : hub_.requests()) {
      QVERIFY(!v.toObject().value("path").toString().contains(kFakeHubToken));
      QVERIFY(!v.toObject().value("path").toString().contains(wrong));
    }
  }

  void tokenDoesNotFollowARedirectToAnotherOrigin() {
    // The Hub on 127.0.0.1 redirects to a "CDN" on localhost: another origin.
    HubClient* c = client(hub_.url(), kFakeHubToken);
    QUrl url = c->endpoint().resolve_url("kvchat/gated-GGUF", "kjv-demo-f16.gguf");
    url.setQuery(QString("cdn=http://localhost:%1").arg(hub_.port()));
    HubRequestOptions o = c->request_options("gated");
    o.headers.push_back({"Range", "bytes=0-3"});
    HubRequest* r = c->get(url, o);
    QVERIFY(QTest::qWaitFor([&] { return r->is_finished(); }, 30000));
    QVERIFY2(r->error().ok(), qPrintable(r->error().message));
    QCOMPARE(r->status(), 206);
    QCOMPARE(r->body(), QByteArray("GGUF"));
    QCOMPARE(r->redirects(), 1);
    QCOMPARE(r->final_url().host(), QString("localhost"));
    QCOMPARE(r->total_size(), QFileInfo(shared_model("kjv-demo-f16.gguf")).size());
    const QJsonArray resolve = requests_to(hub_, "/kvchat/gated-GGUF/resolve/");
    const QJsonArray cdn = requests_to(hub_, "/cdn/kvchat/gated-GGUF/");
    QCOMPARE(resolve.size(), 1);
    QCOMPARE(cdn.size(), 1);
    QCOMPARE(resolve[0].toObject().value("authorization").toBool(), true);
    QCOMPARE(cdn[0].toObject().value("authorization").toBool(), false);
    QCOMPARE(cdn[0].toObject().value("range").toString(), QString("bytes=0-3"));
  }

  void rateLimitWaitsRetryAfterOnce() {
    HubClient* c = client(hub_.url());
    const HubFileList list = files(c, "kvchat/ratelimit-GGUF");
    QVERIFY2(list.error.ok(), qPrintable(list.error.message));  // 429, waited 1 s, then 200
    QCOMPARE(list.files.size(), 1);
    QCOMPARE(requests_to(hub_, "/api/models/kvchat/ratelimit-GGUF").size(), 2);
    // Always 429: asked twice, then reported with the server's Retry-After.
    QUrl url = c->endpoint().tree_url("kvchat/kjv-demo-GGUF");
    url.setQuery("fault=429always");
    HubRequest* r = get(c, url);
    QCOMPARE(r->error().kind, HubError::Kind::RateLimited);
    QCOMPARE(r->error().retry_after_s, 1);
    QVERIFY(r->error().message.contains("429"));
    QCOMPARE(requests_to(hub_, "/api/models/kvchat/kjv-demo-GGUF/tree/main?fault=429always").size(),
             2);
    // A Retry-After longer than the client waits: reported at once.
    c->set_max_retry_after_s(0);
    url.setQuery("fault=429always&n=2");
    r = get(c, url);
    QCOMPARE(r->error().kind, HubError::Kind::RateLimited);
    QCOMPARE(
        requests_to(hub_, "/api/models/kvchat/kjv-demo-GGUF/tree/main?fault=429always&n=2").size(),
        1);
    QCOMPARE(parse_retry_after("120"), 120);
    QCOMPARE(parse_retry_after("soon"), -1);
  }

  void offlineIsSaidInPlainWords() {
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();  // nothing listens there now
    const HubSearchResult r = search(client(QUrl(QString("http://127.0.0.1:%1").arg(port))), "kjv");
    QCOMPARE(r.error.kind, HubError::Kind::Offline);
    QVERIFY(r.error.message.contains("127.0.0.1"));
  }

  void everyRequestHasATimeout() {
    HubClient* c = client(hub_.url());
    QUrl url = c->endpoint().tree_url("kvchat/kjv-demo-GGUF");
    url.setQuery("fault=hang");
    HubRequest* r = get(c, url, 1000);
    QCOMPARE(r->error().kind, HubError::Kind::Timeout);
  }

  void serverErrorsAndBadJson() {
    HubClient* c = client(hub_.url());
    QUrl url = c->endpoint().tree_url("kvchat/kjv-demo-GGUF");
    url.setQuery("fault=500");
    QCOMPARE(get(c, url)->error().kind, HubError::Kind::Server);
    QVERIFY(!parse_tree_json("{not json").error.ok());
    QVERIFY(!parse_search_json("{\"a\": 1}").error.ok());
    const HubFileList bad = parse_tree_json(
        R"([{"type":"file","path":"x.gguf","size":10,"lfs":{"oid":"ZZ","size":10}},)"
        R"( {"type":"file","path":"y.gguf","size":-5},)"
        R"( {"type":"file","path":"z.gguf","size":2e15},)"
        R"( {"type":"directory","path":"sub"},)"
        R"( {"type":"file","path":"ok.gguf","size":7}])");
    QVERIFY(bad.error.ok());
    QCOMPARE(bad.files.size(), 1);
    QCOMPARE(bad.files[0].path, QString("ok.gguf"));
    QCOMPARE(bad.rejected.size(), 3);
  }

  void refusedEndpointFailsWithoutARequest() {
    auto* c = new HubClient(this);
    c->set_endpoint(HubEndpoint::choose("http://example.com", {}));
    const HubSearchResult r = search(c, "kjv");
    QCOMPARE(r.error.kind, HubError::Kind::Refused);
    QVERIFY(r.error.message.contains("https"));
  }
};

QTEST_GUILESS_MAIN(HubClientTest)
#include "test_hub_client.moc"
