// kvchat-cli models search|fit against the fake Hub: the search lists its repositories,
// and the fit of a remote file (its header read with Range requests) equals
// `kvchat-cli memory` on the same file downloaded from the fake Hub.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hub/fake_hub_process.h"

using kvchat::test::FakeHubProcess;
using kvchat::test::kFakeHubToken;

namespace {

struct Run {
  int exit_code = -1;
  QByteArray out, err;
};

Run cli(const QStringList& args,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(KVCHAT_BIN_DIR "/kvchat-cli"), args);
  Run r;
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

QJsonObject json_of(const Run& r) { return QJsonDocument::fromJson(r.out).object(); }

// kvchat-cli ARGS as a child of its own (posix_spawn + wait4), for its peak resident
// memory (QProcess does not give it); stdout and stderr go through files in `dir`.
struct Measured : Run {
  qint64 max_rss = -1;  // bytes
};
Measured cli_measured(const QStringList& args, const QString& dir) {
  Measured r;
  const QByteArray program = KVCHAT_BIN_DIR "/kvchat-cli";
  const QByteArray out_path = QFile::encodeName(dir + "/measured.out"),
                   err_path = QFile::encodeName(dir + "/measured.err");
  QList<QByteArray> storage{program};
  for (const QString& a : args) storage.push_back(a.toUtf8());
  std::vector<char*> argv;
  for (QByteArray& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.constData(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.constData(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.constData(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return r;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.max_rss = qint64(usage.ru_maxrss) * 1024;
  QFile out(QString::fromLocal8Bit(out_path)), err(QString::fromLocal8Bit(err_path));
  if (out.open(QIODevice::ReadOnly)) r.out = out.readAll();
  if (err.open(QIODevice::ReadOnly)) r.err = err.readAll();
  return r;
}

// Bytes a terminal acts on: ESC, BEL, CR, NUL, DEL, and the C1 CSI (U+009B as UTF-8).
bool has_terminal_controls(const QByteArray& text) {
  return text.contains('\x1b') || text.contains('\x07') || text.contains('\r') ||
         text.contains('\0') || text.contains('\x7f') || text.contains("\xc2\x9b");
}

}  // namespace

class CliModelsTest : public QObject {
  Q_OBJECT
 private:
  FakeHubProcess hub_;
  QTemporaryDir dir_;

  QString endpoint() const { return hub_.url().toString(); }

  // The whole file as the fake Hub serves it (through its redirect), saved under dir_.
  QString download(const QString& repo, const QString& file) {
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(endpoint() + "/" + repo + "/resolve/main/" + file));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::NoLessSafeRedirectPolicy);
    QNetworkReply* reply = nam.get(request);
    if (!QTest::qWaitFor([&] { return reply->isFinished(); }, 60000)) return {};
    const QString path = dir_.filePath(file);
    QFile out(path);
    if (reply->error() != QNetworkReply::NoError || !out.open(QIODevice::WriteOnly)) return {};
    out.write(reply->readAll());
    reply->deleteLater();
    return path;
  }

  // `models fit` equals `memory` on the downloaded file, field by field.
  void compare_fit(const QString& repo, const QString& file, const QString& ctx,
                   const QString& kv) {
    const QString local = download(repo, file);
    QVERIFY(!local.isEmpty());
    const QString budget = "60000000";
    const Run fit =
        cli({"models", "fit", repo, file, "--endpoint", endpoint(), "--ctx", ctx, "--kv-type", kv,
             "--budget-bytes", budget, "--gpu-memory", "0.3", "--json"});
    QVERIFY2(fit.exit_code == 0, fit.err.constData());
    const Run memory = cli({"memory", "--model", local, "--ctx", ctx, "--kv-type", kv,
                            "--budget-bytes", budget, "--gpu-memory", "0.3", "--json"});
    QVERIFY2(memory.exit_code == 0, memory.err.constData());
    const QJsonObject f = json_of(fit), m = json_of(memory);
    for (const char* key :
         {"weights_bytes", "kv_bytes", "kv_allocated_bytes", "total_bytes", "budget_bytes",
          "max_ctx", "max_ctx_capped", "concurrent_conversations", "n_layers", "n_kv_heads",
          "head_dim", "n_ctx_train", "ctx", "kv_type", "sliding_window", "n_windowed_layers"}) {
      QVERIFY2(m.contains(key), key);
      QVERIFY2(f.value(key) == m.value(key),
               qPrintable(QString("%1 %2: %3 fit %4 vs memory %5")
                              .arg(repo, file, key, QString::number(f.value(key).toDouble()),
                                   QString::number(m.value(key).toDouble()))));
    }
    // The GPU planner's answer from the header alone is the one of the whole file.
    QVERIFY(f.value("gpu").isObject());
    QCOMPARE(f.value("gpu").toObject(), m.value("gpu").toObject());
    QVERIFY(f.value("gpu").toObject().value("gpu_layers").toInt() > 0);
    QCOMPARE(f.value("runnable").toBool(), true);
    QCOMPARE(qint64(f.value("file_size").toDouble()), QFileInfo(local).size());
    QVERIFY(f.value("bytes_read").toDouble() < QFileInfo(local).size());  // not downloaded
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY2(hub_.start(), qPrintable(hub_.error()));
  }

  // Issue 24 point 2: `models search` against an endless chunked answer fails with the
  // cap in its message, its peak memory no more than the cap (and some room) above the
  // same search of a small answer.
  void searchOfAnEndlessAnswerStaysSmall() {
    const Measured small =
        cli_measured({"models", "search", "kjv", "--endpoint", endpoint()}, dir_.path());
    QVERIFY2(small.exit_code == 0, small.err.constData());
    QVERIFY(small.max_rss > 0);
    const Measured endless =
        cli_measured({"models", "search", "endless", "--endpoint", endpoint()}, dir_.path());
    const qint64 allowed = small.max_rss + (qint64(16) << 20) + (qint64(64) << 20);
    qInfo("peak resident memory %lld MiB, a small search %lld MiB", endless.max_rss >> 20,
          small.max_rss >> 20);
    QVERIFY2(endless.max_rss < allowed, qPrintable(QString("peak %1 MiB, a small search %2 MiB")
                                                       .arg(endless.max_rss >> 20)
                                                       .arg(small.max_rss >> 20)));
    QCOMPARE(endless.exit_code, 1);
    QVERIFY2(endless.err.contains("16777216 bytes") && endless.err.contains("stopped reading"),
             endless.err.constData());
  }

  // Issue 24 point 7: what the Hub and its files say is printed escaped and cut.
  void hostileSearchResultsAreEscaped() {
    const Run r = cli({"models", "search", "hostile", "--endpoint", endpoint()});
    QVERIFY2(r.exit_code == 0, r.err.constData());
    QVERIFY(r.out.contains("kvchat/kjv-demo-GGUF"));  // the good id, listed
    QCOMPARE(r.err.count("left out: "), 3);           // the three hostile ones, said
    QVERIFY2(!has_terminal_controls(r.out) && !has_terminal_controls(r.err), r.err.constData());
    QVERIFY2(r.err.contains("\\e[31mred"), r.err.constData());  // shown, escaped
    QVERIFY(r.err.size() < 4000);
    const Run json = cli({"models", "search", "hostile", "--endpoint", endpoint(), "--json"});
    QVERIFY2(json.exit_code == 0, json.err.constData());
    QCOMPARE(json_of(json).value("rejected").toArray().size(), 3);
    QVERIFY(json.out.size() < 8000);
  }

  void hostileModelNameIsEscapedAndCut() {
    const QStringList fit = {
        "models",     "fit",      "kvchat/hostile-name-GGUF", "hostile-name.gguf",
        "--endpoint", endpoint(), "--budget-bytes",           "60000000"};
    const Run human = cli(fit);
    QVERIFY2(human.exit_code == 0, human.err.constData());
    QVERIFY2(human.out.size() < 4000,
             qPrintable(QString("%1 bytes of output").arg(human.out.size())));
    QVERIFY(!has_terminal_controls(human.out));
    QVERIFY2(human.out.contains("\\e[31mred\\e]0;owned\\x07<b>bold</b>"), human.out.constData());
    QVERIFY2(human.out.contains("bytes)"), human.out.constData());  // "… (N bytes)": cut
    QVERIFY(human.out.contains("kvchat runs   yes"));
    const Run json = cli(fit + QStringList{"--json"});
    QVERIFY2(json.exit_code == 0, json.err.constData());
    QVERIFY(json.out.size() < 8000);
    const QString name = json_of(json).value("name").toString();
    QVERIFY2(name.startsWith("\\e[31mred") && name.size() < 300, qPrintable(name.left(300)));
    const Run arch = cli({"models", "fit", "kvchat/hostile-arch-GGUF", "hostile-arch.gguf",
                          "--endpoint", endpoint()});
    QVERIFY2(arch.exit_code == 0, arch.err.constData());
    QVERIFY2(!has_terminal_controls(arch.out), arch.out.constData());
    QVERIFY2(arch.out.contains("mamba\\e[31mred"), arch.out.constData());
    QVERIFY(arch.out.contains("kvchat runs   no:"));
  }

  void searchListsTheFakeRepos() {
    const Run all = cli({"models", "search", "GGUF", "--endpoint", endpoint(), "--json"});
    QVERIFY2(all.exit_code == 0, all.err.constData());
    QStringList ids;
    for (const QJsonValue& v : json_of(all).value("models").toArray())
      ids << v.toObject().value("id").toString();
    ids.sort();
    QCOMPARE(ids, (QStringList{"kvchat/big-header-GGUF", "kvchat/drop-GGUF", "kvchat/gated-GGUF",
                               "kvchat/kjv-demo-GGUF", "kvchat/ratelimit-GGUF", "kvchat/slow-GGUF",
                               "kvchat/stories260K-GGUF", "kvchat/traversal-GGUF",
                               "kvchat/unsupported-GGUF", "kvchat/wrong-hash-GGUF"}));
    // Human output, the endpoint from HF_ENDPOINT.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HF_ENDPOINT", endpoint());
    const Run kjv = cli({"models", "search", "kjv"}, env);
    QVERIFY2(kjv.exit_code == 0, kjv.err.constData());
    QVERIFY(kjv.out.contains("kvchat/kjv-demo-GGUF"));
    QVERIFY(!kjv.out.contains("stories"));
    const Run none = cli({"models", "search", "zzz", "--endpoint", endpoint()});
    QCOMPARE(none.exit_code, 0);
    QVERIFY(none.out.contains("no GGUF repositories"));
  }

  void fitEqualsMemoryOnTheDownloadedFile() {
    compare_fit("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "512", "q8_0");
    compare_fit("kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf", "3000", "f16");
    compare_fit("kvchat/stories260K-GGUF", "stories260K.gguf", "256", "f32");
    compare_fit("kvchat/big-header-GGUF", "big-header.gguf", "1024", "q4_0");
  }

  void fitHumanOutputAndErrors() {
    const Run human = cli(
        {"models", "fit", "kvchat/unsupported-GGUF", "mamba-tiny.gguf", "--endpoint", endpoint()});
    QVERIFY2(human.exit_code == 0, human.err.constData());
    QVERIFY2(human.out.contains("kvchat runs   no:"), human.out.constData());
    QVERIFY2(human.out.contains("architecture 'mamba' is not supported"), human.out.constData());
    QVERIFY(human.out.contains("not predicted"));
    const Run gated =
        cli({"models", "fit", "kvchat/gated-GGUF", "kjv-demo-f16.gguf", "--endpoint", endpoint()});
    QCOMPARE(gated.exit_code, 1);
    QVERIFY2(gated.err.contains("token"), gated.err.constData());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HF_TOKEN", kFakeHubToken);
    const Run with = cli(
        {"models", "fit", "kvchat/gated-GGUF", "kjv-demo-f16.gguf", "--endpoint", endpoint()}, env);
    QVERIFY2(with.exit_code == 0, with.err.constData());
    QVERIFY(with.out.contains("kvchat runs   yes"));
    QVERIFY(!with.out.contains(kFakeHubToken) && !with.err.contains(kFakeHubToken));
    const Run traversal = cli(
        {"models", "fit", "kvchat/traversal-GGUF", "../../evil.gguf", "--endpoint", endpoint()});
    QCOMPARE(traversal.exit_code, 1);
    QVERIFY(traversal.err.contains(".."));
    const Run plain = cli({"models", "search", "kjv", "--endpoint", "http://example.com"});
    QCOMPARE(plain.exit_code, 1);
    QVERIFY(plain.err.contains("https"));
    QCOMPARE(cli({"models", "fit", "kvchat/kjv-demo-GGUF"}).exit_code, 2);
  }

  // The connection breaks off during the header read (issue 26): after the whole header
  // arrived, the fit uses it; inside the header, the read resumes and the fit is that of
  // the intact repository; cut off every time, a clear error after the bounded resumes.
  void fitWhenTheConnectionBreaksOff() {
    const QStringList tail = {"--endpoint", endpoint(),       "--ctx",     "512",   "--kv-type",
                              "q8_0",       "--budget-bytes", "100000000", "--json"};
    const Run intact =
        cli(QStringList{"models", "fit", "kvchat/kjv-demo-GGUF", "kjv-demo-f16.gguf"} + tail);
    QVERIFY2(intact.exit_code == 0, intact.err.constData());
    for (const QString repo : {"kvchat/cut-after-header-GGUF", "kvchat/cut-mid-header-GGUF"}) {
      const Run cut = cli(QStringList{"models", "fit", repo, "kjv-demo-f16.gguf"} + tail);
      QVERIFY2(cut.exit_code == 0, qPrintable(repo + ": " + QString::fromUtf8(cut.err)));
      for (const char* key :
           {"total_bytes", "kv_bytes", "max_ctx", "concurrent_conversations", "header_bytes"}) {
        QVERIFY2(json_of(cut).value(key) == json_of(intact).value(key),
                 qPrintable(repo + ": " + key));
      }
    }
    const Run always =
        cli(QStringList{"models", "fit", "kvchat/cut-always-GGUF", "kjv-demo-f16.gguf"} + tail);
    QCOMPARE(always.exit_code, 1);
    QVERIFY2(always.err.contains("broke off 4 times while reading the header of "
                                 "kvchat/cut-always-GGUF/kjv-demo-f16.gguf"),
             always.err.constData());
    QVERIFY2(always.err.contains("giving up"), always.err.constData());
  }
};

QTEST_GUILESS_MAIN(CliModelsTest)
#include "test_cli_models.moc"
