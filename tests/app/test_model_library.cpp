// My models (issue 26): the model files found in a data directory's models/ and the recent
// list, with real files (the shared models copied into a temporary data directory, plus
// a truncated copy and a file that is not GGUF): names, architecture, quantization, size,
// trained context, the unreadable files' reasons, one row per file, removal; and whose a
// file is (issue 43): only the files in the models folder, links resolved, are deleted,
// never the demo model nor a file kept elsewhere, which are only forgotten.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "kvchat/gguf_inspect.h"
#include "library/model_library.h"
#include "library/model_library_controller.h"

using namespace kvchat::app;

namespace {

const QString kShared = QStringLiteral(KVCHAT_SHARED_DIR "/models");

const ModelLibraryEntry* find(const QVector<ModelLibraryEntry>& entries, const QString& file_name) {
  for (const ModelLibraryEntry& e : entries)
    if (e.facts.file_name == file_name) return &e;
  return nullptr;
}

QVariantMap find(const QVariantList& entries, const QString& file_name) {
  for (const QVariant& v : entries)
    if (v.toMap().value("file_name").toString() == file_name) return v.toMap();
  return {};
}

// The row of this path (as the row writes it: absolute, cleaned), {} when not listed.
QVariantMap find_path(const QVariantList& entries, const QString& path) {
  const QString want = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
  for (const QVariant& v : entries)
    if (v.toMap().value("path").toString() == want) return v.toMap();
  return {};
}

// A copy of a shared model at `to` (its folder made; an older one replaced).
QString copy_shared(const QString& file_name, const QString& to) {
  QDir().mkpath(QFileInfo(to).absolutePath());
  QFile::remove(to);
  if (!QFile::copy(QDir(kShared).filePath(file_name), to)) return {};
  QFile(to).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
  return to;
}

}  // namespace

class ModelLibraryTest : public QObject {
  Q_OBJECT

  QTemporaryDir data_;
  QString models_;

 private slots:
  void init() {
    QVERIFY(data_.isValid());
    models_ = QDir(data_.path()).filePath("models");
    QDir(models_).removeRecursively();
    QVERIFY(QDir().mkpath(models_));
    for (const QFileInfo& f : QDir(kShared).entryInfoList({"*.gguf"}, QDir::Files)) {
      const QString to = QDir(models_).filePath(f.fileName());
      QVERIFY(QFile::copy(f.absoluteFilePath(), to));
      QFile(to).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    }
    QVERIFY(QFileInfo::exists(QDir(models_).filePath("stories260K.gguf")));
    // A copy cut in the middle of its header, and a text file named .gguf.
    QFile whole(QDir(kShared).filePath("stories260K.gguf"));
    QVERIFY(whole.open(QIODevice::ReadOnly));
    QFile cut(QDir(models_).filePath("cut.gguf"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(whole.read(200));
    cut.close();
    // And one cut in its tensor data (the header whole).
    QVERIFY(whole.seek(0));
    QFile cut_data(QDir(models_).filePath("cut-data.gguf"));
    QVERIFY(cut_data.open(QIODevice::WriteOnly));
    cut_data.write(whole.read(whole.size() / 2));
    cut_data.close();
    QFile text(QDir(models_).filePath("notes.gguf"));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("these are not weights\n");
    text.close();
    QFile other(QDir(models_).filePath("readme.txt"));  // not *.gguf: not listed
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.close();
  }

  void factsOfEachFile() {
    const QVector<ModelLibraryEntry> entries = scan_model_library(models_, {}, {});
    const int shared = QDir(kShared).entryList({"*.gguf"}, QDir::Files).size();
    QCOMPARE(entries.size(), shared + 3);  // readme.txt left out
    for (const ModelLibraryEntry& e : entries) {
      QVERIFY(e.in_models_dir);
      QCOMPARE(e.recent_rank, -1);  // never used
      QVERIFY(!e.last_used.isValid());
      QCOMPARE(e.facts.size, QFileInfo(e.facts.path).size());
      QVERIFY(QFileInfo(e.facts.path).isAbsolute());
    }

    const ModelLibraryEntry* stories = find(entries, "stories260K.gguf");
    QVERIFY(stories);
    // Named by its file: its general.name is only the architecture's.
    QCOMPARE(stories->facts.name, QString("stories260K"));
    QCOMPARE(stories->facts.architecture, QString("llama"));
    QVERIFY(stories->facts.error.isEmpty());
    QCOMPARE(stories->facts.size,
             qint64(QFileInfo(QDir(kShared).filePath("stories260K.gguf")).size()));
    // The engine's own reading of the shared file: the dominant tensor type and the
    // trained context.
    auto in = kvchat::inspect_gguf_file((kShared + "/stories260K.gguf").toStdString());
    QVERIFY(in);
    QVERIFY(in->n_ctx_train > 0);
    QCOMPARE(stories->facts.n_ctx_train, in->n_ctx_train);
    QCOMPARE(stories->facts.quantization, QString::fromStdString(in->tensor_types.front().type));
    QVERIFY(stories->facts.inspection);

    const ModelLibraryEntry* f16 = find(entries, "kjv-demo-f16.gguf");
    QVERIFY(f16);
    QCOMPARE(f16->facts.name, QString("kjv-demo-f16"));
    QCOMPARE(f16->facts.architecture, QString("llama"));
    QCOMPARE(f16->facts.quantization, QString("F16"));
    QVERIFY(f16->facts.n_ctx_train > 0);
    if (const ModelLibraryEntry* f32 = find(entries, "kjv-demo-f32.gguf"))
      QCOMPARE(f32->facts.quantization, QString("F32"));

    // Unreadable files are listed, with why instead of figures.
    for (const char* name : {"cut.gguf", "cut-data.gguf", "notes.gguf"}) {
      const ModelLibraryEntry* bad = find(entries, name);
      QVERIFY2(bad, name);
      QVERIFY2(!bad->facts.error.isEmpty(), name);
      QVERIFY(!bad->facts.inspection);
      QVERIFY(bad->facts.architecture.isEmpty());
      QCOMPARE(bad->facts.n_ctx_train, 0);
      QCOMPARE(bad->facts.name, QFileInfo(name).completeBaseName());
      QVERIFY2(!bad->facts.error.contains(models_),
               qPrintable(bad->facts.error));  // the row names it
      qInfo("%s: %s", name, qPrintable(bad->facts.error));
    }
    QVERIFY(find(entries, "notes.gguf")->facts.error != find(entries, "cut.gguf")->facts.error);
  }

  void recentFirstAndDeduplicated() {
    // The shared file (outside models/), a recent path equal to a models/ file written
    // another way, one gone since: three recent entries, two rows for them.
    const QString inside = QDir(models_).filePath("kjv-demo-f16.gguf");
    const QString same_other_way = models_ + "/../models/./kjv-demo-f16.gguf";
    const QString outside = QDir(kShared).filePath("stories260K.gguf");
    const QString gone = QDir(data_.path()).filePath("gone.gguf");
    const QDateTime when = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7), Qt::UTC);
    const QVector<ModelLibraryEntry> entries =
        scan_model_library(models_, {same_other_way, gone, outside, inside},
                           {{same_other_way, when.toString(Qt::ISODate)}});
    const int shared = QDir(kShared).entryList({"*.gguf"}, QDir::Files).size();
    QCOMPARE(entries.size(), shared + 3 + 1);  // models/ + the outside copy
    QCOMPARE(entries[0].facts.path, QFileInfo(inside).absoluteFilePath());
    QCOMPARE(entries[0].recent_rank, 0);
    QVERIFY(entries[0].in_models_dir);
    QCOMPARE(entries[0].last_used, when);
    QCOMPARE(entries[1].facts.path, outside);
    QCOMPARE(entries[1].recent_rank, 2);
    QVERIFY(!entries[1].in_models_dir);
    QVERIFY(!entries[1].last_used.isValid());
    int rows_of_inside = 0;
    for (const ModelLibraryEntry& e : entries) {
      if (model_file_key(e.facts.path) == model_file_key(inside)) ++rows_of_inside;
      QVERIFY(e.facts.file_name != "gone.gguf");
    }
    QCOMPARE(rows_of_inside, 1);
    // After the recent ones, the others by name, never used.
    for (int i = 2; i < entries.size(); ++i) QCOMPARE(entries[i].recent_rank, -1);
    QVERIFY(entries[2].facts.file_name < entries[3].facts.file_name);
  }

  void removeFromDisk() {
    const QString loaded = QDir(models_).filePath("stories260K.gguf");
    const QString other = QDir(models_).filePath("kjv-demo-f16.gguf");
    QString error;
    QVERIFY(!remove_model_file(models_ + "/./stories260K.gguf", loaded, models_, {}, &error));
    QVERIFY2(error.contains("stories260K.gguf") && error.contains("loaded"), qPrintable(error));
    QVERIFY(QFileInfo::exists(loaded));
    QVERIFY(remove_model_file(other, loaded, models_, {}, &error));
    QVERIFY(!QFileInfo::exists(other));
    QVERIFY(!remove_model_file(other, loaded, models_, {}, &error));  // already gone
    QVERIFY(!error.isEmpty());
  }

  // Issue 43: whose a file is, decided on the resolved path.
  void ownershipOfFiles() {
    const QString elsewhere = QDir(data_.path()).filePath("elsewhere");
    const QString inside = QDir(models_).filePath("stories260K.gguf");
    const QString outside = copy_shared("stories260K.gguf", elsewhere + "/outside.gguf");
    // A folder whose name begins like the models folder's is not in it.
    const QString beside = copy_shared("stories260K.gguf", models_ + "-old/beside.gguf");
    QVERIFY(!outside.isEmpty() && !beside.isEmpty());
    const QString link_out = QDir(models_).filePath("link-out.gguf");
    QVERIFY(QFile::link(outside, link_out));
    const QString link_in = elsewhere + "/link-in.gguf";  // outside, to a file inside
    QFile::remove(link_in);
    QVERIFY(QFile::link(inside, link_in));

    QCOMPARE(model_file_owner(inside, models_, {}), ModelFileOwner::Kvchat);
    QVERIFY(kvchat_owns_model_file(models_ + "/../models/./stories260K.gguf", models_, {}));
    QVERIFY(kvchat_owns_model_file(link_in, models_, {}));  // the resolved file is inside
    QCOMPARE(model_file_owner(outside, models_, {}), ModelFileOwner::Elsewhere);
    QVERIFY(!kvchat_owns_model_file(models_ + "/../elsewhere/outside.gguf", models_, {}));
    QVERIFY(!kvchat_owns_model_file(beside, models_, {}));
    QCOMPARE(model_file_owner(link_out, models_, {}), ModelFileOwner::Elsewhere);
    QVERIFY(!kvchat_owns_model_file(QDir(models_).filePath("gone.gguf"), models_, {}));
    QVERIFY(!kvchat_owns_model_file(inside, QDir(data_.path()).filePath("no-such-dir"), {}));

    // The demo model is never kvchat's to delete: not even in the models folder, nor
    // named through a link or another way.
    QCOMPARE(model_file_owner(inside, models_, inside), ModelFileOwner::Demo);
    QVERIFY(!kvchat_owns_model_file(inside, models_, models_ + "/./stories260K.gguf"));
    QCOMPARE(model_file_owner(link_in, models_, inside), ModelFileOwner::Demo);
    QCOMPARE(model_file_owner(outside, models_, outside), ModelFileOwner::Demo);
    QCOMPARE(model_file_owner(link_out, models_, outside), ModelFileOwner::Demo);
  }

  // remove_model_file itself refuses what kvchat does not own, whoever calls it.
  void removeRefusesFilesNotKvchats() {
    const QString elsewhere = QDir(data_.path()).filePath("elsewhere");
    const QString outside = copy_shared("stories260K.gguf", elsewhere + "/outside.gguf");
    QVERIFY(!outside.isEmpty());
    QString error;
    QVERIFY(!remove_model_file(outside, {}, models_, {}, &error));
    QVERIFY2(error.contains("outside.gguf") && error.contains("models folder") &&
                 error.contains(QDir(models_).canonicalPath()) && error.contains("Forget"),
             qPrintable(error));
    QVERIFY(QFileInfo::exists(outside));
    QVERIFY(!remove_model_file(models_ + "/../elsewhere/outside.gguf", {}, models_, {}, &error));
    QVERIFY(QFileInfo::exists(outside));

    // A link in the models folder to the file outside: neither the link nor the file goes.
    const QString link = QDir(models_).filePath("link-out.gguf");
    QVERIFY(QFile::link(outside, link));
    error.clear();
    QVERIFY(!remove_model_file(link, {}, models_, {}, &error));
    QVERIFY2(error.contains("link"), qPrintable(error));
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(QFileInfo::exists(outside));
    QVERIFY(!remove_model_file(outside, {}, models_, {}, &error));  // listed through the link
    QVERIFY2(error.contains("link"), qPrintable(error));
    QVERIFY(QFileInfo::exists(outside));

    // The demo model, even a copy in the models folder named as the demo.
    const QString demo = QDir(models_).filePath("kjv-demo-f16.gguf");
    error.clear();
    QVERIFY(!remove_model_file(demo, {}, models_, demo, &error));
    QVERIFY2(error.contains("demo"), qPrintable(error));
    QVERIFY(QFileInfo::exists(demo));
    QVERIFY(!model_removal_problem(demo, {}, models_, demo).isEmpty());

    // A file in the models folder is removed; named through a link from elsewhere, the
    // file in the models folder goes and the link (not kvchat's) is left.
    const QString inside = QDir(models_).filePath("stories260K.gguf");
    QVERIFY(model_removal_problem(inside, {}, models_, demo).isEmpty());
    const QString link_in = elsewhere + "/link-in.gguf";
    QFile::remove(link_in);
    QVERIFY(QFile::link(inside, link_in));
    QVERIFY2(remove_model_file(link_in, {}, models_, demo, &error), qPrintable(error));
    QVERIFY(!QFileInfo::exists(inside));
    QVERIFY(QFileInfo(link_in).isSymLink());
    QVERIFY(remove_model_file(QDir(models_).filePath("notes.gguf"), {}, models_, demo, &error));
    QVERIFY(!QFileInfo::exists(QDir(models_).filePath("notes.gguf")));
  }

  // The controller's rows say whose each file is; Remove is refused and Forget offered
  // for the files kept elsewhere and the demo model.
  void controllerRemovesOnlyItsOwnFiles() {
    const QString elsewhere = QDir(data_.path()).filePath("elsewhere");
    const QString outside = copy_shared("stories260K.gguf", elsewhere + "/outside.gguf");
    const QString linked = copy_shared("stories260K.gguf", elsewhere + "/linked.gguf");
    const QString demo =
        copy_shared("kjv-demo-f16.gguf", QDir(data_.path()).filePath("share/demo-f16.gguf"));
    QVERIFY(!outside.isEmpty() && !linked.isEmpty() && !demo.isEmpty());
    const QString link = QDir(models_).filePath("link-out.gguf");
    QVERIFY(QFile::link(linked, link));
    const QString inside = QDir(models_).filePath("stories260K.gguf");
    // The outside file is in the recent list twice, written two ways.
    QStringList recent{outside, demo, inside, elsewhere + "/../elsewhere/outside.gguf"};
    QStringList forgotten;
    ModelLibraryController::Hooks hooks;
    hooks.recent = [&] { return recent; };
    hooks.loaded_path = [] { return QString(); };
    hooks.forget_recent = [&](const QString& p) {
      forgotten.append(p);
      recent.removeAll(p);
    };
    hooks.demo_path = [&] { return demo; };
    ModelLibraryController library(models_, nullptr, hooks);
    library.refresh();

    const QVariantMap out_row = find_path(library.entries(), outside);
    QVERIFY(!out_row.isEmpty());
    QCOMPARE(out_row.value("owned"), QVariant(false));
    QCOMPARE(out_row.value("demo"), QVariant(false));
    QCOMPARE(out_row.value("in_models_dir"), QVariant(false));
    const QVariantMap demo_row = find_path(library.entries(), demo);
    QCOMPARE(demo_row.value("owned"), QVariant(false));
    QCOMPARE(demo_row.value("demo"), QVariant(true));
    const QVariantMap in_row = find_path(library.entries(), inside);
    QCOMPARE(in_row.value("owned"), QVariant(true));
    QCOMPARE(in_row.value("demo"), QVariant(false));
    const QVariantMap link_row = find_path(library.entries(), link);
    QCOMPARE(link_row.value("owned"), QVariant(false));
    QCOMPARE(link_row.value("in_models_dir"), QVariant(true));
    QCOMPARE(find(library.entries(), "notes.gguf").value("owned"), QVariant(true));

    // Remove from disk: refused, with the reason, for all but the file in models/.
    QVERIFY(library.removalProblem(outside).contains("Forget"));
    QVERIFY(library.removalProblem(demo).contains("demo"));
    QVERIFY(library.removalProblem(link).contains("link"));
    QVERIFY(library.removalProblem(inside).isEmpty());
    QVERIFY(!library.remove(outside));
    QVERIFY2(library.message().contains("models folder"), qPrintable(library.message()));
    QVERIFY(!library.remove(demo));
    QVERIFY(!library.remove(link));
    QVERIFY(QFileInfo::exists(outside) && QFileInfo::exists(demo) && QFileInfo::exists(linked));
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(forgotten.isEmpty());

    // Forget: off the recent list (every way it is written there), the file kept.
    QVERIFY(library.forget(outside));
    QCOMPARE(forgotten, QStringList({outside, elsewhere + "/../elsewhere/outside.gguf"}));
    QVERIFY(QFileInfo::exists(outside));
    QVERIFY(find_path(library.entries(), outside).isEmpty());
    QVERIFY(library.message().contains("outside.gguf"));
    QVERIFY(library.forget(demo));
    QVERIFY(QFileInfo::exists(demo));
    QVERIFY(find_path(library.entries(), demo).isEmpty());
    // What the models folder shows stays listed: Forget is refused there.
    forgotten.clear();
    QVERIFY(!library.forget(inside));
    QVERIFY(!library.forget(link));
    QVERIFY(library.message().contains("models folder"));
    QVERIFY(forgotten.isEmpty());
    QVERIFY(!find_path(library.entries(), link).isEmpty());
    QVERIFY(!library.forget(outside));  // no longer recent

    QVERIFY(library.remove(inside));
    QVERIFY(!QFileInfo::exists(inside));
  }

  // The controller: rows as QML sees them, the fit at the page's options, the actions.
  void controllerRowsAndActions() {
    const QString stories = QDir(models_).filePath("stories260K.gguf");
    const QString f16 = QDir(models_).filePath("kjv-demo-f16.gguf");
    QStringList recent{stories, f16};
    QString loaded = stories;
    QStringList opened, forgotten;
    QList<QUrl> folders;
    ModelLibraryController::Hooks hooks;
    hooks.recent = [&] { return recent; };
    hooks.used_at = [] { return QVariantMap(); };
    hooks.loaded_path = [&] { return loaded; };
    hooks.open_model = [&](const QString& p) { opened.append(p); };
    hooks.forget_recent = [&](const QString& p) {
      forgotten.append(p);
      recent.removeAll(p);
    };
    hooks.open_folder = [&](const QUrl& u) { folders.append(u); };
    ModelLibraryController library(models_, nullptr, hooks);
    library.refresh();
    QVariantMap row = find(library.entries(), "stories260K.gguf");
    QCOMPARE(row.value("name").toString(), QString("stories260K"));
    QCOMPARE(row.value("loaded").toBool(), true);
    QCOMPARE(row.value("recent_rank").toInt(), 0);
    QCOMPARE(row.value("fit_state").toString(), QString("done"));
    QVERIFY(row.value("fit").toMap().value("weights_bytes").toDouble() > 0);
    QVERIFY(!row.value("size_text").toString().isEmpty());
    QCOMPARE(find(library.entries(), "readme.txt"), QVariantMap());
    QCOMPARE(find(library.entries(), "notes.gguf").value("fit_state").toString(),
             QString("unreadable"));
    QCOMPARE(find(library.entries(), "notes.gguf").value("last_used_text").toString(),
             QString("never"));

    library.open(stories);
    QCOMPARE(opened, QStringList{stories});
    library.showInFolder(f16);
    QCOMPARE(folders, QList<QUrl>{QUrl::fromLocalFile(models_)});

    // The loaded model is refused, the other one goes and leaves the recent list.
    QVERIFY(!library.removalProblem(stories).isEmpty());
    QVERIFY(library.removalProblem(f16).isEmpty());
    QVERIFY(!library.remove(stories));
    QVERIFY(QFileInfo::exists(stories));
    QVERIFY(library.message().contains("loaded"));
    QVERIFY(library.remove(f16));
    QVERIFY(!QFileInfo::exists(f16));
    QCOMPARE(forgotten, QStringList{f16});
    QCOMPARE(find(library.entries(), "kjv-demo-f16.gguf"), QVariantMap());
    QVERIFY(library.message().contains("kjv-demo-f16.gguf"));
  }
};

QTEST_GUILESS_MAIN(ModelLibraryTest)
#include "test_model_library.moc"
