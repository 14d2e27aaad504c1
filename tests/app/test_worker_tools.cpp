// EngineWorker's replies with tools (issue 47 points 2 and 5), on the demo model with its
// calls constrained (a required call) to one tool of tests/mcp/fake_mcp_server.py: nothing
// runs before the window's answer; Allow runs it and the model reads its result; Deny
// and Esc do not run it; a server that crashes mid-call, or answers 100 MB, costs the
// call a message the model reads, the reply ends and the worker keeps working; the limit
// of calls in a row is asked.
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "kvchat/mcp_toolbox.h"

using namespace kvchat::app;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");

// The toolbox of one fake server that offers only `tool`.
std::shared_ptr<kvchat::McpToolbox> toolbox_of(const QString& tool, const QString& log = {}) {
  kvchat::McpServerConfig server;
  server.name = "fake";
  server.command = QStandardPaths::findExecutable("python3").toStdString();
  server.args = {KVCHAT_SOURCE_DIR "/tests/mcp/fake_mcp_server.py", ("only-" + tool).toStdString()};
  if (!log.isEmpty()) server.env["FAKE_MCP_LOG"] = log.toStdString();
  kvchat::McpConfig config;
  config.servers.push_back(server);
  auto box = std::make_shared<kvchat::McpToolbox>();
  box->start(config);
  return box;
}

ReplyTools tools_of(std::shared_ptr<kvchat::McpToolbox> box, int max_calls = 8) {
  ReplyTools tools;
  tools.toolbox = std::move(box);
  tools.servers = {"fake"};
  tools.choice = kvchat::ToolChoiceMode::Required;
  tools.max_calls = max_calls;
  return tools;
}

}  // namespace

class TestWorkerTools : public QObject {
  Q_OBJECT

 private:
  QThread thread_;
  EngineWorker* worker_ = nullptr;
  QTemporaryDir dir_;

  // Asks for a reply to "Add two and three" with `tools`; every prompt the worker asks is
  // answered by `answer` (its kind: "consent" or "limit"). Waits for the reply's end.
  struct Outcome {
    QList<QVariantMap> prompts, calls_made, finished;
    bool finished_ok = false;
    QString failure, stop_reason;
  };
  Outcome reply(const ReplyTools& tools,
                const std::function<ToolPromptAnswer(const QVariantMap&)>& answer,
                int max_tokens = 200) {
    Outcome out;
    auto c1 = connect(worker_, &EngineWorker::toolPromptRequested, this, [&](const QVariantMap& p) {
      out.prompts << p;
      worker_->answer_tool_prompt(answer(p));
    });
    auto c2 = connect(worker_, &EngineWorker::toolCallsMade, this,
                      [&](const QString&, const QVariantList& calls) {
                        for (const QVariant& c : calls) out.calls_made << c.toMap();
                      });
    auto c3 = connect(worker_, &EngineWorker::toolCallFinished, this,
                      [&](const QVariantMap& call) { out.finished << call; });
    // Queued to this thread like the signals above (a QSignalSpy counts on the worker's
    // thread, before the calls' signals before it are delivered here).
    QList<ReplyStats> done;
    QStringList failed;
    auto c4 = connect(worker_, &EngineWorker::replyFinished, this,
                      [&](const ReplyStats& stats) { done << stats; });
    auto c5 = connect(worker_, &EngineWorker::replyFailed, this,
                      [&](const QString& message) { failed << message; });
    const ReplySampling sampling = reply_sampling(
        {{QStringLiteral("temperature"), 0.0}, {QStringLiteral("max_tokens"), max_tokens}});
    QMetaObject::invokeMethod(worker_, [w = worker_, tools, sampling] {
      w->generate({{QStringLiteral("user"), QStringLiteral("Add two and three")}}, QString(),
                  sampling, QString(), tools);
    });
    [&] { QTRY_VERIFY_WITH_TIMEOUT(done.count() + failed.count() > 0, 120000); }();
    for (const auto& c : {c1, c2, c3, c4, c5}) disconnect(c);
    out.finished_ok = done.count() == 1;
    if (!failed.isEmpty()) out.failure = failed.front();
    if (!done.isEmpty()) out.stop_reason = done.front().stop_reason;
    return out;
  }

 private slots:
  void initTestCase() {
    worker_ = new EngineWorker;
    worker_->moveToThread(&thread_);
    thread_.start();
    QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
    QMetaObject::invokeMethod(worker_, [w = worker_] {
      kvchat::SessionOptions options;
      options.n_threads = 2;
      options.n_ctx = 2048;
      w->loadModel({kDemo, options, QString(), QString()});
    });
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
  }

  void cleanupTestCase() {
    thread_.quit();
    thread_.wait();
    delete worker_;
  }

  void allowed_runs_denied_does_not() {
    const QString log = dir_.filePath("add.log");
    auto box = toolbox_of("add", log);
    QSignalSpy counted(worker_, &EngineWorker::toolDefinitionsCounted);
    // Allow the first call, deny any later one.
    int asked = 0;
    bool ran_before_consent = false;
    Outcome o = reply(tools_of(box), [&](const QVariantMap& p) {
      if (p["kind"] != "consent") return ToolPromptAnswer::Stop;
      // Nothing ran before the answer.
      if (asked == 0 && QFileInfo(log).exists()) ran_before_consent = true;
      return asked++ == 0 ? ToolPromptAnswer::Allow : ToolPromptAnswer::Deny;
    });
    QVERIFY(!ran_before_consent);
    QVERIFY2(o.finished_ok, qPrintable(o.failure));
    QVERIFY(counted.count() >= 1);
    QVERIFY(counted.last().at(0).toInt() > 50);  // the definitions' tokens
    QCOMPARE(counted.last().at(1).toLongLong(), counted.last().at(0).toLongLong() * 1536);
    QVERIFY(!o.prompts.isEmpty());
    QCOMPARE(o.prompts[0]["call"].toMap()["name"].toString(), QStringLiteral("add"));
    QCOMPARE(o.prompts[0]["call"].toMap()["state"].toString(), QStringLiteral("asking"));
    QVERIFY(!o.finished.isEmpty());
    const QVariantMap first = o.finished[0];
    QCOMPARE(first["state"].toString(), QStringLiteral("done"));
    const QJsonObject args = QJsonDocument::fromJson(first["arguments"].toByteArray()).object();
    QCOMPARE(first["result"].toString(),
             QString::number(args["a"].toInteger() + args["b"].toInteger()));
    QVERIFY(first["result_tokens"].toInt() > 0);
    QCOMPARE(first["kv_bytes"].toLongLong(), first["result_tokens"].toLongLong() * 1536);
    for (int i = 1; i < o.finished.size(); ++i) {
      QCOMPARE(o.finished[i]["state"].toString(), QStringLiteral("denied"));
      QCOMPARE(o.finished[i]["result"].toString(),
               QStringLiteral("The user did not allow this call of add; it was not run."));
    }
    QFile f(log);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("add\n"));  // the allowed call, only
  }

  void always_allowed_is_not_asked() {
    auto box = toolbox_of("add");
    ReplyTools tools = tools_of(box, 1);
    tools.always_allowed.insert("fake/add");
    Outcome o = reply(tools, [](const QVariantMap&) { return ToolPromptAnswer::Stop; });
    QVERIFY2(o.finished_ok, qPrintable(o.failure));
    QCOMPARE(o.finished.size(), 1);
    QCOMPARE(o.finished[0]["state"].toString(), QStringLiteral("done"));
    // One call ran in a row: the limit (1) is asked, and Stop ends the reply there.
    QCOMPARE(o.prompts.size(), 1);
    QCOMPARE(o.prompts[0]["kind"].toString(), QStringLiteral("limit"));
    QCOMPARE(o.prompts[0]["calls"].toInt(), 1);
  }

  void esc_while_asked_runs_nothing() {
    const QString log = dir_.filePath("esc.log");
    auto box = toolbox_of("add", log);
    Outcome o = reply(tools_of(box), [&](const QVariantMap&) {
      worker_->request_stop();         // Esc while the call waits
      return ToolPromptAnswer::Allow;  // too late: the stop came first
    });
    QVERIFY2(o.finished_ok, qPrintable(o.failure));
    QCOMPARE(o.stop_reason, QStringLiteral("cancelled"));
    QCOMPARE(o.finished.size(), 1);
    QCOMPARE(o.finished[0]["state"].toString(), QStringLiteral("stopped"));
    QVERIFY(!QFile::exists(log));
  }

  void a_server_that_crashes_costs_the_call_only() {
    auto box = toolbox_of("crash");
    Outcome o = reply(tools_of(box, 2), [](const QVariantMap& p) {
      return p["kind"] == "consent" ? ToolPromptAnswer::Allow : ToolPromptAnswer::Stop;
    });
    QVERIFY2(o.finished_ok, qPrintable(o.failure));
    QVERIFY(!o.finished.isEmpty());
    QCOMPARE(o.finished[0]["state"].toString(), QStringLiteral("failed"));
    QVERIFY2(o.finished[0]["result"].toString().startsWith("The call failed: "),
             qPrintable(o.finished[0]["result"].toString()));
    QCOMPARE(box->servers().at(0).state, kvchat::McpServerState::Failed);
  }

  void a_100_mb_result_costs_the_call_only() {
    auto box = toolbox_of("huge");
    Outcome o = reply(tools_of(box, 1), [](const QVariantMap& p) {
      return p["kind"] == "consent" ? ToolPromptAnswer::Allow : ToolPromptAnswer::Stop;
    });
    QVERIFY2(o.finished_ok, qPrintable(o.failure));
    QVERIFY(!o.finished.isEmpty());
    const QVariantMap huge = o.finished[0];
    // The model picks the size (mb, 100 when left out): over the client's 16 MiB a message
    // is refused, and the call fails saying so; under it, the result is cut to the limit.
    const QJsonObject args = QJsonDocument::fromJson(huge["arguments"].toByteArray()).object();
    const qint64 mb = args.contains("mb") ? args["mb"].toInteger() : 100;
    if (mb >= 16) {
      QCOMPARE(huge["state"].toString(), QStringLiteral("failed"));
      QVERIFY2(huge["result"].toString().contains("MiB"), qPrintable(huge["result"].toString()));
      QVERIFY(huge["result_tokens"].toInt() < 200);
    } else {
      QCOMPARE(huge["state"].toString(), QStringLiteral("done"));
      QVERIFY2(huge["cut_note"].toString().contains("tokens kept"),
               qPrintable(huge["cut_note"].toString()));
      QVERIFY(huge["result_tokens"].toInt() < 2048);  // cut to what the context holds
    }
  }

  void the_worker_goes_on_after_them() {
    QSignalSpy done(worker_, &EngineWorker::replyFinished);
    QMetaObject::invokeMethod(worker_, [w = worker_] {
      w->generate({{QStringLiteral("user"), QStringLiteral("In the beginning")}}, QString(),
                  reply_sampling({{QStringLiteral("max_tokens"), 8}}));
    });
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QVERIFY(!qvariant_cast<ReplyStats>(done.at(0).at(0)).text.isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestWorkerTools)
#include "test_worker_tools.moc"
