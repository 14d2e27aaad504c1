// RemoteHeader against the fake Hub: the header of a remote GGUF read with Range
// requests (through the Hub's redirect) gives the inspection of the whole local file,
// grows its ranges for a header larger than the first one, stops at its cap, and says
// what is wrong in plain words.
#include <QFileInfo>
#include <QJsonObject>
#include <QtTest>
#include <algorithm>

#include "hub/fake_hub_process.h"
#include "hub/remote_header.h"

using namespace kvchat::hub;
using kvchat::test::FakeHubProcess;
using kvchat::test::kFakeHubToken;
using kvchat::test::shared_model;

namespace {

// The Range headers of the requests the fake Hub saw whose path (percent-decoded, query
// included) starts with `prefix`.
QStringList ranges_to(const FakeHubProcess& hub, const QString& prefix) {
  QStringList out;
  for (const QJsonValue& v : hub.requests()) {
    const QJsonObject o = v.toObject();
    const QString path = QUrl::fromPercentEncoding(o.value("path").toString().toUtf8());
    if (path.startsWith(prefix)) out.push_back(o.value("range").toString());
  }
  return out;
}

// The same, a range repeated in a row counted once: Qt's network layer may send a GET again
// by itself when the server closes a kept-alive connection under it (seen under load), so
// the server can see a range twice in a row, never a new one.
QStringList distinct_ranges(const FakeHubProcess& hub, const QString& prefix) {
  QStringList out = ranges_to(hub, prefix);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

class RemoteHeaderTest : public QObject {
  Q_OBJECT
 private:
  FakeHubProcess hub_;

  RemoteHeaderResult fetch(const QString& repo, const QString& file, const QString& token = {},
                           qint64 cap = RemoteHeader::kMaxHeaderBytes) {
    HubClient client;
    client.set_endpoint(HubEndpoint::choose(hub_.url().toString(), {}));
    client.set_token(token);
    RemoteHeader header(&client);
    header.set_limits(RemoteHeader::kFirstRangeBytes, cap);
    RemoteHeaderResult out;
    bool done = false;
    header.fetch(repo, file, this, [&](const RemoteHeaderResult& r) { out = r, done = true; });
    if (!QTest::qWaitFor([&] { return done; }, 60000)) out.error.message = "no answer";
    return out;
  }

 private slots:
  void initTestCase() { QVERIFY2(hub_.start(), qPrintable(hub_.error())); }

  // The remote header answers as the whole local file: shape, types, verdict, fit.
  void demoModelAsTheLocalFile() {
    const RemoteHeaderResult r = fetch("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf");
    QVERIFY2(r.error.ok(), qPrintable(r.error.message));
    auto local = kvchat::inspect_gguf_file(shared_model("kjv-demo-f16.gguf").toStdString());
    QVERIFY(local);
    const kvchat::GgufInspection& in = r.inspection;
    QCOMPARE(r.file_size, QFileInfo(shared_model("kjv-demo-f16.gguf")).size());
    QCOMPARE(r.requests, 1);
    QCOMPARE(r.bytes_read, RemoteHeader::kFirstRangeBytes);  // not the 5.5 MB of weights
    QVERIFY(in.runnable);
    QCOMPARE(in.architecture, local->architecture);
    QCOMPARE(in.n_layers, local->n_layers);
    QCOMPARE(in.n_kv_heads, local->n_kv_heads);
    QCOMPARE(in.head_dim, local->head_dim);
    QCOMPARE(in.n_ctx_train, local->n_ctx_train);
    QCOMPARE(in.weight_bytes, local->weight_bytes);
    QCOMPARE(in.header_bytes, local->header_bytes);
    QCOMPARE(in.tensor_types.size(), local->tensor_types.size());
    auto remote_fit = in.fit(512, "q8_0", 100'000'000);
    auto local_fit = local->fit(512, "q8_0", 100'000'000);
    QVERIFY(remote_fit && local_fit);
    QCOMPARE(remote_fit->total_bytes, local_fit->total_bytes);
    QCOMPARE(remote_fit->max_ctx, local_fit->max_ctx);
    QCOMPARE(remote_fit->concurrent_conversations, local_fit->concurrent_conversations);
    // Through the redirect, with the first range.
    QCOMPARE(ranges_to(hub_, "/kvchat/kjv-demo-GGUF/resolve/"), QStringList{"bytes=0-1048575"});
    QCOMPARE(ranges_to(hub_, "/cdn/kvchat/kjv-demo-GGUF/"), QStringList{"bytes=0-1048575"});
  }

  // A file smaller than the first range (stories260K is 1.1 MB; mamba-tiny 1.3 kB).
  void smallFileAndUnsupportedArchitecture() {
    const RemoteHeaderResult stories = fetch("kvchat/stories260K-GGUF", "stories260K.gguf");
    QVERIFY2(stories.error.ok(), qPrintable(stories.error.message));
    QVERIFY(stories.inspection.runnable);
    QCOMPARE(stories.inspection.architecture, std::string("llama"));
    const RemoteHeaderResult mamba = fetch("kvchat/unsupported-GGUF", "mamba-tiny.gguf");
    QVERIFY2(mamba.error.ok(), qPrintable(mamba.error.message));
    QCOMPARE(mamba.inspection.architecture, std::string("mamba"));
    QVERIFY(!mamba.inspection.runnable);
    QVERIFY(mamba.inspection.why_not.find("architecture 'mamba' is not supported") !=
            std::string::npos);
    QCOMPARE(mamba.bytes_read, mamba.file_size);
  }

  // A header of 1.5 MiB: the first range (1 MiB) is not enough, the next one continues it.
  void headerLargerThanTheFirstRange() {
    const RemoteHeaderResult r = fetch("kvchat/big-header-GGUF", "big-header.gguf");
    QVERIFY2(r.error.ok(), qPrintable(r.error.message));
    QVERIFY(r.inspection.runnable);
    QVERIFY(r.inspection.header_bytes > uint64_t(RemoteHeader::kFirstRangeBytes));
    QCOMPARE(r.requests, 2);
    const QStringList ranges = ranges_to(hub_, "/cdn/kvchat/big-header-GGUF/");
    QCOMPARE(ranges.size(), 2);
    QCOMPARE(ranges[0], QString("bytes=0-1048575"));
    QVERIFY2(ranges[1].startsWith("bytes=1048576-"), qPrintable(ranges[1]));
    // The same weights and shape as the demo model: the same fit.
    auto demo = kvchat::inspect_gguf_file(shared_model("kjv-demo-f16.gguf").toStdString());
    QVERIFY(demo);
    QCOMPARE(r.inspection.weight_bytes, demo->weight_bytes);
    QCOMPARE(r.inspection.fit(0, "f16", 1 << 30)->total_bytes,
             demo->fit(0, "f16", 1 << 30)->total_bytes);
    // Capped: a header past the cap is refused, not read.
    const RemoteHeaderResult capped =
        fetch("kvchat/big-header-GGUF", "big-header.gguf", {}, 1 << 20);
    QCOMPARE(capped.error.kind, HubError::Kind::BadResponse);
    QVERIFY2(capped.error.message.contains("larger than 1.05 MB"),
             qPrintable(capped.error.message));
  }

  RemoteHeaderResult fetch_url(const QString& repo, const QString& file, const QString& query) {
    HubClient client;
    client.set_endpoint(HubEndpoint::choose(hub_.url().toString(), {}));
    RemoteHeader header(&client);
    QUrl url = client.endpoint().resolve_url(repo, file);
    url.setQuery(query);
    RemoteHeaderResult out;
    bool done = false;
    header.fetch_url(url, repo + "/" + file, this,
                     [&](const RemoteHeaderResult& r) { out = r, done = true; });
    if (!QTest::qWaitFor([&] { return done; }, 60000)) out.error.message = "no answer";
    return out;
  }

  // A server that ignores Range sends the whole file: the reader stops once it has the
  // header.
  void serverIgnoringRange() {
    const RemoteHeaderResult whole =
        fetch_url("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "fault=norange");
    QVERIFY2(whole.error.ok(), qPrintable(whole.error.message));
    QVERIFY(whole.inspection.runnable);
    QCOMPARE(whole.file_size, QFileInfo(shared_model("kjv-demo-f16.gguf")).size());
    QCOMPARE(whole.requests, 1);
  }

  // The connection breaks off during the first range (1 MiB) after the whole header
  // (48,960 bytes) has arrived: what arrived is used, no other request is made.
  void connectionCutAfterTheWholeHeader() {
    auto local = kvchat::inspect_gguf_file(shared_model("kjv-demo-f16.gguf").toStdString());
    QVERIFY(local);
    QVERIFY(local->header_bytes < 65536);
    const RemoteHeaderResult r =
        fetch_url("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "fault=drop:65536");
    QVERIFY2(r.error.ok(), qPrintable(r.error.message));
    QVERIFY(r.inspection.runnable);
    QCOMPARE(r.inspection.header_bytes, local->header_bytes);
    QCOMPARE(r.inspection.fit(512, "q8_0", 1 << 30)->total_bytes,
             local->fit(512, "q8_0", 1 << 30)->total_bytes);
    QCOMPARE(r.requests, 1);
    QCOMPARE(r.resumes, 0);
    QCOMPARE(r.bytes_read, qint64(65536));
  }

  // The connection breaks off inside the header once: the read resumes with a Range
  // from the byte where it stopped, and the header is the local file's.
  void connectionCutInsideTheHeaderResumes() {
    auto local = kvchat::inspect_gguf_file(shared_model("kjv-demo-f16.gguf").toStdString());
    QVERIFY(local);
    const RemoteHeaderResult r =
        fetch_url("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "fault=dropfirst:20000");
    QVERIFY2(r.error.ok(), qPrintable(r.error.message));
    QVERIFY(r.inspection.runnable);
    QCOMPARE(r.inspection.header_bytes, local->header_bytes);
    QCOMPARE(r.inspection.weight_bytes, local->weight_bytes);
    QCOMPARE(r.requests, 2);
    QCOMPARE(r.resumes, 1);
    QCOMPARE(distinct_ranges(hub_, "/cdn/kvchat/kjv-demo-GGUF/kjv-demo-f16.gguf?fault=dropfirst"),
             (QStringList{"bytes=0-1048575", "bytes=20000-1048575"}));
  }

  // A connection that breaks off every time: a bounded number of resumes, each from
  // where the last one stopped, then an error saying so.
  void connectionCutEveryTime() {
    const RemoteHeaderResult r =
        fetch_url("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "fault=drop:1000");
    QVERIFY(!r.error.ok());
    QVERIFY2(r.error.kind == HubError::Kind::Interrupted, qPrintable(r.error.message));
    QCOMPARE(r.resumes, RemoteHeader::kMaxResumes);
    QCOMPARE(r.requests, RemoteHeader::kMaxResumes + 1);
    QStringList expected;
    for (int i = 0; i <= RemoteHeader::kMaxResumes; ++i)
      expected << QString("bytes=%1-1048575").arg(i * 1000);
    QCOMPARE(distinct_ranges(hub_, "/cdn/kvchat/kjv-demo-GGUF/kjv-demo-f16.gguf?fault=drop:1000"),
             expected);
    const QString n = QString::number(RemoteHeader::kMaxResumes + 1);
    const QString arrived = QString::number((RemoteHeader::kMaxResumes + 1) * 1000);
    QVERIFY2(r.error.message.contains("broke off " + n + " times"), qPrintable(r.error.message));
    QVERIFY2(r.error.message.contains(arrived + " of the 1048576 bytes asked for"),
             qPrintable(r.error.message));
    QVERIFY2(r.error.message.contains("kvchat/kjv-demo-GGUF/kjv-demo-f16.gguf"),
             qPrintable(r.error.message));
  }

  void gatedNotFoundAndBadNames() {
    const RemoteHeaderResult without = fetch("kvchat/gated-GGUF", "kjv-demo-f16.gguf");
    QCOMPARE(without.error.kind, HubError::Kind::Unauthorized);
    const RemoteHeaderResult with = fetch("kvchat/gated-GGUF", "kjv-demo-f16.gguf", kFakeHubToken);
    QVERIFY2(with.error.ok(), qPrintable(with.error.message));
    QVERIFY(with.inspection.runnable);
    const RemoteHeaderResult missing = fetch("kvchat/kjv-demo-GGUF", "nope.gguf");
    QCOMPARE(missing.error.kind, HubError::Kind::NotFound);
    const RemoteHeaderResult traversal = fetch("kvchat/traversal-GGUF", "../../evil.gguf");
    QCOMPARE(traversal.error.kind, HubError::Kind::Refused);
    QCOMPARE(traversal.requests, 0);
    const RemoteHeaderResult readme = fetch("kvchat/kjv-demo-GGUF", "README.md");
    QCOMPARE(readme.error.kind, HubError::Kind::BadResponse);
    QVERIFY2(readme.error.message.contains("not a GGUF"), qPrintable(readme.error.message));
  }
};

QTEST_GUILESS_MAIN(RemoteHeaderTest)
#include "test_remote_header.moc"
