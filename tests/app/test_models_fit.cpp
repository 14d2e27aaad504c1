// The Models page's fit (app/models_fit) from a local GGUF, without the network: the KV
// is computed at the context the model would run with, the requested one cut to the
// trained context (issue 26: "KV at 4,096 tokens" for a model trained on 512 tokens).
#include <QtTest>

#include "kvchat/gguf_inspect.h"
#include "library/models_fit.h"

using kvchat::app::fit_map_for;

namespace {

const QString kDemo =
    QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");  // trained on 512
const QString kStories =
    QStringLiteral(KVCHAT_SHARED_DIR "/models/stories260K.gguf");  // trained on 2048
constexpr qint64 kFree = qint64(1) << 30;

qint64 number(const QVariantMap& m, const char* key) {
  return qint64(m.value(QLatin1String(key)).toDouble());
}

}  // namespace

class TestModelsFit : public QObject {
  Q_OBJECT
 private slots:
  // Asked for 4,096 tokens, a model trained on 512 runs with 512: the KV (and the total)
  // are at 512, the map says what was asked and that it was cut.
  void aLongerContextIsCutToTheTrainedOne() {
    auto demo = kvchat::inspect_gguf_file(kDemo.toStdString());
    QVERIFY(demo);
    QCOMPARE(demo->n_ctx_train, 512);
    QString error;
    const QVariantMap m = fit_map_for(*demo, 4096, QStringLiteral("f16"), kFree, 0, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const auto at_trained = demo->fit(512, "f16", uint64_t(kFree));
    QVERIFY(at_trained);
    QCOMPARE(number(m, "n_ctx"), qint64(512));
    QCOMPARE(number(m, "kv_bytes"), qint64(1536) * 512);  // 2 x 6 x 2 x 32 x 2 bytes per token
    QCOMPARE(number(m, "kv_bytes"), qint64(at_trained->kv_bytes));
    QCOMPARE(number(m, "total_bytes"), qint64(at_trained->total_bytes));
    QCOMPARE(number(m, "concurrent_conversations"), qint64(at_trained->concurrent_conversations));
    QCOMPARE(number(m, "requested_ctx"), qint64(4096));
    QCOMPARE(m.value(QStringLiteral("ctx_cut_to_trained")).toBool(), true);
    QCOMPARE(kvchat::app::run_context(4096, 512), 512);
  }

  // A shorter context is used as asked; none (0) is the trained context; a model trained
  // on 2,048 tokens is cut at 2,048.
  void shorterNoneAndOtherModels() {
    auto demo = kvchat::inspect_gguf_file(kDemo.toStdString());
    auto stories = kvchat::inspect_gguf_file(kStories.toStdString());
    QVERIFY(demo && stories);
    QString error;
    const QVariantMap shorter = fit_map_for(*demo, 256, QStringLiteral("q8_0"), kFree, 0, &error);
    QCOMPARE(number(shorter, "n_ctx"), qint64(256));
    QCOMPARE(number(shorter, "kv_bytes"),
             qint64(demo->fit(256, "q8_0", uint64_t(kFree))->kv_bytes));
    QCOMPARE(shorter.value(QStringLiteral("ctx_cut_to_trained")).toBool(), false);
    const QVariantMap none = fit_map_for(*demo, 0, QStringLiteral("f16"), kFree, 0, &error);
    QCOMPARE(number(none, "n_ctx"), qint64(512));
    QCOMPARE(none.value(QStringLiteral("ctx_cut_to_trained")).toBool(), false);
    QCOMPARE(stories->n_ctx_train, 2048);
    const QVariantMap s = fit_map_for(*stories, 4096, QStringLiteral("f16"), kFree, 0, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(number(s, "n_ctx"), qint64(2048));
    QCOMPARE(number(s, "kv_bytes"), qint64(stories->fit(2048, "f16", uint64_t(kFree))->kv_bytes));
    QCOMPARE(s.value(QStringLiteral("ctx_cut_to_trained")).toBool(), true);
    QCOMPARE(kvchat::app::run_context(1000, 0), 1000);  // no trained context known: as asked
    QCOMPARE(kvchat::app::run_context(0, 512), 512);
  }
};

QTEST_GUILESS_MAIN(TestModelsFit)
#include "test_models_fit.moc"
