// The child process test_kill_recovery SIGKILLs at random moments. It runs the app's own
// classes headless and reports on stdout what it has stored, one line each, flushed:
//   fault_child chat <data-dir> <model> <seed>
//     ChatController on <data-dir> (start-up recovery, the store, the engine thread):
//     a new conversation, then turn after turn of short greedy replies. After each
//     reply is stored: "saved <message id> <sha1 of its text>".
//   fault_child summary <database> <model> <job id>
//     run_summary_job (as EngineWorker::summarizeDocument runs it) resuming job <job id>.
//     After each partial summary is stored: "partial <level> <index> <sha1 of its text>";
//     at the end "done <status>".
// "started" is printed when the work (generation / the job) begins.
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QTimer>
#include <cstdio>

#include "chat/chat_controller.h"
#include "documents/summary_job.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "messages/message_list_model.h"

using namespace kvchat::app;

namespace {

QByteArray sha1(const QString& text) {
  return QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1).toHex();
}

void say(const QByteArray& line) {
  std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int run_chat(QCoreApplication& app, const QString& data_dir, const QString& model, quint32 seed) {
  ChatController chat(data_dir);
  if (!chat.store_error().isEmpty()) {
    say("error " + chat.store_error().toUtf8());
    return 2;
  }
  QRandomGenerator rng(seed);
  int turn = 0;
  const auto next_turn = [&] {
    QVariantMap sampling = chat.models()->sampling();
    sampling[QStringLiteral("temperature")] = 0.0;
    sampling[QStringLiteral("max_tokens")] = 4 + int(rng.bounded(40));
    chat.models()->set_sampling(sampling);
    chat.send(QStringLiteral("Genesis %1\n1 In the beginning").arg(++turn));
  };
  bool started = false;
  QObject::connect(chat.models(), &kvchat::app::ModelController::modelChanged, &app, [&] {
    if (started || chat.models()->loading()) return;
    if (chat.models()->info().isEmpty()) {
      say("error " + chat.models()->error().toUtf8());
      app.exit(2);
      return;
    }
    started = true;
    chat.newConversation();
    say("started");
    next_turn();
  });
  QObject::connect(&chat, &ChatController::replyFinished, &app, [&] {
    const auto& items = chat.message_items();
    const auto* rows = static_cast<MessageListModel*>(chat.messages());
    const int last = rows->rowCount() - 1;
    if (last >= 0 && rows->saved(last)) {
      say("saved " + QByteArray::number(items.back().id) + " " + sha1(items.back().content));
    }
    if (turn < 1000) QTimer::singleShot(0, &app, next_turn);
  });
  chat.models()->loadModel(model);
  return app.exec();
}

int run_summary(const QString& db, const QString& model_path, qint64 job) {
  auto model = kvchat::Model::load(model_path.toStdString());
  if (!model) {
    say("error " + QByteArray::fromStdString(model.message()));
    return 2;
  }
  kvchat::SessionOptions options;
  options.backend = "cpu";
  options.n_threads = 1;
  options.n_ctx = 256;
  SummaryJobHooks hooks;
  hooks.partial = [](const StoredPartial& p) {
    say("partial " + QByteArray::number(p.level) + " " + QByteArray::number(p.index) + " " +
        sha1(p.text));
  };
  say("started");
  const SummaryJobOutcome o = run_summary_job(db, job, std::move(model).value(), options, hooks);
  say("done " + job_status_name(o.status).toUtf8() + " " + o.error.toUtf8());
  return o.status == JobStatus::Done ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() == 5 && args[1] == QLatin1String("chat"))
    return run_chat(app, args[2], args[3], args[4].toUInt());
  if (args.size() == 5 && args[1] == QLatin1String("summary"))
    return run_summary(args[2], args[3], args[4].toLongLong());
  std::fprintf(stderr, "usage: fault_child chat DATA_DIR MODEL SEED | summary DB MODEL JOB\n");
  return 64;
}
