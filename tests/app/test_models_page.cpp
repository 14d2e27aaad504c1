// ModelsPageController against the fake Hub (tests/hub/fake_hub.py on 127.0.0.1 through
// HF_ENDPOINT; nothing touches the internet): the shipped catalog is well formed, a
// search lists the repository, its files come with the Hub's size and SHA-256 (unsafe
// names left out), the fit is the engine's for the file, a download lands in the models
// directory and is handed to the model opener, and an unreachable Hub is said once.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include "hub/download_http.h"
#include "hub/fake_hub_process.h"
#include "hub/names.h"
#include "kvchat/gguf_inspect.h"
#include "library/models_page_controller.h"
#include "store/conversation_store.h"
#include "util/byte_size.h"

using kvchat::app::ConversationStore;
using kvchat::app::ModelsPageController;

namespace {

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");

QVariantMap file_entry(const ModelsPageController& c, const QString& path) {
  for (const QVariant& v : c.files())
    if (v.toMap().value(QStringLiteral("path")).toString() == path) return v.toMap();
  return {};
}

// A Hub address nobody answers at: a local port listened on, then closed ("" when no port
// could be had).
QString unreachable_hub_url() {
  QTcpServer closed;
  if (!closed.listen(QHostAddress::LocalHost)) return {};
  const quint16 port = closed.serverPort();
  closed.close();
  return QStringLiteral("http://127.0.0.1:%1").arg(port);
}

}  // namespace

class TestModelsPage : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  kvchat::test::FakeHubProcess hub_;
  int n_ = 0;

  // A data directory with a migrated database (as the app has when the page starts).
  QString fresh_data_dir() {
    const QString d = dir_.filePath(QStringLiteral("data%1").arg(++n_));
    QDir().mkpath(d);
    QString error;
    auto store = ConversationStore::open(ConversationStore::default_path(d), &error);
    if (!store) qWarning("%s", qPrintable(error));
    return d;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY2(hub_.start(), qPrintable(hub_.error()));
    qputenv("HF_ENDPOINT", hub_.url().toString().toUtf8());
    qunsetenv("HF_TOKEN");
  }

  // resources/models_catalog.json: names the Hub and the downloads accept, sizes marked
  // approximate, an architecture kvchat runs and a licence for every file.
  void theCatalogIsWellFormed() {
    const QJsonObject root =
        QJsonDocument::fromJson(
            read_all(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json")))
            .object();
    const QJsonArray models = root.value(QStringLiteral("models")).toArray();
    QVERIFY(models.size() >= 11);
    QStringList names;
    for (const QJsonValue& v : models) {
      const QJsonObject m = v.toObject();
      const QString repo = m.value(QStringLiteral("repo")).toString();
      names.append(m.value(QStringLiteral("name")).toString());
      QVERIFY2(kvchat::hub::valid_repo_id(repo), qPrintable(repo));
      QVERIFY(QStringList({"llama", "qwen2", "gemma2", "phi3"})
                  .contains(m.value(QStringLiteral("architecture")).toString()));
      QVERIFY(!m.value(QStringLiteral("license")).toString().isEmpty());
      const QJsonArray files = m.value(QStringLiteral("files")).toArray();
      QVERIFY(!files.isEmpty());
      for (const QJsonValue& fv : files) {
        const QJsonObject f = fv.toObject();
        QString why;
        const QString file = f.value(QStringLiteral("file")).toString();
        QVERIFY2(kvchat::hub::valid_file_path(file), qPrintable(file));
        QCOMPARE(kvchat::hub::download::local_file_name(file, &why), file);
        QVERIFY(f.value(QStringLiteral("size")).toDouble() > 1e8);
        QVERIFY(f.value(QStringLiteral("size_approx")).toBool());
        QVERIFY(!f.value(QStringLiteral("quant")).toString().isEmpty());
      }
    }
    for (const char* want :
         {"Llama 3.2 1B", "Llama 3.2 3B", "Qwen 2.5 0.5B", "Qwen 2.5 7B", "SmolLM2 1.7B",
          "Gemma 2 2B", "Phi-3.5 mini", "Mistral 7B", "TinyLlama 1.1B"}) {
      bool found = false;
      for (const QString& n : names) found |= n.startsWith(QLatin1String(want));
      QVERIFY2(found, want);
    }
    ModelsPageController c(
        fresh_data_dir(),
        ConversationStore::default_path(dir_.filePath(QStringLiteral("data%1").arg(n_))), QString(),
        nullptr);
    c.load_catalog_from(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
    QCOMPARE(c.catalog().size(), models.size());
  }

  // Search, the files, the fit (the engine's own figures for the shared file), download:
  // opened with the file the Hub has.
  void searchFitDownloadAndOpen() {
    const QString data = fresh_data_dir();
    QStringList opened;
    ModelsPageController c(data, ConversationStore::default_path(data), QString(),
                           [&opened](const QString& p) { opened.append(p); });
    QCOMPARE(c.endpoint(), hub_.url().toString());
    c.search(QStringLiteral("kjv-demo"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.searching(), 20000);
    QCOMPARE(c.search_results().size(), 1);
    QCOMPARE(c.search_results()[0].toMap().value(QStringLiteral("id")).toString(),
             QStringLiteral("kvchat/kjv-demo-GGUF"));
    c.openRepo(QStringLiteral("kvchat/kjv-demo-GGUF"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    QCOMPARE(c.files().size(), 1);  // README.md is not a GGUF
    QVariantMap f = file_entry(c, QStringLiteral("kjv-demo-f16.gguf"));
    const QByteArray demo = read_all(kDemo);
    QCOMPARE(qint64(f.value(QStringLiteral("size")).toDouble()), qint64(demo.size()));
    QCOMPARE(
        f.value(QStringLiteral("sha256")).toString(),
        QString::fromLatin1(QCryptographicHash::hash(demo, QCryptographicHash::Sha256).toHex()));
    // The fit read from the remote header equals the engine's on the local file.
    QTRY_VERIFY_WITH_TIMEOUT(
        file_entry(c, QStringLiteral("kjv-demo-f16.gguf")).value(QStringLiteral("fit_state")) !=
            QLatin1String("reading"),
        20000);
    f = file_entry(c, QStringLiteral("kjv-demo-f16.gguf"));
    QCOMPARE(f.value(QStringLiteral("fit_state")).toString(), QStringLiteral("done"));
    const QVariantMap fit = f.value(QStringLiteral("fit")).toMap();
    auto local = kvchat::inspect_gguf_file(kDemo.toStdString());
    QVERIFY(local);
    // The page asks for 4,096 tokens; the demo, trained on 512, runs with 512: the KV is at 512.
    QCOMPARE(c.fit_context(), 4096);
    QCOMPARE(qint64(fit.value(QStringLiteral("n_ctx")).toDouble()), qint64(512));
    QCOMPARE(qint64(fit.value(QStringLiteral("requested_ctx")).toDouble()), qint64(4096));
    QCOMPARE(fit.value(QStringLiteral("ctx_cut_to_trained")).toBool(), true);
    const auto want =
        local->fit(512, "f16", uint64_t(fit.value(QStringLiteral("free_bytes")).toDouble()));
    QVERIFY(want);
    QCOMPARE(fit.value(QStringLiteral("runnable")).toBool(), true);
    QCOMPARE(fit.value(QStringLiteral("architecture")).toString(), QStringLiteral("llama"));
    QCOMPARE(qint64(fit.value(QStringLiteral("weights_bytes")).toDouble()),
             qint64(want->weights_bytes));
    QCOMPARE(qint64(fit.value(QStringLiteral("kv_bytes")).toDouble()), qint64(want->kv_bytes));
    QCOMPARE(qint64(fit.value(QStringLiteral("kv_bytes")).toDouble()),
             qint64(1536) * 512);  // 2 x 6 x 2 x 32 x 2 bytes per token
    QCOMPARE(qint64(fit.value(QStringLiteral("max_ctx")).toDouble()), qint64(want->max_ctx));
    QCOMPARE(qint64(fit.value(QStringLiteral("concurrent_conversations")).toDouble()),
             qint64(want->concurrent_conversations));
    // Another context and KV type: the fit again, from the header already read (no request).
    const int requests_before = hub_.requests().size();
    c.setFitOptions(256, QStringLiteral("q8_0"));
    QTRY_VERIFY_WITH_TIMEOUT(file_entry(c, QStringLiteral("kjv-demo-f16.gguf"))
                                     .value(QStringLiteral("fit"))
                                     .toMap()
                                     .value(QStringLiteral("kv_type")) == QLatin1String("q8_0"),
                             20000);
    QCOMPARE(qint64(file_entry(c, QStringLiteral("kjv-demo-f16.gguf"))
                        .value(QStringLiteral("fit"))
                        .toMap()
                        .value(QStringLiteral("kv_bytes"))
                        .toDouble()),
             qint64(2 * 6 * 2 * 32 / 32 * 34) *
                 256);  // q8_0: 34 bytes per 32 values; 256 < 512: as asked
    QCOMPARE(file_entry(c, QStringLiteral("kjv-demo-f16.gguf"))
                 .value(QStringLiteral("fit"))
                 .toMap()
                 .value(QStringLiteral("ctx_cut_to_trained"))
                 .toBool(),
             false);
    QCOMPARE(hub_.requests().size(), requests_before + 1);  // only this look at /__requests
    // With a GPU running the chat, the fit is against its free memory: 5 MB cannot hold the
    // demo's 5.56 MB of weights, so nothing fits; back on the CPU, RAM counts again.
    c.set_gpu_free_bytes(5'000'000);
    QVERIFY(c.free_memory_is_gpu());
    QCOMPARE(qint64(c.free_memory_bytes()), qint64(5'000'000));
    const auto demo_fit = [&] {
      return file_entry(c, QStringLiteral("kjv-demo-f16.gguf"))
          .value(QStringLiteral("fit"))
          .toMap();
    };
    QTRY_COMPARE_WITH_TIMEOUT(qint64(demo_fit().value(QStringLiteral("free_bytes")).toDouble()),
                              qint64(5'000'000), 20000);
    QCOMPARE(demo_fit().value(QStringLiteral("fits")).toBool(), false);
    QCOMPARE(qint64(demo_fit().value(QStringLiteral("max_ctx")).toDouble()), qint64(0));
    c.set_gpu_free_bytes(0);
    QVERIFY(!c.free_memory_is_gpu());
    QTRY_VERIFY_WITH_TIMEOUT(demo_fit().value(QStringLiteral("fits")).toBool(), 20000);
    // Download: in data/models, handed to the opener.
    QSignalSpy downloaded(&c, &ModelsPageController::modelDownloaded);
    c.download(QStringLiteral("kjv-demo-f16.gguf"));
    QTRY_COMPARE_WITH_TIMEOUT(downloaded.count(), 1, 60000);
    const QString path = QDir(data).filePath(QStringLiteral("models/kjv-demo-f16.gguf"));
    QCOMPARE(downloaded.at(0).at(0).toString(), path);
    QCOMPARE(opened, QStringList{path});
    QCOMPARE(read_all(path), demo);
    QCOMPARE(c.downloads().size(), 1);
    QCOMPARE(c.downloads()[0].toMap().value(QStringLiteral("status")).toString(),
             QStringLiteral("done"));
    // A finished download's figures fill its bar: done = total = the file's size.
    QCOMPARE(qint64(c.downloads()[0].toMap().value(QStringLiteral("done")).toDouble()),
             qint64(demo.size()));
    QCOMPARE(qint64(c.downloads()[0].toMap().value(QStringLiteral("total")).toDouble()),
             qint64(demo.size()));
    QVERIFY(file_entry(c, QStringLiteral("kjv-demo-f16.gguf"))
                .value(QStringLiteral("downloaded"))
                .toBool());
  }

  // Issue 24 point 7: a file's 60 MB general.name reaches the page cut (shown as plain
  // text by ModelsPage.qml, see tests/hub/test_qml_plain_text).
  void aHugeModelNameIsCutForThePage() {
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), QString(), nullptr);
    c.openRepo(QStringLiteral("kvchat/hostile-name-GGUF"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    QCOMPARE(c.files().size(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(
        file_entry(c, QStringLiteral("hostile-name.gguf")).value(QStringLiteral("fit_state")) !=
            QLatin1String("reading"),
        30000);
    const QVariantMap f = file_entry(c, QStringLiteral("hostile-name.gguf"));
    QCOMPARE(f.value(QStringLiteral("fit_state")).toString(), QStringLiteral("done"));
    const QString name =
        f.value(QStringLiteral("fit")).toMap().value(QStringLiteral("name")).toString();
    QVERIFY2(name.startsWith(QStringLiteral("\x1b[31mred")) &&
                 name.contains(QStringLiteral("<b>bold</b>")),
             qPrintable(name.left(100)));
    QVERIFY2(name.size() < 300 && name.endsWith(QStringLiteral(" bytes)")),
             qPrintable(QString::number(name.size())));
  }

  void unsafeNamesAreLeftOut() {
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), QString(), nullptr);
    c.set_header_reader(nullptr);
    c.openRepo(QStringLiteral("kvchat/traversal-GGUF"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    QCOMPARE(c.files().size(), 1);
    QCOMPARE(c.files()[0].toMap().value(QStringLiteral("path")).toString(),
             QStringLiteral("kjv-demo-f16.gguf"));
    QVERIFY2(c.message().contains(QStringLiteral("../../evil.gguf")), qPrintable(c.message()));
  }

  // The endpoint setting: plain http to another computer is refused (and said); the fake
  // Hub's loopback address works; each choice is saved under hub/endpoint.
  void theEndpointSetting() {
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), QString(), nullptr);
    QCOMPARE(c.endpoint_source(), QStringLiteral("HF_ENDPOINT"));
    QVariantMap saved;
    c.set_setting_saver([&saved](const QString& k, const QVariant& v) { saved[k] = v; });
    c.setEndpoint(QStringLiteral("http://example.com"));
    QVERIFY2(c.message().contains(QStringLiteral("http")), qPrintable(c.message()));
    QCOMPARE(saved.value(QStringLiteral("hub/endpoint")).toString(),
             QStringLiteral("http://example.com"));
    c.search(QStringLiteral("kjv"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.searching(), 20000);
    QVERIFY(c.search_results().isEmpty());  // refused without a request
    c.setEndpoint(hub_.url().toString());
    QCOMPARE(c.endpoint_source(), QStringLiteral("setting"));
    QVERIFY(c.message().isEmpty());
    c.search(QStringLiteral("kjv"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.searching(), 20000);
    QCOMPARE(c.search_results().size(), 1);
  }

  // The welcome's recommendations (issue 43 point 8) from the shipped catalog against the
  // free memory (here the GPU's, a given figure): three chat models that fit, smallest
  // first, with their size and fit said; none downloaded in a fresh data directory.
  void theRecommendationsOfThisComputer() {
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), QString(), nullptr);
    c.load_catalog_from(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
    QSignalSpy changed(&c, &ModelsPageController::recommendedChanged);
    c.set_gpu_free_bytes(8'000'000'000);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(qint64(c.recommended_free_bytes()), qint64(8'000'000'000));
    const QVariantList r = c.recommended();
    QCOMPARE(r.size(), 3);
    double previous = 0;
    for (const QVariant& v : r) {
      const QVariantMap m = v.toMap();
      QVERIFY(m.value(QStringLiteral("fits")).toBool());
      QVERIFY(m.value(QStringLiteral("size")).toDouble() >= previous);
      previous = m.value(QStringLiteral("size")).toDouble();
      QVERIFY2(m.value(QStringLiteral("size_text")).toString().startsWith(QStringLiteral("about ")),
               qPrintable(m.value(QStringLiteral("size_text")).toString()));
      const QString fit = m.value(QStringLiteral("fit_text")).toString();
      QVERIFY2(fit.startsWith(QStringLiteral("fits: about ")) &&
                   fit.contains(QLocale().toString(4096)) &&
                   fit.contains(QStringLiteral("on the GPU")),
               qPrintable(fit));
      QCOMPARE(m.value(QStringLiteral("downloaded")).toBool(), false);
      QCOMPARE(m.value(QStringLiteral("download_status")).toString(), QString());
    }
    // 300 MB of GPU memory: nothing of the catalog fits.
    c.set_gpu_free_bytes(0);
    c.set_gpu_free_bytes(300'000'000);
    QVERIFY(c.recommended().isEmpty());
  }

  // "Download and open" for a catalog file: its size and SHA-256 from the Hub's file tree,
  // the download, then the file handed to the opener; already on disk, it opens at once.
  void aCatalogFileIsDownloadedAndOpened() {
    const QString data = fresh_data_dir();
    QStringList opened;
    ModelsPageController c(data, ConversationStore::default_path(data), QString(),
                           [&opened](const QString& p) { opened.append(p); });
    QSignalSpy downloaded(&c, &ModelsPageController::modelDownloaded);
    c.downloadCatalogFile(QStringLiteral("kvchat/kjv-demo-GGUF"),
                          QStringLiteral("kjv-demo-f16.gguf"));
    QTRY_COMPARE_WITH_TIMEOUT(downloaded.count(), 1, 60000);
    const QString path = QDir(data).filePath(QStringLiteral("models/kjv-demo-f16.gguf"));
    QCOMPARE(opened, QStringList{path});
    QCOMPARE(read_all(path), read_all(kDemo));
    QCOMPARE(c.downloads().size(), 1);
    QCOMPARE(c.downloads()[0].toMap().value(QStringLiteral("repo")).toString(),
             QStringLiteral("kvchat/kjv-demo-GGUF"));
    // Again: on disk, so opened without a download.
    c.downloadCatalogFile(QStringLiteral("kvchat/kjv-demo-GGUF"),
                          QStringLiteral("kjv-demo-f16.gguf"));
    QCOMPARE(opened, QStringList({path, path}));
    QCOMPARE(c.downloads().size(), 1);
    // A file the repository does not have: nothing starts, nothing opens.
    c.downloadCatalogFile(QStringLiteral("kvchat/kjv-demo-GGUF"), QStringLiteral("missing.gguf"));
    QTest::qWait(2000);
    QCOMPARE(c.downloads().size(), 1);
    QCOMPARE(opened.size(), 2);
  }

  // No Hub: one notice, no error per request; the catalog stays.
  void anUnreachableHubIsSaidOnce() {
    const QString hub = unreachable_hub_url();
    QVERIFY(!hub.isEmpty());
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), hub, nullptr);
    c.load_catalog_from(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
    QSignalSpy notices(&c, &ModelsPageController::noticeChanged);
    c.search(QStringLiteral("qwen"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.searching(), 20000);
    QVERIFY(!c.offline_notice().isEmpty());
    const int after_first = notices.count();
    c.search(QStringLiteral("llama"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.searching(), 20000);
    QCOMPARE(notices.count(), after_first);  // said once
    QVERIFY(c.message().isEmpty());
    QVERIFY(!c.catalog().isEmpty());
  }

  // Issue 43 point 11: the catalog's heading says "sizes approximate": each entry the page
  // lists carries its files' sizes (the smallest to the largest, "≈" when approximate); a
  // catalog without sizes claims none, and exact sizes are not called approximate.
  void catalogEntriesCarryTheirSizes() {
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), QString(), nullptr);
    c.load_catalog_from(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
    QVERIFY(!c.catalog().isEmpty());
    QVERIFY(c.catalog_sizes_approximate());
    for (const QVariant& v : c.catalog()) {
      const QVariantMap entry = v.toMap();
      double smallest = 1e300, largest = 0;
      for (const QVariant& f : entry.value(QStringLiteral("files")).toList()) {
        smallest = std::min(smallest, f.toMap().value(QStringLiteral("size")).toDouble());
        largest = std::max(largest, f.toMap().value(QStringLiteral("size")).toDouble());
      }
      const QString text = entry.value(QStringLiteral("size_text")).toString();
      QVERIFY2(text.startsWith(QStringLiteral("≈ ")), qPrintable(text));
      QVERIFY2(text.contains(kvchat::util::format_bytes(smallest)), qPrintable(text));
      QVERIFY2(text.contains(kvchat::util::format_bytes(largest)), qPrintable(text));
    }
    const QString path = dir_.filePath(QStringLiteral("sizes.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"models": [
      {"name": "No sizes", "repo": "org/none-GGUF", "files": [{"quant": "Q4_K_M", "file": "n.gguf"}]},
      {"name": "Exact", "repo": "org/exact-GGUF", "files": [{"quant": "Q8_0", "file": "e.gguf", "size": 1500000000}]}
    ]})");
    f.close();
    c.load_catalog_from(path);
    QCOMPARE(c.catalog().size(), 2);
    QCOMPARE(c.catalog()[0].toMap().value(QStringLiteral("size_text")).toString(), QString());
    QCOMPARE(c.catalog()[1].toMap().value(QStringLiteral("size_text")).toString(),
             kvchat::util::format_bytes(1.5e9));
    QVERIFY(!c.catalog_sizes_approximate());  // the heading claims no approximate sizes
  }

  // Offline, a catalog model chosen: not an empty pane, but what failed, how to ask again,
  // and the catalog's own files with their sizes and whether each alone fits; a repository
  // the catalog does not know gets the message alone; asking again clears it.
  void anOfflineCatalogModelShowsWhatTheCatalogKnows() {
    const QString hub = unreachable_hub_url();
    QVERIFY(!hub.isEmpty());
    const QString data = fresh_data_dir();
    ModelsPageController c(data, ConversationStore::default_path(data), hub, nullptr);
    c.load_catalog_from(QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models_catalog.json"));
    const QVariantMap entry = c.catalog().value(0).toMap();
    const QString repo = entry.value(QStringLiteral("repo")).toString();
    QVERIFY(!repo.isEmpty());
    c.openRepo(repo);
    QVERIFY(c.listing());
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    const QString message = c.files_message();
    QVERIFY2(message.contains(repo) &&
                 message.contains(entry.value(QStringLiteral("name")).toString()) &&
                 message.contains(QStringLiteral("Try again")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("127.0.0.1")), qPrintable(message));  // what failed
    const QVariantList catalog_files = entry.value(QStringLiteral("files")).toList();
    QCOMPARE(c.files().size(), catalog_files.size());
    for (int i = 0; i < c.files().size(); ++i) {
      const QVariantMap row = c.files()[i].toMap();
      const QVariantMap listed = catalog_files[i].toMap();
      QCOMPARE(row.value(QStringLiteral("path")).toString(),
               listed.value(QStringLiteral("file")).toString());
      QCOMPARE(row.value(QStringLiteral("size")).toDouble(),
               listed.value(QStringLiteral("size")).toDouble());
      QVERIFY(row.value(QStringLiteral("size_approx")).toBool());
      QCOMPARE(row.value(QStringLiteral("fit_state")).toString(), QStringLiteral("estimate"));
      const QVariantMap fit = row.value(QStringLiteral("fit")).toMap();
      QCOMPARE(fit.value(QStringLiteral("weights_bytes")).toDouble(),
               listed.value(QStringLiteral("size")).toDouble());
      QVERIFY(fit.value(QStringLiteral("free_bytes")).toDouble() > 0);
      QCOMPARE(fit.value(QStringLiteral("fits")).toBool(),
               fit.value(QStringLiteral("weights_bytes")).toDouble() <=
                   fit.value(QStringLiteral("free_bytes")).toDouble());
      QVERIFY(row.value(QStringLiteral("sha256")).toString().isEmpty());  // no download
    }
    // Not in the catalog: the message, no rows.
    c.openRepo(QStringLiteral("someone/elsewhere-GGUF"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    QVERIFY(c.files().isEmpty());
    QVERIFY2(c.files_message().contains(QStringLiteral("someone/elsewhere-GGUF")),
             qPrintable(c.files_message()));
    // Asking again: the message goes while the Hub is asked.
    c.openRepo(repo);
    QVERIFY(c.files_message().isEmpty());
    QVERIFY(c.listing());
    QTRY_VERIFY_WITH_TIMEOUT(!c.listing(), 20000);
    QVERIFY(!c.files_message().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestModelsPage)
#include "test_models_page.moc"
