// Settings → Local server (app/server/local_server_controller.h) on the real demo model:
// it serves the window's model over HTTP (real requests with Qt Network), requires the
// key when one is set, says why it cannot listen, stops when switched off, keeps its
// choices and starts again with the model; the memory panel's "more users fit" by hand;
// the server view's request log and sessions' clients, a restart said with its reason and
// the counters kept across a restart of the same server (issue 43).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

#include "engine/engine_maps.h"
#include "kvchat/chat_format.h"
#include "kvchat/model.h"
#include "server/local_server_controller.h"
#include "server/server_users.h"

using kvchat::app::LocalServerController;

namespace {

std::shared_ptr<const kvchat::Model> demo() {
  static auto model = kvchat::Model::load(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");
  return model ? *model : nullptr;
}

struct Reply {
  int status = 0;  // 0: no HTTP answer (refused)
  QByteArray body;
};

Reply request(const QString& url, const QByteArray& post = {}, const QString& key = {},
              const QByteArray& user_agent = {}) {
  QNetworkAccessManager net;
  QNetworkRequest req{QUrl(url)};
  req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
  if (!user_agent.isEmpty()) req.setRawHeader("User-Agent", user_agent);
  if (!key.isEmpty()) req.setRawHeader("Authorization", "Bearer " + key.toUtf8());
  QNetworkReply* r = post.isEmpty() ? net.get(req) : net.post(req, post);
  QSignalSpy done(r, &QNetworkReply::finished);
  if (!done.wait(30000)) return {};
  Reply out;
  out.status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  out.body = r->readAll();
  r->deleteLater();
  return out;
}

// A chat template of the shared cases (templates/cases.json, real published templates).
std::string shared_template(const QString& name) {
  QFile f(QStringLiteral(KVCHAT_SHARED_DIR "/templates/cases.json"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll())["templates"][name].toString().toStdString();
}

// A controller on a settings map (the app keeps them in its store).
struct Fixture {
  QVariantMap settings;
  std::shared_ptr<const kvchat::Model> model = demo();
  LocalServerController::ChatTemplateChoice chat_template;  // the window's
  std::unique_ptr<LocalServerController> make() {
    LocalServerController::Hooks h;
    h.model = [this] { return model; };
    h.chat_template = [this] { return chat_template; };
    h.session_options = [] {
      kvchat::SessionOptions o;
      o.n_ctx = 512;
      return o;
    };
    h.load_setting = [this](const QString& k, const QVariant& fallback) {
      return settings.value(k, fallback);
    };
    h.save_setting = [this](const QString& k, const QVariant& v) { settings.insert(k, v); };
    h.available_bytes = [] { return uint64_t{1} << 30; };
    return std::make_unique<LocalServerController>(h);
  }
};

}  // namespace

class TestLocalServer : public QObject {
  Q_OBJECT
 private slots:
  void moreUsersFitByHand() {
    using kvchat::app::more_users_fit;
    // No budget: the available memory over the average held (sessions without KV skipped).
    QCOMPARE(more_users_fit(0, 1000, {100, 300, 0}), int64_t{5});
    // A budget: what is left of it (1000 - 400) over the average 200.
    QCOMPARE(more_users_fit(1000, 1u << 30, {100, 300}), int64_t{3});
    QCOMPARE(more_users_fit(300, 1u << 30, {100, 300}), int64_t{0});
    QCOMPARE(more_users_fit(0, 1000, {}), int64_t{-1});
    QCOMPARE(more_users_fit(0, 1000, {0, 0}), int64_t{-1});
  }

  void offByDefault() {
    Fixture f;
    auto c = f.make();
    QVERIFY(!c->enabled());
    c->model_changed();
    QVERIFY(!c->running());
    QVERIFY(c->chat_template_changed().isEmpty());  // not running: nothing restarts
    QCOMPARE(c->host(), QStringLiteral("127.0.0.1"));
    QVERIFY(c->url().isEmpty());
  }

  void servesTheWindowsModelAndStops() {
    Fixture f;
    QVERIFY(f.model);
    auto c = f.make();
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 2);  // port 0: the OS chooses
    QVERIFY2(c->running(), qPrintable(c->error()));
    const QString url = c->url();
    QVERIFY(url.startsWith(QStringLiteral("http://127.0.0.1:")));
    QVERIFY(url.endsWith(QStringLiteral("/v1")));
    QCOMPARE(c->model_id(), QStringLiteral("kjv-demo-f16"));

    const Reply models = request(url + QStringLiteral("/models"));
    QCOMPARE(models.status, 200);
    QCOMPARE(QJsonDocument::fromJson(models.body)["data"][0]["id"].toString(),
             QStringLiteral("kjv-demo-f16"));
    const QByteArray chat =
        R"({"model":"kjv-demo-f16","max_tokens":4,"messages":[{"role":"user","content":"In the beginning"}]})";
    const Reply reply = request(url + QStringLiteral("/chat/completions"), chat);
    QCOMPARE(reply.status, 200);
    QCOMPARE(QJsonDocument::fromJson(reply.body)["usage"]["completion_tokens"].toInt(), 4);

    // The panel's users: one session that holds KV, polled once a second.
    QSignalSpy polled(c.get(), &LocalServerController::statsChanged);
    QVERIFY(polled.wait(3000));
    const QVariantList sessions = c->stats().value(QStringLiteral("sessions")).toList();
    QCOMPARE(sessions.size(), 1);
    QVERIFY(sessions[0].toMap().value(QStringLiteral("kv_bytes")).toLongLong() > 0);
    QCOMPARE(sessions[0].toMap().value(QStringLiteral("requests")).toLongLong(), 1);
    QCOMPARE(c->stats().value(QStringLiteral("requests")).toLongLong(), 1);
    QVERIFY(c->stats().value(QStringLiteral("more_users")).toLongLong() > 0);

    c->apply(false, c->host(), c->port(), QString(), 2);
    QVERIFY(!c->running());
    QCOMPARE(request(url + QStringLiteral("/models")).status, 0);  // refused
  }

  // The server renders as the window does: its template override and Thinking switch.
  // DeepSeek-R1's generation prompt opens "<think>", so the demo model's reply comes back
  // as reasoning_content; the file's own template (after the window changes back) has none.
  void servesWithTheWindowsChatTemplate() {
    Fixture f;
    f.chat_template.override_text =
        shared_template(QStringLiteral("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja"));
    QVERIFY(!f.chat_template.override_text.empty());
    auto c = f.make();
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 1);
    QVERIFY2(c->running(), qPrintable(c->error()));
    const QByteArray chat =
        R"({"model":"kjv-demo-f16","max_tokens":6,"messages":[{"role":"user","content":"In the beginning"}]})";
    Reply reply = request(c->url() + QStringLiteral("/chat/completions"), chat);
    QCOMPARE(reply.status, 200);
    QJsonObject message = QJsonDocument::fromJson(reply.body)["choices"][0]["message"].toObject();
    QVERIFY(!message.value(QStringLiteral("reasoning_content")).toString().isEmpty());
    QCOMPARE(message.value(QStringLiteral("content")).toString(), QString());

    // Unchanged: no restart (the same URL keeps answering), nothing to say; changed:
    // restarted with it, and said (the window's status line, issue 43).
    const QString url = c->url();
    QVERIFY(c->chat_template_changed().isEmpty());
    QCOMPARE(c->url(), url);
    f.chat_template = {};
    const QString note = c->chat_template_changed();
    QVERIFY2(c->running(), qPrintable(c->error()));
    QVERIFY2(note.contains(QStringLiteral("restarted: the chat template changed")),
             qPrintable(note));
    reply = request(c->url() + QStringLiteral("/chat/completions"), chat);
    QCOMPARE(reply.status, 200);
    message = QJsonDocument::fromJson(reply.body)["choices"][0]["message"].toObject();
    QVERIFY(!message.contains(QStringLiteral("reasoning_content")));
    QVERIFY(!message.value(QStringLiteral("content")).toString().isEmpty());
  }

  // The window's format as the override that makes it again.
  void overrideTextOfAFormat() {
    const auto model = demo();
    QVERIFY(model);
    auto file = kvchat::ChatFormat::for_model(*model);
    auto builtin = kvchat::ChatFormat::for_model(*model, "builtin:llama3");
    const std::string jinja = "{% for m in messages %}{{ m.content }}{% endfor %}";
    auto custom = kvchat::ChatFormat::for_model(*model, jinja);
    QVERIFY(file && builtin && custom);
    QCOMPARE(kvchat::app::override_text_of(*file), std::string());
    QCOMPARE(kvchat::app::override_text_of(*builtin), std::string("builtin:llama3"));
    QCOMPARE(kvchat::app::override_text_of(*custom), jinja);
  }

  // Beyond loopback without a key: refused (the reason says how to allow it) unless the
  // user ticked "Serve without a key anyway".
  void anOpenAddressWithoutAKeyNeedsConsent() {
    Fixture f;
    auto c = f.make();
    c->apply(true, QStringLiteral("0.0.0.0"), 0, QString(), 1);
    QVERIFY(!c->running());
    QVERIFY2(c->error().contains(QStringLiteral("without an API key")), qPrintable(c->error()));
    c->apply(true, QStringLiteral("0.0.0.0"), 0, QString(), 1, /*allow_no_key=*/true);
    QVERIFY2(c->running(), qPrintable(c->error()));
    QVERIFY(c->allow_no_key());
    c->apply(true, QStringLiteral("0.0.0.0"), 0, QStringLiteral("k3y"), 1);
    QVERIFY2(c->running(), qPrintable(c->error()));  // with a key: no consent needed
  }

  void theKeyIsRequiredWhenSet() {
    Fixture f;
    auto c = f.make();
    const QString key = c->generateKey();
    QCOMPARE(key.size(), 32);
    QVERIFY(key != c->generateKey());
    c->apply(true, QStringLiteral("127.0.0.1"), 0, key, 1);
    QVERIFY2(c->running(), qPrintable(c->error()));
    QCOMPARE(request(c->url() + QStringLiteral("/models")).status, 401);
    QCOMPARE(request(c->url() + QStringLiteral("/models"), {}, QStringLiteral("wrong")).status,
             401);
    QCOMPARE(request(c->url() + QStringLiteral("/models"), {}, key).status, 200);
  }

  void aPortInUseIsSaid() {
    Fixture f;
    auto first = f.make();
    first->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 1);
    QVERIFY(first->running());
    const int port = QUrl(first->url()).port();
    Fixture g;
    auto second = g.make();
    second->apply(true, QStringLiteral("127.0.0.1"), port, QString(), 1);
    QVERIFY(!second->running());
    QVERIFY2(second->error().contains(QString::number(port)), qPrintable(second->error()));
    QVERIFY(first->running());
  }

  void choicesAreKeptAndItStartsWithTheModel() {
    Fixture f;
    {
      auto c = f.make();
      c->apply(true, QStringLiteral("127.0.0.1"), 0, QStringLiteral("k3y"), 3);
      QVERIFY(c->running());
    }
    // The next start of the app: no model yet, then the window loads one.
    f.model = nullptr;
    auto c = f.make();
    QVERIFY(c->enabled());
    QCOMPARE(c->api_key(), QStringLiteral("k3y"));
    QCOMPARE(c->parallel(), 3);
    c->model_changed();
    QVERIFY(!c->running());
    QVERIFY(c->error().contains(QStringLiteral("No model")));
    f.model = demo();
    c->model_changed();
    QVERIFY2(c->running(), qPrintable(c->error()));
    QVERIFY(c->error().isEmpty());
    // Another model loaded: served from then on (the same file again stands in for it).
    auto other = kvchat::Model::load(KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf");
    QVERIFY(other);
    f.model = *other;
    c->model_changed();
    QVERIFY(c->running());
    QCOMPARE(c->model_id(), QStringLiteral("kjv-demo-f32"));
    // The window unloads: the server stops and says why.
    f.model = nullptr;
    c->model_changed();
    QVERIFY(!c->running());
  }

  // Issue 43: a restart for a new chat template keeps the counters and the request log
  // (the same server, the same model), says why (lastRestart, restarted), and the sessions
  // name their client; the log holds routes, statuses and tokens, not the message.
  void countersAndLogSurviveAChatTemplateRestart() {
    Fixture f;
    auto c = f.make();
    QSignalSpy restarted(c.get(), &LocalServerController::restarted);
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 1);
    QVERIFY2(c->running(), qPrintable(c->error()));
    QVERIFY(c->last_restart().isEmpty());  // a start is no restart
    QCOMPARE(restarted.count(), 0);
    QVERIFY(c->endpoints().contains(QStringLiteral("POST /v1/chat/completions")));
    const QByteArray chat =
        R"({"model":"kjv-demo-f16","max_tokens":4,"messages":[{"role":"user","content":"zebra quokka"}]})";
    QCOMPARE(request(c->url() + QStringLiteral("/chat/completions"), chat, {}, "editor-plugin/2.3")
                 .status,
             200);
    QTRY_COMPARE(c->stats().value(QStringLiteral("requests")).toLongLong(), 1);
    QTRY_COMPARE(c->request_log().size(), 1);
    const QVariantMap first = c->request_log()[0].toMap();
    QCOMPARE(first.value(QStringLiteral("route")).toString(),
             QStringLiteral("/v1/chat/completions"));
    QCOMPARE(first.value(QStringLiteral("status")).toInt(), 200);
    QCOMPARE(first.value(QStringLiteral("completion_tokens")).toInt(), 4);
    QVERIFY(first.value(QStringLiteral("prompt_tokens")).toInt() > 0);
    QCOMPARE(first.value(QStringLiteral("user_agent")).toString(),
             QStringLiteral("editor-plugin/2.3"));
    QVERIFY(first.value(QStringLiteral("message_text")).toString().isEmpty());
    const QVariantList sessions = c->stats().value(QStringLiteral("sessions")).toList();
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions[0].toMap().value(QStringLiteral("user_agent")).toString(),
             QStringLiteral("editor-plugin/2.3"));
    QCOMPARE(sessions[0].toMap().value(QStringLiteral("client_address")).toString(),
             QStringLiteral("127.0.0.1"));

    f.chat_template.enable_thinking = false;  // another template choice: a restart
    c->chat_template_changed();
    QVERIFY2(c->running(), qPrintable(c->error()));
    QCOMPARE(restarted.count(), 1);
    QVERIFY(restarted[0][0].toString().contains(QStringLiteral("the chat template changed")));
    QCOMPARE(c->last_restart().value(QStringLiteral("reason")).toString(),
             QStringLiteral("the chat template changed"));
    QVERIFY(c->last_restart().value(QStringLiteral("counters_kept")).toBool());
    QVERIFY(c->last_restart().value(QStringLiteral("time")).toLongLong() > 0);
    QCOMPARE(c->stats().value(QStringLiteral("requests")).toLongLong(), 1);  // kept
    QCOMPARE(c->request_log().size(), 1);
    QCOMPARE(request(c->url() + QStringLiteral("/chat/completions"), chat).status, 200);
    QTRY_COMPARE(c->stats().value(QStringLiteral("requests")).toLongLong(), 2);
    QTRY_COMPARE(c->request_log().size(), 2);
    QCOMPARE(c->request_log()[1].toMap().value(QStringLiteral("user_agent")).toString(),
             QStringLiteral("editor-plugin/2.3"));  // the older one, from before the restart
  }

  // Settings' Restart keeps them too; another model or the switch turned off starts again.
  void countersStartAgainWithAnotherModelOrOff() {
    Fixture f;
    auto c = f.make();
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 1);
    QVERIFY2(c->running(), qPrintable(c->error()));
    QCOMPARE(request(c->url() + QStringLiteral("/models")).status, 200);
    QTRY_COMPARE(c->request_log().size(), 1);
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 2);  // Restart
    QCOMPARE(c->last_restart().value(QStringLiteral("reason")).toString(),
             QStringLiteral("settings changed (Restart)"));
    QCOMPARE(c->request_log().size(), 1);

    auto other = kvchat::Model::load(KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf");
    QVERIFY(other);
    f.model = *other;
    c->model_changed();
    QVERIFY2(c->running(), qPrintable(c->error()));
    QCOMPARE(c->last_restart().value(QStringLiteral("reason")).toString(),
             QStringLiteral("another model was loaded"));
    QVERIFY(!c->last_restart().value(QStringLiteral("counters_kept")).toBool());
    QCOMPARE(c->request_log().size(), 0);

    QCOMPARE(request(c->url() + QStringLiteral("/models")).status, 200);
    QTRY_COMPARE(c->request_log().size(), 1);
    c->apply(false, c->host(), c->port(), QString(), 2);
    c->apply(true, c->host(), c->port(), QString(), 2);
    QVERIFY2(c->running(), qPrintable(c->error()));
    QCOMPARE(c->request_log().size(), 0);
    QCOMPARE(c->stats().value(QStringLiteral("requests")).toLongLong(), 0);
  }

  // The message's text is logged only once the user turns it on (saved), and dropped from
  // the log when turned off again.
  void theMessageTextOnlyWhenTurnedOn() {
    Fixture f;
    auto c = f.make();
    QVERIFY(!c->log_message_text());
    c->apply(true, QStringLiteral("127.0.0.1"), 0, QString(), 1);
    QVERIFY2(c->running(), qPrintable(c->error()));
    const QByteArray chat =
        R"({"model":"kjv-demo-f16","max_tokens":2,"messages":[{"role":"user","content":"zebra quokka"}]})";
    c->setLogMessageText(true);
    QCOMPARE(f.settings.value(QStringLiteral("server/log_message_text")).toBool(), true);
    QCOMPARE(request(c->url() + QStringLiteral("/chat/completions"), chat).status, 200);
    QTRY_COMPARE(c->request_log().size(), 1);
    QCOMPARE(c->request_log()[0].toMap().value(QStringLiteral("message_text")).toString(),
             QStringLiteral("zebra quokka"));
    c->setLogMessageText(false);
    QCOMPARE(c->request_log().size(), 1);
    QVERIFY(c->request_log()[0].toMap().value(QStringLiteral("message_text")).toString().isEmpty());
  }

  void loopbackAddresses() {
    QVERIFY(LocalServerController::isLoopback(QStringLiteral("127.0.0.1")));
    QVERIFY(LocalServerController::isLoopback(QStringLiteral(" localhost ")));
    QVERIFY(LocalServerController::isLoopback(QStringLiteral("::1")));
    QVERIFY(!LocalServerController::isLoopback(QStringLiteral("0.0.0.0")));
    QVERIFY(!LocalServerController::isLoopback(QStringLiteral("192.168.1.5")));
  }
};

QTEST_GUILESS_MAIN(TestLocalServer)
#include "test_local_server.moc"
