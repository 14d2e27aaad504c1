#include "testing/stall_benchmark.h"

#include <QGuiApplication>
#include <QTimer>
#include <cstdio>

#include "chat/chat_controller.h"
#include "model/model_controller.h"
#include "testing/stall_meter.h"

namespace kvchat::app {

int benchmark_stalls(QGuiApplication& app, ChatController& chat, const QString& path, int tokens) {
  StallMeter meter;
  double load_ms = 0, generate_ms = 0;
  qint64 load_ticks = 0;
  QObject::connect(chat.models(), &ModelController::modelChanged, &app, [&] {
    if (chat.models()->loading() || load_ms > 0) return;
    meter.stop();
    load_ms = meter.longest_ms();
    load_ticks = meter.ticks();
    if (!chat.models()->error().isEmpty()) {
      std::fprintf(stderr, "kvchat: %s\n", qPrintable(chat.models()->error()));
      app.exit(1);
      return;
    }
    chat.newConversation();
    QVariantMap sampling = chat.models()->sampling();
    sampling["temperature"] = 0.0;
    sampling["max_tokens"] = tokens;
    chat.models()->set_sampling(sampling);
    meter.start();
    chat.send(QStringLiteral("Genesis 1\n1 In the beginning"));
  });
  QObject::connect(&chat, &ChatController::replyFinished, &app, [&] {
    meter.stop();
    generate_ms = meter.longest_ms();
    const auto& stats = chat.last_reply_stats();
    std::printf(
        "{\"model\": \"%s\", \"load_longest_stall_ms\": %.2f, \"load_ticks\": %lld, "
        "\"generate_tokens\": %d, \"generate_longest_stall_ms\": %.2f, "
        "\"generate_ticks\": %lld, \"tokens_per_second\": %.1f}\n",
        qPrintable(path), load_ms, static_cast<long long>(load_ticks),
        stats.value("generated_tokens").toInt(), generate_ms, static_cast<long long>(meter.ticks()),
        stats.value("tokens_per_second").toDouble());
    app.quit();
  });
  QTimer::singleShot(500, &app, [&] {  // let the window show first
    meter.start();
    chat.models()->loadModel(path);
  });
  return app.exec();
}

}  // namespace kvchat::app
