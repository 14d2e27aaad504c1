#include "testing/long_message_benchmark.h"

#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <memory>

#include "chat/chat_controller.h"
#include "conversations/conversation_list_controller.h"
#include "conversations/conversation_list_model.h"
#include "messages/message_list_model.h"
#include "testing/stall_meter.h"

namespace kvchat::app {

namespace {

// VmRSS / VmHWM of /proc/self/status, in bytes (0 where it cannot be read).
qint64 proc_status_bytes(const char* field) {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : f.readAll().split('\n')) {
    if (line.startsWith(field)) {
      return line.mid(qstrlen(field)).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
  }
  return 0;
}

// Steps run one after another on the GUI thread, each `ms` after the last; a step added
// with until() is tried again every 50 ms until it says it is done.
class Script {
 public:
  void add(int ms, std::function<void()> step) {
    steps_.push_back({ms, [step = std::move(step)] {
                        step();
                        return true;
                      }});
  }
  void until(std::function<bool()> done) { steps_.push_back({50, std::move(done)}); }
  void run(QObject* context) {
    if (next_ >= steps_.size()) return;
    const auto [ms, step] = steps_[next_];
    QTimer::singleShot(ms, context, [this, context, step] {
      if (step()) ++next_;
      run(context);
    });
  }

 private:
  std::vector<std::pair<int, std::function<bool()>>> steps_;
  size_t next_ = 0;
};

}  // namespace

int benchmark_long_messages(QGuiApplication& app, ChatController& chat,
                            QQmlApplicationEngine& engine) {
  QObject* list =
      engine.rootObjects().isEmpty()
          ? nullptr
          : engine.rootObjects().constFirst()->findChild<QObject*>(QStringLiteral("messageList"));
  if (!list) {
    std::fprintf(stderr, "kvchat: the window has no message list\n");
    return 1;
  }
  auto* messages = qobject_cast<MessageListModel*>(chat.messages());
  const ConversationListModel* listed = chat.conversation_list()->list_model();
  QVector<StoredConversation> conversations;
  for (int row = 0; row < listed->rowCount(); ++row) {
    StoredConversation c;
    c.id = listed->idAt(row);
    c.title = listed->titleAt(row);
    conversations.push_back(c);
  }
  auto meter = std::make_shared<StallMeter>();
  auto script = std::make_shared<Script>();
  auto results = std::make_shared<QJsonArray>();
  for (const StoredConversation& c : conversations) {
    script->add(300, [&chat, meter, id = c.id] {
      meter->start();
      chat.selectConversation(id);
    });
    // Long messages are read on the loader's thread: the window goes on meanwhile.
    script->until([&chat] { return !chat.property("opening").toBool(); });
    script->add(1500, [list] { QMetaObject::invokeMethod(list, "positionViewAtBeginning"); });
    // Every long message paged through, copied and offered for editing (refused, said).
    for (int step = 0; step < 4; ++step) {
      script->add(400, [messages, list, step] {
        for (int row = 0; row < messages->rowCount(); ++row) {
          const QModelIndex i = messages->index(row);
          const int pages = messages->data(i, MessageListModel::PageCountRole).toInt();
          const int thinking = messages->data(i, MessageListModel::ThinkingPageCountRole).toInt();
          const int to[] = {1, pages - 1, 0};
          const int thinking_to[] = {1, thinking - 1, 0};
          if (step < 3) {
            if (pages > 1) messages->showPage(row, to[step]);
            if (thinking > 1) messages->showThinkingPage(row, thinking_to[step]);
          } else if (pages > 1) {
            messages->copy(row, QStringLiteral("content"));
            QMetaObject::invokeMethod(list, "startEdit", Q_ARG(QVariant, row));
          }
        }
      });
    }
    script->add(400, [list] { QMetaObject::invokeMethod(list, "positionViewAtEnd"); });
    script->add(600, [meter, results, messages, c] {
      meter->stop();
      qsizetype longest = 0;
      for (const StoredMessage& m : messages->items())
        longest = std::max(longest, m.content.size());
      results->append(QJsonObject{{QStringLiteral("id"), c.id},
                                  {QStringLiteral("title"), c.title},
                                  {QStringLiteral("longest_message_chars"), qint64(longest)},
                                  {QStringLiteral("longest_stall_ms"), meter->longest_ms()},
                                  {QStringLiteral("ticks"), meter->ticks()}});
    });
  }
  script->add(0, [&app, results] {
    const QJsonObject out{{QStringLiteral("conversations"), *results},
                          {QStringLiteral("rss_bytes"), proc_status_bytes("VmRSS:")},
                          {QStringLiteral("peak_rss_bytes"), proc_status_bytes("VmHWM:")}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    app.quit();
  });
  script->run(&app);
  return app.exec();
}

}  // namespace kvchat::app
