// The model picker (issue 43 point 7). Its figures before a load: what the options will
// take (ModelLibraryController::loadEstimate) is the formula worked by hand from the demo
// model's header. Its Load, through the chat as the window uses it: the options chosen
// before the load (context, KV type, context policy, GPU layers) become that model's own
// settings, the load runs with them and they are there again after a restart; the loaded
// model chosen again with other options is reloaded once, with them; options a model
// cannot use load nothing and keep nothing.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include "chat/chat_controller.h"
#include "kvchat/gguf_inspect.h"
#include "library/model_library_controller.h"
#include "model/model_controller.h"

using kvchat::app::ChatController;
using kvchat::app::ModelController;
using kvchat::app::ModelLibraryController;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");
const QString kStories = QStringLiteral(KVCHAT_SHARED_DIR "/models/stories260K.gguf");

// The model at `path` is loaded (not loading) with a context of n_ctx tokens.
bool loaded_with(ChatController& chat, const QString& path, int n_ctx) {
  return QTest::qWaitFor(
      [&] {
        const QVariantMap info = chat.models()->info();
        return !chat.models()->loading() &&
               QFileInfo(info.value("path").toString()).canonicalFilePath() ==
                   QFileInfo(path).canonicalFilePath() &&
               info.value("n_ctx").toInt() == n_ctx;
      },
      60000);
}

}  // namespace

class TestModelPicker : public QObject {
  Q_OBJECT
 private slots:
  // The KV cache of the demo model is 2 (K and V) x layers x tokens x KV heads x head_dim x
  // bytes per value, at two contexts, in f16 (2 bytes) and q8_0 (blocks of 32 values: 32
  // bytes + an f16 scale = 34/32 bytes per value); the weights are the header's; the total
  // is weights + the KV allocated.
  void loadEstimateIsTheFormula() {
    const QString path = kDemo;
    auto in = kvchat::inspect_gguf_file(path.toStdString());
    QVERIFY(in);
    const qint64 layers = in->n_layers, kv_heads = in->n_kv_heads, head_dim = in->head_dim;
    QVERIFY(layers > 0 && kv_heads > 0 && head_dim > 0);
    QVERIFY(in->n_ctx_train >= 512);
    QTemporaryDir models;
    ModelLibraryController library(models.path(), nullptr, {});
    for (const qint64 ctx : {128, 512}) {
      const QVariantMap f16 = library.loadEstimate(path, int(ctx), "f16", -1);
      QCOMPARE(f16.value("error").toString(), QString());
      QCOMPARE(f16.value("n_ctx").toLongLong(), ctx);
      QCOMPARE(f16.value("kv_bytes").toLongLong(), 2 * layers * ctx * kv_heads * head_dim * 2);
      QCOMPARE(f16.value("weights_bytes").toLongLong(), qint64(in->weight_bytes));
      const qint64 allocated = f16.value("kv_allocated_bytes").toLongLong();
      QVERIFY(allocated >= f16.value("kv_bytes").toLongLong());
      QCOMPARE(f16.value("total_bytes").toLongLong(), qint64(in->weight_bytes) + allocated);
      QCOMPARE(f16.value("fits").toBool(),
               f16.value("total_bytes").toDouble() <= f16.value("free_bytes").toDouble());
      QCOMPARE(f16.value("file_name").toString(), QFileInfo(path).fileName());
      QCOMPARE(f16.value("n_ctx_train").toInt(), in->n_ctx_train);
      const QString text = f16.value("fit_text").toString();
      QVERIFY2(text.contains(QLocale().toString(ctx)), qPrintable(text));

      const QVariantMap q8 = library.loadEstimate(path, int(ctx), "q8_0", -1);
      QCOMPARE(q8.value("error").toString(), QString());
      QCOMPARE(q8.value("kv_bytes").toLongLong(), 2 * layers * ctx * kv_heads * head_dim * 34 / 32);
    }
    // A file URL (the file dialog's) is the same file.
    QCOMPARE(library.loadEstimate(QUrl::fromLocalFile(path).toString(), 128, "f16", -1)
                 .value("kv_bytes")
                 .toLongLong(),
             2 * layers * 128 * kv_heads * head_dim * 2);
    // Past the trained context: the trained one, as the load would run it.
    QCOMPARE(library.loadEstimate(path, in->n_ctx_train * 4, "f16", -1).value("n_ctx").toInt(),
             in->n_ctx_train);
    // No figures where there are none: a KV type the engine does not have, a cut file.
    const QVariantMap unknown = library.loadEstimate(path, 128, "q4_1", -1);
    QVERIFY(!unknown.value("error").toString().isEmpty());
    QVERIFY(!unknown.value("fits").toBool());
    QVERIFY(!unknown.value("fit_text").toString().isEmpty());
    QFile whole(path);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    QFile cut(QDir(models.path()).filePath("cut.gguf"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(whole.read(200));
    cut.close();
    const QVariantMap cut_estimate = library.loadEstimate(cut.fileName(), 128, "f16", -1);
    QVERIFY(!cut_estimate.value("error").toString().isEmpty());
    QVERIFY(!cut_estimate.value("fits").toBool());
    // The engine's KV types are the picker's choices.
    QCOMPARE(ModelLibraryController::kv_types(),
             QStringList({"f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r"}));
  }

  // K and V typed apart in the settings ("K/V"): the session runs with both types and the
  // memory report names them.
  void keysAndValuesTypedApartLoad() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    ModelController& models = *chat.models();
    QVERIFY(models.loadModelWith(kDemo, {{"ctx", 256}, {"kv_type", "q8_0/q4_0r"}}));
    QVERIFY(loaded_with(chat, kDemo, 256));
    QCOMPARE(models.info().value("kv_type").toString(), QStringLiteral("q8_0/q4_0r"));
    QCOMPARE(models.engineSettingsOf(kDemo).value("kv_type").toString(),
             QStringLiteral("q8_0/q4_0r"));
  }

  void loadWithKeepsTheOptionsForThatModel() {
    QTemporaryDir dir;
    {
      ChatController chat(dir.path());
      ModelController& models = *chat.models();
      QVERIFY(!models.engineSettingsOf(kDemo).value("has_own_settings").toBool());
      QSignalSpy started(&models, &ModelController::loadStarted);
      QVERIFY(models.loadModelWith(
          kDemo,
          {{"ctx", 256}, {"kv_type", "q8_0"}, {"context_policy", "shift"}, {"gpu_layers", -1}}));
      QVERIFY(loaded_with(chat, kDemo, 256));
      QCOMPARE(started.size(), 1);
      QCOMPARE(models.info().value("kv_type").toString(), QStringLiteral("q8_0"));
      QCOMPARE(models.info().value("context_policy").toString(), QStringLiteral("shift"));
      const QVariantMap own = models.engineSettingsOf(kDemo);
      QVERIFY(own.value("has_own_settings").toBool());
      QCOMPARE(own.value("ctx").toInt(), 256);
      QCOMPARE(own.value("kv_type").toString(), QStringLiteral("q8_0"));
      QCOMPARE(own.value("context_policy").toString(), QStringLiteral("shift"));
      QCOMPARE(own.value("gpu_layers").toInt(), -1);
      // The Settings drawer shows the same values for the loaded model.
      QCOMPARE(models.engine_settings().value("ctx").toInt(), 256);

      // The loaded model picked again (as the file dialog names it, a URL) with another
      // context: one reload, with it.
      started.clear();
      QVERIFY(models.loadModelWith(QUrl::fromLocalFile(kDemo).toString(),
                                   {{"ctx", 128},
                                    {"kv_type", "f16"},
                                    {"context_policy", "drop-oldest"},
                                    {"gpu_layers", -1}}));
      QVERIFY(loaded_with(chat, kDemo, 128));
      QTest::qWait(200);  // a second load would have started by now
      QCOMPARE(started.size(), 1);
      QCOMPARE(models.info().value("kv_type").toString(), QStringLiteral("f16"));
    }
    // Kept for that model: the next run starts from them.
    ChatController again(dir.path());
    const QVariantMap kept = again.models()->engineSettingsOf(kDemo);
    QCOMPARE(kept.value("ctx").toInt(), 128);
    QCOMPARE(kept.value("context_policy").toString(), QStringLiteral("drop-oldest"));
    again.models()->loadModel(kDemo);
    QVERIFY(loaded_with(again, kDemo, 128));
  }

  void optionsTheModelCannotUseLoadNothing() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    ModelController& models = *chat.models();
    // Loaded once, its shape is known: head_dim 8, too short for q8_0's blocks of 32.
    QVERIFY(models.loadModelWith(kStories, {{"ctx", 128}, {"kv_type", "f16"}}));
    QVERIFY(loaded_with(chat, kStories, 128));
    QSignalSpy started(&models, &ModelController::loadStarted);
    QSignalSpy errors(&models, &ModelController::errorOccurred);
    QVERIFY(!models.loadModelWith(kStories, {{"ctx", 256}, {"kv_type", "q8_0"}}));
    QCOMPARE(errors.size(), 1);
    QTest::qWait(200);
    QCOMPARE(started.size(), 0);
    QCOMPARE(models.engineSettingsOf(kStories).value("kv_type").toString(), QStringLiteral("f16"));
    QCOMPARE(models.engineSettingsOf(kStories).value("ctx").toInt(), 128);
    QCOMPARE(models.info().value("n_ctx").toInt(), 128);
  }
};

QTEST_GUILESS_MAIN(TestModelPicker)
#include "test_model_picker.moc"
