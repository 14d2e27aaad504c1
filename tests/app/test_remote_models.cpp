// Remote models in the window (issue 48 points 1 and 4): a remote model's path round trip;
// the endpoints file and where the key goes (a file created 0600, never the endpoints
// file; removed with its endpoint; a file that does not parse is never overwritten); and
// EngineWorker with a remote model against kvchat-cli serve: loaded with its facts, a
// streamed reply with the server's usage, continue, regenerate with the same seed giving
// the same text, a model the endpoint does not serve refused by name, and a local model
// loaded after it.
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <sys/stat.h>

#include "engine/engine_worker.h"
#include "remote/remote_endpoints.h"
#include "remote/remote_model_path.h"
#include "remote/remote_models_controller.h"

using namespace kvchat::app;

class TestRemoteModels : public QObject {
  Q_OBJECT

 private:
  QProcess server_;
  QString url_;
  const QString key_ = QStringLiteral("sk-app-test-9");
  QTemporaryDir dir_;

  // kvchat-cli serve on the demo model with a key, on a free port.
  bool start_server() {
    const QString key_file = dir_.filePath(QStringLiteral("server.key"));
    QFile f(key_file);
    if (!f.open(QIODevice::WriteOnly)) return false;
    f.write(key_.toUtf8() + "\n");
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    server_.start(QStringLiteral(KVCHAT_BIN_DIR "/kvchat-cli"),
                  {"serve", "--model", KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf", "--port", "0",
                   "--api-key-file", key_file, "--parallel", "1"});
    QByteArray out;
    for (int i = 0; i < 200 && !out.contains("\nport "); ++i) {
      server_.waitForReadyRead(50);
      out += server_.readAllStandardOutput();
    }
    const qsizetype at = out.indexOf("\nport ");
    if (at < 0) return false;
    url_ = QStringLiteral("http://127.0.0.1:%1/v1")
               .arg(QString::fromLatin1(out.mid(at + 6).trimmed().split('\n').front()));
    return true;
  }

 private slots:
  void initTestCase() {
    qputenv("KVCHAT_KEYRING", "off");
    QVERIFY(dir_.isValid());
    QVERIFY2(start_server(), "kvchat-cli serve did not start");
  }
  void cleanupTestCase() {
    server_.kill();
    server_.waitForFinished();
  }

  void paths_round_trip() {
    const QString p = remote_model_path("e1", "meta-llama/Llama-3.1 70B?#x");
    QVERIFY(is_remote_model_path(p));
    QVERIFY(!p.mid(9).contains(' '));
    const auto r = parse_remote_model_path(p);
    QVERIFY(r);
    QCOMPARE(r->endpoint_id, QStringLiteral("e1"));
    QCOMPARE(r->model, QStringLiteral("meta-llama/Llama-3.1 70B?#x"));
    QVERIFY(!parse_remote_model_path("remote://e1/"));
    QVERIFY(!parse_remote_model_path("remote:///m"));
    QVERIFY(!parse_remote_model_path("/models/x.gguf"));
  }

  void keys_stay_in_a_0600_file() {
    QTemporaryDir data;
    QString why;
    RemoteEndpoints endpoints(data.path());
    QVERIFY(!endpoints.add("x", "gpu-box:8000", "", &why));  // not a URL
    QVERIFY2(why.contains("not a URL"), qPrintable(why));
    const auto id = endpoints.add("", url_, "  " + key_ + "\n", &why);
    QVERIFY2(id, qPrintable(why));
    const RemoteEndpointEntry* e = endpoints.find(*id);
    QVERIFY(e);
    QCOMPARE(e->name, QStringLiteral("127.0.0.1"));  // no name: the host
    QCOMPARE(e->key_place, QStringLiteral("file"));
    struct stat st {};
    QCOMPARE(::stat(endpoints.keys().file_path().toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
    QFile list(endpoints.path());
    QVERIFY(list.open(QIODevice::ReadOnly));
    QVERIFY(!list.readAll().contains(key_.toUtf8()));
    // Read back by another instance (the next start), the key trimmed.
    RemoteEndpoints again(data.path());
    const auto c = again.connection(*id, &why);
    QVERIFY2(c, qPrintable(why));
    QCOMPARE(c->key, key_);
    QCOMPARE(c->url, url_);
    again.remove(*id);
    QFile keys(again.keys().file_path());
    QVERIFY(keys.open(QIODevice::ReadOnly));
    QVERIFY(!keys.readAll().contains(key_.toUtf8()));
    QVERIFY(!RemoteEndpoints(data.path()).connection(*id, &why));
    QVERIFY2(why.contains("removed"), qPrintable(why));
  }

  // With the keyring asked for: the key comes back from where it went (the keyring where one
  // answers; here, with no Secret Service or KWallet, the 0600 file), in well under the 5 s
  // a keyring call may take.
  void the_key_comes_back_from_where_it_went() {
    qunsetenv("KVCHAT_KEYRING");
    QTemporaryDir data;
    RemoteKeyStore store(data.path());
    QString error;
    QElapsedTimer t;
    t.start();
    const QString place = store.write("e9", key_, &error);
    QVERIFY2(place == "keyring" || place == "file", qPrintable(error));
    QCOMPARE(store.read("e9", place, &error), key_);
    store.remove("e9", place);
    QCOMPARE(store.read("e9", place, &error), QString());
    QVERIFY(t.elapsed() < 15000);
    qputenv("KVCHAT_KEYRING", "off");
  }

  void a_broken_file_is_left_alone() {
    QTemporaryDir data;
    QFile f(data.filePath("remote_endpoints.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ not json");
    f.close();
    RemoteEndpoints endpoints(data.path());
    QVERIFY(endpoints.error().contains("left as it is"));
    QString why;
    QVERIFY(!endpoints.add("x", url_, "", &why));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("{ not json"));
  }

  // The panel's estimate: a GGUF of the model pointed to, the conversation's tokens from
  // the last reply's usage: 2 x layers x tokens x KV heads x head size x 2 bytes.
  void the_panel_estimates_the_kv_from_a_gguf() {
    QTemporaryDir data;
    QString why;
    const auto id = RemoteEndpoints(data.path()).add("box", "http://127.0.0.1:1/v1", "", &why);
    QVERIFY2(id, qPrintable(why));
    RemoteModelsController again(data.path());
    QCOMPARE(again.endpoints().size(), 1);
    QVERIFY(!again.active());
    again.set_loaded_model(remote_model_path(*id, "kjv-demo"));
    QVERIFY(again.active());
    QCOMPARE(again.active_name(), QStringLiteral("kjv-demo at box"));
    QVERIFY(!again.setShapeFile(KVCHAT_SOURCE_DIR "/README.md").isEmpty());  // not a GGUF
    QCOMPARE(again.setShapeFile(KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf"), QString());
    again.set_conversation_tokens(100);
    const QVariantMap shape = again.memory().value("shape").toMap();
    QCOMPARE(shape.value("n_layers").toLongLong(), 6);
    QCOMPARE(again.memory().value("estimate_kv_bytes").toLongLong(),
             2LL * 6 * 100 * shape.value("n_kv_heads").toLongLong() *
                 shape.value("head_dim").toLongLong() * 2);
    QCOMPARE(again.memory().value("estimate_kv_bytes").toLongLong(), 153600LL);  // 2x6x100x2x32x2
    // Kept for the model: the next load of it has the shape again.
    again.set_loaded_model(QString());
    QVERIFY(!again.active());
    again.set_loaded_model(remote_model_path(*id, "kjv-demo"));
    QCOMPARE(again.memory().value("shape_file").toString(),
             QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf"));
  }

  void the_worker_chats_with_a_remote_model() {
    QThread thread;
    auto* worker = new EngineWorker;
    worker->moveToThread(&thread);
    thread.start();
    const QString path = remote_model_path("e1", "kjv-demo-f32");
    ModelLoadRequest request;
    request.path = path;
    request.remote_url = url_;
    request.remote_key = key_;
    request.remote_name = "box";
    QSignalSpy loaded(worker, &EngineWorker::modelLoaded);
    QSignalSpy failed(worker, &EngineWorker::modelLoadFailed);
    QMetaObject::invokeMethod(worker, [worker, request] { worker->loadModel(request); });
    QVERIFY(loaded.wait(20000));
    const QVariantMap info = loaded.takeFirst().at(0).value<LoadedModel>().to_map();
    QCOMPARE(info.value("path").toString(), path);
    QCOMPARE(info.value("remote").toBool(), true);
    QCOMPARE(info.value("display_name").toString(), QStringLiteral("kjv-demo-f32 at box"));
    QVERIFY(worker->shared_model() == nullptr);  // no local weights held

    // A reply, then the same seed again: the same text; then continue.
    auto reply = [&](const ChatTurns& turns, bool continuing, QString* chunks) {
      QSignalSpy finished(worker, &EngineWorker::replyFinished);
      QSignalSpy fail(worker, &EngineWorker::replyFailed);
      auto c = connect(worker, &EngineWorker::replyChunk, this,
                       [chunks](const QString& t) { *chunks += t; });
      ReplySampling s;
      s.params.temperature = 0.8f;
      s.params.seed = 42;
      s.max_tokens = 24;
      QMetaObject::invokeMethod(worker, [=] {
        continuing ? worker->continueReply(turns, "Be brief.", s)
                   : worker->generate(turns, "Be brief.", s);
      });
      const bool ok = finished.wait(30000);
      disconnect(c);
      if (!ok)
        qWarning("%s", fail.isEmpty() ? "no answer" : qPrintable(fail.at(0).at(0).toString()));
      return ok ? finished.takeFirst().at(0).value<ReplyStats>() : ReplyStats{};
    };
    const ChatTurns turns{{"user", "In the beginning"}};
    QString first_chunks, second_chunks, more_chunks;
    const ReplyStats first = reply(turns, false, &first_chunks);
    QVERIFY(!first.text.isEmpty());
    QCOMPARE(first.text, first_chunks);
    QCOMPARE(first.generated_tokens, 24);
    QCOMPARE(first.stop_reason, QStringLiteral("length"));
    QVERIFY(first.prompt_tokens > 0);
    const ReplyStats second = reply(turns, false, &second_chunks);
    QCOMPARE(second.text, first.text);  // the seed reaches the server
    QVERIFY(second.reused_tokens > 0);  // its prompt found in the server's cache
    const ReplyStats more =
        reply({{"user", "In the beginning"}, {"assistant", first.text}}, true, &more_chunks);
    QVERIFY(!more.text.isEmpty());
    QVERIFY(more.prompt_tokens > first.prompt_tokens);

    // A model the endpoint does not serve: refused by name, the remote one stays.
    request.path = remote_model_path("e1", "no-such-model");
    QMetaObject::invokeMethod(worker, [worker, request] { worker->loadModel(request); });
    QVERIFY(failed.wait(20000));
    QVERIFY2(failed.at(0).at(0).toString().contains("no longer serves no-such-model"),
             qPrintable(failed.at(0).at(0).toString()));
    // A local model after it: the remote client goes.
    ModelLoadRequest local;
    local.path = KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf";
    QMetaObject::invokeMethod(worker, [worker, local] { worker->loadModel(local); });
    QVERIFY(loaded.wait(30000));
    QVERIFY(!loaded.takeFirst().at(0).value<LoadedModel>().to_map().value("remote").toBool());
    QVERIFY(worker->shared_model() != nullptr);
    thread.quit();
    thread.wait();
    delete worker;
  }
};

QTEST_GUILESS_MAIN(TestRemoteModels)
#include "test_remote_models.moc"
