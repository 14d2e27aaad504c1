// Settings per model (issue 13 point 4): values kept per model file, checked against what
// the model is before they are applied — a block KV type at a head_dim it does not divide
// is refused with the reason, a context past the trained length is warned; through the
// controller a failed load offers retry, the previous model and the demo model, and fixing
// the setting retries.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "engine/engine_maps.h"
#include "settings/sampling_settings.h"
#include "settings/model_settings.h"

using kvchat::app::ChatController;
using kvchat::app::ModelFacts;
using kvchat::app::ModelSettingsBook;

namespace {

const QString kStories = QStringLiteral(KVCHAT_SHARED_DIR "/models/stories260K.gguf");
const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

ModelFacts facts(int head_dim, int n_ctx_train) {
  ModelFacts f;
  f.name = QStringLiteral("test");
  f.head_dim = head_dim;
  f.n_ctx_train = n_ctx_train;
  return f;
}

QStringList action_ids(const QVariantMap& notice) {
  QStringList ids;
  for (const QVariant& a : notice.value(QStringLiteral("actions")).toList()) {
    ids << a.toMap().value(QStringLiteral("id")).toString();
  }
  return ids;
}

}  // namespace

class TestModelSettings : public QObject {
  Q_OBJECT
 private slots:
  void blockKvTypesNeedAHeadDimTheyDivide() {
    // stories260K: head_dim 8; q8_0 and q4_0 store blocks of 32 values.
    QCOMPARE(kvchat::app::kv_type_block_values(QStringLiteral("q8_0")), 32);
    QCOMPARE(kvchat::app::kv_type_block_values(QStringLiteral("f16")), 1);
    const QString why = kvchat::app::kv_type_problem(QStringLiteral("q8_0"), facts(8, 2048));
    QVERIFY2(why.contains(QStringLiteral("32")) && why.contains(QStringLiteral("8")),
             qPrintable(why));
    QVERIFY(!kvchat::app::kv_type_problem(QStringLiteral("q4_0"), facts(8, 2048)).isEmpty());
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("f16"), facts(8, 2048)).isEmpty());
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0"), facts(32, 512)).isEmpty());
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0"), facts(64, 512)).isEmpty());
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0"), facts(48, 512))
                .contains(QStringLiteral("48")));
    // Unknown model: nothing to say yet (the load checks it once the file is read).
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0"), ModelFacts{}).isEmpty());
    QVERIFY(!kvchat::app::kv_type_problem(QStringLiteral("q5_k"), facts(32, 512)).isEmpty());
    // K and V typed apart: each type is checked; rotated types need a power-of-two head.
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0/q4_0r"), facts(32, 512)).isEmpty());
    QVERIFY(!kvchat::app::kv_type_problem(QStringLiteral("f16/q4_0"), facts(8, 2048)).isEmpty());
    QVERIFY(kvchat::app::kv_type_problem(QStringLiteral("q8_0/q4_0r"), facts(96, 512))
                .contains(QStringLiteral("power-of-two")));

    const auto issues =
        kvchat::app::check_model_settings({{"kv_type", "q8_0"}, {"ctx", 0}}, facts(8, 2048));
    QCOMPARE(issues.size(), 1);
    QCOMPARE(issues[0].key, QStringLiteral("kv_type"));
    QVERIFY(issues[0].blocking);
    QVERIFY(kvchat::app::has_blocking(issues));
  }

  void aContextPastTheTrainedLengthIsWarnedNotRefused() {
    auto issues =
        kvchat::app::check_model_settings({{"kv_type", "f16"}, {"ctx", 1024}}, facts(32, 512));
    QCOMPARE(issues.size(), 1);
    QCOMPARE(issues[0].key, QStringLiteral("ctx"));
    QVERIFY(!issues[0].blocking);
    QVERIFY2(issues[0].reason.contains(QStringLiteral("1024")) &&
                 issues[0].reason.contains(QStringLiteral("512")),
             qPrintable(issues[0].reason));
    QVERIFY(kvchat::app::check_model_settings({{"kv_type", "f16"}, {"ctx", 512}}, facts(32, 512))
                .isEmpty());
    QVERIFY(kvchat::app::check_model_settings({{"kv_type", "f16"}, {"ctx", 0}}, facts(32, 512))
                .isEmpty());
  }

  void valuesAreKeptPerModel() {
    // Legacy global settings are every model's defaults; "stop" and seed 0 (the old
    // defaults) are not; another seed, chosen, is.
    ModelSettingsBook book({},
                           {{"kv_type", "q4_0"}, {"context_policy", "stop"}, {"backend", "cpu"}},
                           {{"temperature", 0.5}, {"seed", 0}});
    QCOMPARE(book.engine("a").value("kv_type").toString(), QStringLiteral("q4_0"));
    QCOMPARE(book.engine("a").value("context_policy").toString(), QStringLiteral("drop-oldest"));
    QVERIFY(!book.engine("a").contains("backend"));  // machine-wide, not a model's
    QCOMPARE(book.sampling("a").value("temperature").toDouble(), 0.5);
    QCOMPARE(book.sampling("a").value("seed").toLongLong(), qint64{kvchat::app::kRandomSeed});
    QCOMPARE(ModelSettingsBook({}, {}, {{"seed", 42}}).sampling("a").value("seed").toLongLong(),
             qint64{42});

    book.set_engine("a", {{"kv_type", "q8_0"}, {"ctx", 4096}, {"backend", "cuda"}});
    book.set_sampling("b", {{"temperature", 1.1}, {"top_k", 100}});
    book.set_facts("b", facts(8, 2048));
    // Stored and read back: each model keeps its own.
    ModelSettingsBook again(book.to_variant());
    QCOMPARE(again.engine("a").value("kv_type").toString(), QStringLiteral("q8_0"));
    QCOMPARE(again.engine("a").value("ctx").toInt(), 4096);
    QVERIFY(!again.engine("a").contains("backend"));
    QCOMPARE(again.engine("b").value("kv_type").toString(), QStringLiteral("f16"));
    QCOMPARE(again.sampling("b").value("temperature").toDouble(), 1.1);
    QCOMPARE(again.sampling("a").value("temperature").toDouble(), 0.8);
    QCOMPARE(again.facts("b").head_dim, 8);
    QVERIFY(!again.facts("a").known());
    QVERIFY(again.has_own_settings("a") && again.has_own_settings("b") &&
            !again.has_own_settings("c"));
    QCOMPARE(ModelSettingsBook::sampling_presets().size(), 3);
  }

  // GPU layers (issue 27): auto (-1) unless the model has its own number, which is stored,
  // read back and is what the session is made with.
  void gpuLayersAreKeptPerModelAndReachTheSessionOptions() {
    ModelSettingsBook book;
    QCOMPARE(book.engine("a").value("gpu_layers").toInt(), -1);
    book.set_engine("a", {{"kv_type", "q8_0"}, {"gpu_layers", 12}});
    book.set_engine("b", {{"gpu_layers", 0}});
    ModelSettingsBook again(book.to_variant());
    QCOMPARE(again.engine("a").value("gpu_layers").toInt(), 12);
    QCOMPARE(again.engine("b").value("gpu_layers").toInt(), 0);
    QCOMPARE(again.engine("c").value("gpu_layers").toInt(), -1);
    QVariantMap settings = again.engine("a");
    settings.insert("backend", "cuda");  // machine-wide, beside the model's own
    auto a = kvchat::app::session_options(settings);
    QVERIFY(a);
    QCOMPARE(a->gpu_layers, 12);
    QCOMPARE(QString::fromStdString(a->kv_type), QStringLiteral("q8_0"));
    auto b = kvchat::app::session_options(again.engine("b"));
    QVERIFY(b);
    QCOMPARE(b->gpu_layers, 0);
    auto c = kvchat::app::session_options(again.engine("c"));
    QVERIFY(c);
    QCOMPARE(c->gpu_layers, -1);
    QCOMPARE(kvchat::app::session_options({})->gpu_layers, -1);  // older settings: auto
  }

  // stories260K with q8_0: refused with the reason, the banner offers Retry, the demo
  // model and the settings; fixing the setting (f16) retries and loads it.
  void aFailedLoadOffersItsWayOutAndFixingTheSettingRetries() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_demo_model_path(kDemo);
    chat.models()->set_engine_settings_for(kStories, {{"kv_type", "q8_0"}});
    chat.models()->loadModel(kStories);
    QVERIFY(QTest::qWaitFor([&] { return !chat.models()->loading(); }, 60000));
    QVERIFY2(chat.models()->error().contains(QStringLiteral("head_dim")),
             qPrintable(chat.models()->error()));
    QVERIFY(chat.models()->info().isEmpty());
    QCOMPARE(chat.notices()->notice().value("kind").toString(), QStringLiteral("load-failed"));
    QVERIFY2(chat.notices()->notice().value("text").toString().contains(QStringLiteral("q8_0")),
             qPrintable(chat.notices()->notice().value("text").toString()));
    const QStringList ids = action_ids(chat.notices()->notice());
    QVERIFY2(ids.contains("retry") && ids.contains("demo") && ids.contains("settings"),
             qPrintable(ids.join(',')));
    // The drawer shows stories260K's settings and facts: q8_0 disabled with the reason.
    QCOMPARE(chat.models()->settings_model(), kStories);
    QCOMPARE(chat.models()->settings_model_facts().value("head_dim").toInt(), 8);
    QVERIFY(!chat.models()->kvTypeProblem(QStringLiteral("q8_0")).isEmpty());
    QVERIFY(chat.models()->kvTypeProblem(QStringLiteral("f32")).isEmpty());
    QVERIFY(!chat.models()->checkEngineSettings({{"ctx", 4096}}).isEmpty());  // past 2048: warned

    // Retry: checked before the worker (the facts are known now), the same reason.
    chat.notices()->noticeAction(QStringLiteral("retry"));
    QVERIFY(QTest::qWaitFor([&] { return !chat.models()->loading(); }, 60000));
    QVERIFY(chat.models()->error().contains(QStringLiteral("head_dim")));

    // A blocking setting is refused with the reason; a fixed one retries the load.
    QSignalSpy errors(&chat, &ChatController::errorOccurred);
    chat.models()->setEngineSettings({{"kv_type", "q4_0"}});
    QCOMPARE(errors.count(), 1);
    QCOMPARE(chat.models()->engine_settings().value("kv_type").toString(), QStringLiteral("q8_0"));
    chat.models()->setEngineSettings({{"kv_type", "f16"}});
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000));
    QVERIFY(chat.models()->error().isEmpty());
    QCOMPARE(chat.models()->info().value("kv_type").toString(), QStringLiteral("f16"));
    QVERIFY(chat.notices()->notice().isEmpty());
    // The KV types' quality measured on it: the block types listed as unusable, f32 measured.
    QVERIFY(QTest::qWaitFor([&] { return !chat.memory_state()->kv_quality().isEmpty(); }, 60000));
    QVERIFY(chat.memory_state()->kv_quality().value("unusable").toMap().contains("q8_0"));
    QVERIFY(chat.memory_state()->kv_quality().value("types").toMap().contains("f32"));

    // Kept per model: the demo model (head_dim 32) takes q8_0, stories260K keeps f16.
    chat.models()->set_engine_settings_for(kDemo, {{"kv_type", "q8_0"}});
    chat.notices()->noticeAction(QStringLiteral("demo"));  // no banner now: nothing happens
    chat.models()->loadModel(kDemo);
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && chat.models()->info().value("path") == kDemo; },
        60000));
    QCOMPARE(chat.models()->info().value("kv_type").toString(), QStringLiteral("q8_0"));
    QCOMPARE(chat.models()->engine_settings().value("kv_type").toString(), QStringLiteral("q8_0"));
    chat.models()->loadModel(kStories);
    QVERIFY(QTest::qWaitFor(
        [&] {
          return !chat.models()->loading() && chat.models()->info().value("path") == kStories;
        },
        60000));
    QCOMPARE(chat.models()->info().value("kv_type").toString(), QStringLiteral("f16"));
  }

  // A failed load with another model loaded: "Keep" goes back to it; the demo action loads the
  // demo.
  void theDemoAndThePreviousModelAreOffered() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->set_demo_model_path(kDemo);
    chat.models()->loadModel(kStories);
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000));
    chat.models()->loadModel(dir.filePath(QStringLiteral("missing.gguf")));
    QVERIFY(QTest::qWaitFor([&] { return !chat.models()->loading(); }, 60000));
    QVERIFY(!chat.models()->error().isEmpty());
    QStringList ids = action_ids(chat.notices()->notice());
    QVERIFY2(ids.contains("previous") && ids.contains("demo") && ids.contains("retry"),
             qPrintable(ids.join(',')));
    chat.notices()->noticeAction(QStringLiteral("previous"));
    QVERIFY(chat.notices()->notice().isEmpty());
    QVERIFY(chat.models()->error().isEmpty());
    QCOMPARE(chat.models()->settings_model(), kStories);

    chat.models()->loadModel(dir.filePath(QStringLiteral("missing.gguf")));
    QVERIFY(QTest::qWaitFor([&] { return !chat.models()->loading(); }, 60000));
    chat.notices()->noticeAction(QStringLiteral("demo"));
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && chat.models()->info().value("path") == kDemo; },
        60000));
    QVERIFY(chat.notices()->notice().isEmpty());
  }

  // Issue 43: new engine settings reload the loaded model, and the status line says so as
  // it starts (the settings' note); settings that are not the loaded model's reload nothing
  // and say nothing; sampling applies without a reload.
  void aReloadIsSaidAsItStarts() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    chat.models()->loadModel(kDemo);
    QVERIFY(QTest::qWaitFor(
        [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000));
    QSignalSpy notes(chat.models(), &kvchat::app::ModelController::settingNote);
    QSignalSpy loads(chat.models(), &kvchat::app::ModelController::loadStarted);
    chat.models()->setEngineSettings({{"ctx", 256}});
    QCOMPARE(loads.count(), 1);
    QCOMPARE(notes.count(), 1);
    const QString note = notes.at(0).at(0).toString();
    QVERIFY2(note.contains(QStringLiteral("Reloading kjv-demo-f16.gguf")) &&
                 note.contains(QStringLiteral("computed again")),
             qPrintable(note));
    QVERIFY2(chat.last_event().contains(note), qPrintable(chat.last_event()));
    QVERIFY(QTest::qWaitFor([&] { return !chat.models()->loading(); }, 60000));
    QCOMPARE(chat.models()->info().value("n_ctx").toInt(), 256);

    // Another file's settings: kept for it, nothing reloaded, nothing said.
    notes.clear();
    loads.clear();
    chat.models()->set_engine_settings_for(kStories, {{"ctx", 128}});
    QCOMPARE(loads.count(), 0);
    QCOMPARE(notes.count(), 0);
    // Sampling: applied at once, no reload.
    QVariantMap sampling = chat.models()->sampling();
    sampling.insert(QStringLiteral("temperature"), 0.3);
    chat.models()->set_sampling(sampling);
    QCOMPARE(loads.count(), 0);
    QCOMPARE(chat.models()->reply_sampling().value("temperature").toDouble(), 0.3);
  }
};

QTEST_GUILESS_MAIN(TestModelSettings)
#include "test_model_settings.moc"
