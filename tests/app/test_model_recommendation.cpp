// The welcome's recommended chat models (library/model_recommendation.h, issue 43 point 8)
// on the app's own catalog (resources/models_catalog.json) at given free-memory figures: at
// most three, every one a chat model that holds 4,096 tokens and fits (weights + KV at
// 4,096 tokens, the engine's fit arithmetic), smallest download first, and no smaller one
// that fits left out; base models, entries without a shape and files that do not fit are
// never recommended.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "library/model_recommendation.h"

using namespace kvchat::app;

namespace {

QVariantList real_catalog() {
  QFile f(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll())
      .object()
      .value(QStringLiteral("models"))
      .toArray()
      .toVariantList();
}

QVariantMap by_repo(const QVariantList& catalog, const QString& repo) {
  for (const QVariant& v : catalog)
    if (v.toMap().value(QStringLiteral("repo")).toString() == repo) return v.toMap();
  return {};
}

double size_of(const QVariant& r) { return r.toMap().value(QStringLiteral("size")).toDouble(); }

// Weights + f16 KV at 4,096 tokens, from the catalog's figures alone (2 x layers x KV heads
// x head_dim x 2 bytes per token): what the engine's plan gives at a whole number of blocks.
double needed_bytes(const QVariantMap& entry) {
  const QVariantMap s = entry.value(QStringLiteral("shape")).toMap();
  const double per_token = 2.0 * s.value("n_layers").toDouble() * s.value("n_kv_heads").toDouble() *
                           s.value("head_dim").toDouble() * 2.0;
  return recommended_file(entry).value(QStringLiteral("size")).toDouble() + per_token * 4096;
}

bool eligible(const QVariantMap& entry, double free) {
  return entry.value(QStringLiteral("chat")).toBool() &&
         entry.value(QStringLiteral("shape")).toMap().value("n_ctx_train").toInt() >= 4096 &&
         needed_bytes(entry) <= free;
}

QStringList names(const QVariantList& list) {
  QStringList out;
  for (const QVariant& v : list) out.append(v.toMap().value(QStringLiteral("name")).toString());
  return out;
}

QVariantMap entry(const QString& name, double size, bool chat, bool shape = true) {
  QVariantMap m{
      {"name", name},
      {"repo", QStringLiteral("test/%1").arg(name)},
      {"architecture", "llama"},
      {"chat", chat},
      {"files",
       QVariantList{
           QVariantMap{{"quant", "Q8_0"}, {"file", name + "-Q8_0.gguf"}, {"size", size * 2}},
           QVariantMap{{"quant", "Q4_K_M"}, {"file", name + "-Q4_K_M.gguf"}, {"size", size}}}}};
  if (shape)
    m.insert(
        "shape",
        QVariantMap{{"n_layers", 16}, {"n_kv_heads", 8}, {"head_dim", 64}, {"n_ctx_train", 8192}});
  return m;
}

}  // namespace

class TestModelRecommendation : public QObject {
  Q_OBJECT

 private slots:
  void theRealCatalogHasChatModelsWithShapes() {
    const QVariantList catalog = real_catalog();
    QVERIFY(catalog.size() >= 11);
    for (const QVariant& v : catalog) {
      const QVariantMap m = v.toMap();
      QVERIFY2(m.value("chat").toBool(), qPrintable(m.value("name").toString()));
      const QVariantMap s = m.value("shape").toMap();
      for (const char* key : {"n_layers", "n_kv_heads", "head_dim", "n_ctx_train"})
        QVERIFY2(s.value(key).toInt() > 0, qPrintable(m.value("name").toString() + " " + key));
      QVERIFY(!recommended_file(m).isEmpty());
    }
  }

  // At several free-memory figures: the results fit, are chat models that hold 4,096
  // tokens, at most three, smallest first, and exactly the smallest ones that fit.
  void theRecommendationsFitAndAreTheSmallest() {
    const QVariantList catalog = real_catalog();
    for (double free : {0.6e9, 1.0e9, 2.0e9, 4.0e9, 8.0e9, 64.0e9}) {
      const QVariantList got = recommend_catalog_models(catalog, qint64(free));
      QVERIFY(got.size() <= 3);
      QList<double> want_sizes;
      for (const QVariant& v : catalog)
        if (eligible(v.toMap(), free))
          want_sizes.append(recommended_file(v.toMap()).value("size").toDouble());
      std::sort(want_sizes.begin(), want_sizes.end());
      QCOMPARE(got.size(), std::min<qsizetype>(want_sizes.size(), 3));
      for (int i = 0; i < got.size(); ++i) {
        const QVariantMap r = got[i].toMap();
        const QVariantMap m = by_repo(catalog, r.value("repo").toString());
        QVERIFY(m.value("chat").toBool());
        QVERIFY(r.value("fits").toBool());
        const QVariantMap fit = r.value("fit").toMap();
        QVERIFY(fit.value("fits").toBool());
        QVERIFY(fit.value("total_bytes").toDouble() <= free);
        QCOMPARE(fit.value("free_bytes").toDouble(), free);
        QCOMPARE(r.value("n_ctx").toInt(), 4096);
        QCOMPARE(size_of(got[i]), want_sizes[i]);
        if (i > 0) QVERIFY(size_of(got[i - 1]) <= size_of(got[i]));
      }
    }
  }

  // The catalog as it is today: which models, and the engine's KV figures for one of them.
  void theChoicesOnTheShippedCatalog() {
    const QVariantList catalog = real_catalog();
    const QVariantList big = recommend_catalog_models(catalog, qint64(8e9));
    // TinyLlama (669 MB) is smaller than Llama 3.2 1B but holds only 2,048 tokens.
    QCOMPARE(names(big), QStringList({"Qwen 2.5 0.5B Instruct", "Llama 3.2 1B Instruct",
                                      "SmolLM2 1.7B Instruct"}));
    const QVariantMap llama = big[1].toMap();
    QCOMPARE(llama.value("quant").toString(), QStringLiteral("Q4_K_M"));
    QCOMPARE(llama.value("file").toString(), QStringLiteral("Llama-3.2-1B-Instruct-Q4_K_M.gguf"));
    // 16 layers x 8 KV heads x 64 x 2 (K and V) x 2 bytes x 4,096 tokens.
    QCOMPARE(qint64(llama.value("fit").toMap().value("kv_bytes").toDouble()),
             qint64(16 * 8 * 64 * 2 * 2) * 4096);
    QCOMPARE(qint64(llama.value("fit").toMap().value("weights_bytes").toDouble()),
             qint64(807690000));
    // 1 GB: Qwen 0.5B (541 MB with its KV) and Llama 3.2 1B (942 MB); nothing else.
    QCOMPARE(names(recommend_catalog_models(catalog, qint64(1e9))),
             QStringList({"Qwen 2.5 0.5B Instruct", "Llama 3.2 1B Instruct"}));
    // 300 MB: none fits.
    QVERIFY(recommend_catalog_models(catalog, qint64(3e8)).isEmpty());
  }

  // A base model, an entry without a shape: never; the Q4_K_M file is the one checked;
  // the count is capped.
  void onlyChatModelsWithAKnownFit() {
    const QVariantList catalog{entry("base", 1e8, false), entry("noshape", 1.5e8, true, false),
                               entry("a", 4e8, true), entry("b", 3e8, true), entry("c", 2e8, true)};
    QCOMPARE(names(recommend_catalog_models(catalog, qint64(16e9))), QStringList({"c", "b", "a"}));
    QCOMPARE(names(recommend_catalog_models(catalog, qint64(16e9), 4096, "f16", 2)),
             QStringList({"c", "b"}));
    const QVariantList got = recommend_catalog_models(catalog, qint64(16e9));
    QCOMPARE(got[0].toMap().value("file").toString(), QStringLiteral("c-Q4_K_M.gguf"));
    QCOMPARE(size_of(got[0]), 2e8);
    // Without a Q4_K_M file: the smallest.
    QVariantMap only_q8 = entry("q8", 1e8, true);
    only_q8["files"] =
        QVariantList{QVariantMap{{"quant", "Q8_0"}, {"file", "x.gguf"}, {"size", 5e8}},
                     QVariantMap{{"quant", "F16"}, {"file", "y.gguf"}, {"size", 9e8}}};
    QCOMPARE(recommended_file(only_q8).value("file").toString(), QStringLiteral("x.gguf"));
  }
};

QTEST_GUILESS_MAIN(TestModelRecommendation)
#include "test_model_recommendation.moc"
