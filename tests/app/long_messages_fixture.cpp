// The data directory e2e_long_messages.sh opens in the window (issue 40 point 8): one
// conversation per kind of giant message a user can end up with (a paste without a single
// space, a runaway reply, Markdown with a code block longer than a page, long reasoning),
// written through the app's own store, as the window would have saved them.
//   long_messages_fixture <data-dir>
// prints the conversations it wrote as JSON lines: {"id", "title", "chars"} (chars: of
// its longest message).
#include <QCoreApplication>
#include <QDir>
#include <cstdio>

#include "store/conversation_store.h"
#include "unbroken_text.h"

using namespace kvchat::app;

namespace {

// Markdown: paragraphs, lists, emphasis, links, and a fenced code block longer than a page
// every so often, to `bytes`.
QString markdown(qsizetype bytes) {
  QString s;
  s.reserve(bytes + 4096);
  for (int i = 0; s.size() < bytes; ++i) {
    s += QStringLiteral(
             "## Part %1\n\nIn the *beginning* God created the **heaven** and the "
             "earth, [see](https://example.org/%1) and `inline code`.\n\n"
             "- one\n- two\n  - nested\n\n> a quote\n\n")
             .arg(i);
    if (i % 50 == 0) {
      s += QStringLiteral("```cpp\n");
      for (int line = 0; line < 1200; ++line)
        s += QStringLiteral("int v%1 = %1 * 2;  // a line of a long block\n").arg(line);
      s += QStringLiteral("```\n\n");
    }
  }
  return s;
}

bool add(ConversationStore& store, const QString& title, const QString& role, const QString& text,
         const QString& reasoning = {}) {
  QString error;
  const qint64 id = store.create_conversation(title, {}, &error);
  if (id == 0) {
    std::fprintf(stderr, "long_messages_fixture: %s\n", qPrintable(error));
    return false;
  }
  const QString question =
      role == QLatin1String("user") ? text : QStringLiteral("Tell me everything.");
  if (store.append_message(id, QStringLiteral("user"), question, MessageState::Complete, &error) ==
      0) {
    std::fprintf(stderr, "long_messages_fixture: %s\n", qPrintable(error));
    return false;
  }
  const QString answer = role == QLatin1String("user")
                             ? QStringLiteral("That is a long message.")
                             : (reasoning.isEmpty() ? text
                                                    : QStringLiteral("<think>") + reasoning +
                                                          QStringLiteral("</think>\n") + text);
  if (store.append_message(id, QStringLiteral("assistant"), answer, MessageState::Complete,
                           &error) == 0) {
    std::fprintf(stderr, "long_messages_fixture: %s\n", qPrintable(error));
    return false;
  }
  std::printf("{\"id\": %lld, \"title\": \"%s\", \"chars\": %lld}\n", static_cast<long long>(id),
              qPrintable(title), static_cast<long long>(std::max(text.size(), reasoning.size())));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: long_messages_fixture DATA_DIR\n");
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  QDir().mkpath(dir);
  QString error;
  auto store = ConversationStore::open(ConversationStore::default_path(dir), &error);
  if (!store) {
    std::fprintf(stderr, "long_messages_fixture: %s\n", qPrintable(error));
    return 1;
  }
  const qsizetype MiB = 1 << 20;
  const bool ok =
      add(*store, QStringLiteral("half a MiB pasted"), QStringLiteral("user"),
          unbroken_text(MiB / 2)) &&
      add(*store, QStringLiteral("5 MiB pasted"), QStringLiteral("user"), unbroken_text(5 * MiB)) &&
      add(*store, QStringLiteral("5 MiB reply without a space"), QStringLiteral("assistant"),
          unbroken_text(5 * MiB)) &&
      add(*store, QStringLiteral("5 MiB of Markdown after 1 MiB of reasoning"),
          QStringLiteral("assistant"), markdown(5 * MiB), markdown(MiB)) &&
      add(*store, QStringLiteral("50 MiB pasted"), QStringLiteral("user"),
          unbroken_text(50 * MiB)) &&
      add(*store, QStringLiteral("50 MiB reply"), QStringLiteral("assistant"), markdown(50 * MiB));
  return ok ? 0 : 1;
}
