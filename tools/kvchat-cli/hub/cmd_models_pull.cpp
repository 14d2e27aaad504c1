// kvchat-cli models pull REPO FILE [--endpoint URL] [--dir D] [--json] [--verbose]: the app's
// download code (hub::DownloadManager) from a terminal. The file's size and SHA-256 come from the
// Hub's file tree; redirects, Range resume, retries and the SHA-256 check are the app's.
// Its state is kept in D/.kvchat-downloads.sqlite, so running the same pull again after
// an interruption (Ctrl+C, a dropped connection) continues the partial file. The access
// token of a gated repository is read from HF_TOKEN only (never an argument: those show
// in `ps`), and is never printed nor stored. Progress goes to stderr, the file's path to
// stdout. What came from the Hub (names it refused, its messages) is printed through
// kvchat::printable.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLoggingCategory>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "args.h"
#include "commands.h"
#include "util/byte_size.h"
#include "hub/download_manager.h"
#include "hub_cli_session.h"
#include "json_field.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

// A message that may quote the Hub, safe for the terminal.
std::string shown(const QString& text) { return printable(text.toStdString(), 1000); }

// A byte count as the window writes it (util::format_bytes).
std::string bytes_text(double bytes) { return util::format_bytes(bytes).toStdString(); }

// The app's models directory: $XDG_DATA_HOME/kvchat/models (~/.local/share/kvchat/models).
QString default_models_dir() {
  QString base = qEnvironmentVariable("XDG_DATA_HOME");
  if (base.isEmpty()) base = QDir::homePath() + QStringLiteral("/.local/share");
  return base + QStringLiteral("/kvchat/models");
}

// 1. The entry of `file` in the Hub's file tree of `repo`, with its size and SHA-256.
Result<hub::HubFile> find_hub_file(hub::HubClient& client, const QString& repo,
                                   const QString& file) {
  std::optional<hub::HubFileList> tree;
  client.list_files(repo, nullptr, [&tree](const hub::HubFileList& r) {
    tree = r;
    QCoreApplication::exit(0);
  });
  QCoreApplication::exec();
  if (!tree) return Error{"no answer from the Hub"};
  if (!tree->error.ok()) return Error{shown(tree->error.message)};
  const hub::HubFile* entry = nullptr;
  for (const hub::HubFile& f : tree->files)
    if (f.path == file) entry = &f;
  if (!entry) {
    for (const QString& r : tree->rejected)
      if (r.startsWith(file + QLatin1Char(':'))) return Error{"refused: " + shown(r)};
    return Error{shown(file) + " is not in " + shown(repo)};
  }
  if (entry->sha256.isEmpty())
    return Error{shown(file) +
                 " has no SHA-256 on the Hub (not an LFS file): kvchat does not accept a file it "
                 "cannot verify"};
  return *entry;
}

// The download of `entry` (`file` of `repo`) into `dir`.
hub::DownloadRequest download_request(const hub::HubEndpoint& endpoint, const QString& repo,
                                      const QString& file, const QString& dir,
                                      const hub::HubFile& entry) {
  hub::DownloadRequest request;
  request.repo = repo;
  request.file = file;
  request.url = endpoint.resolve_url(repo, file);
  request.models_dir = dir;
  request.expected_size = entry.size;
  request.sha256 = entry.sha256;
  return request;
}

// The manager's progress to stderr (at most once a second, and at the end), and its waits
// and verification.
void print_progress(hub::DownloadManager& manager, QElapsedTimer& since_print) {
  QObject::connect(&manager, &hub::DownloadManager::progress,
                   [&](qint64, qint64 done, qint64 total, double speed, double eta) {
                     if (since_print.elapsed() < 1000 && done != total) return;
                     since_print.restart();
                     std::fprintf(stderr, "%s of %s", bytes_text(double(done)).c_str(),
                                  bytes_text(double(total)).c_str());
                     if (speed > 0) std::fprintf(stderr, ", %s/s", bytes_text(speed).c_str());
                     if (eta >= 0) std::fprintf(stderr, ", %.0f s left", eta);
                     std::fprintf(stderr, "\n");
                   });
  QObject::connect(&manager, &hub::DownloadManager::statusChanged,
                   [&](qint64, const QString& status, const QString& text) {
                     if (status == QLatin1String("waiting") || status == QLatin1String("verifying"))
                       std::fprintf(stderr, "%s\n", shown(text).c_str());
                   });
}

// The pulled file's path to stdout (with --json: with its size and SHA-256).
void print_pulled(const QString& path, const QString& sha256, bool json) {
  if (json) {
    const nlohmann::json out{{"path", path.toStdString()},
                             {"bytes", QFileInfo(path).size()},
                             {"sha256", sha256.toStdString()}};
    std::printf("%s\n", json_text(out).c_str());
  } else {
    std::printf("%s\n", qPrintable(path));
  }
}

}  // namespace

int cmd_models_pull(const Argv& argv) {
  if (argv.size() < 2 || argv[0].rfind("--", 0) == 0 || argv[1].rfind("--", 0) == 0)
    return fail(
        "usage: kvchat-cli models pull REPO FILE [--endpoint URL] [--dir D] [--json] [--verbose]",
        2);
  auto args = Args::parse(Argv(argv.begin() + 2, argv.end()), {"--endpoint", "--dir"},
                          {"--json", "--verbose"});
  if (!args) return fail(args.error().message, 2);
  const QString repo = QString::fromStdString(argv[0]);
  const QString file = QString::fromStdString(argv[1]);
  const bool json = args->has("--json");

  // The manager's log (each request, redirect, retry) only with --verbose; its failures
  // are printed once below.
  if (!args->has("--verbose"))
    QLoggingCategory::setFilterRules(QStringLiteral("kvchat.download=false"));

  const auto endpoint = HubCliSession::endpoint(args->get("--endpoint"));
  if (!endpoint) return fail(endpoint.message());
  HubCliSession session(*endpoint);
  const QString dir =
      QDir(args->has("--dir") ? QString::fromStdString(args->get("--dir")) : default_models_dir())
          .absolutePath();
  if (!QDir().mkpath(dir)) return fail("cannot create " + dir.toStdString());

  const auto entry = find_hub_file(session.client(), repo, file);
  if (!entry) return fail(entry.message());

  // 2. The download, with the app's manager.
  hub::DownloadManager manager;
  QString error;
  if (!manager.open(QDir(dir).filePath(QStringLiteral(".kvchat-downloads.sqlite")),
                    hub::DownloadStore::Table::CreateIfMissing, &error))
    return fail(error.toStdString());
  manager.set_access_token(HubCliSession::token());
  const hub::DownloadRequest request = download_request(*endpoint, repo, file, dir, *entry);

  int code = 1;
  QString path, message;
  QElapsedTimer since_print;
  since_print.start();
  print_progress(manager, since_print);
  QObject::connect(&manager, &hub::DownloadManager::finished, [&](qint64, const QString& p) {
    path = p;
    code = 0;
    QCoreApplication::exit(0);
  });
  QObject::connect(&manager, &hub::DownloadManager::failed, [&](qint64, const QString& m) {
    message = m;
    QCoreApplication::exit(0);
  });
  const QString dest = QDir(dir).filePath(QFileInfo(file).fileName());
  if (QFileInfo::exists(dest)) {
    std::fprintf(stderr, "kvchat-cli: %s is already there\n", qPrintable(dest));
    path = dest;
    code = 0;
  } else {
    if (manager.start(request, &error) == 0) return fail(shown(error));
    QCoreApplication::exec();
  }
  if (code != 0) return fail(shown(message));
  print_pulled(path, entry->sha256, json);
  return 0;
}

}  // namespace kvchat::cli
