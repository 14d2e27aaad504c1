// The demo model for the QtTests that drive a ChatController (header only): its path in
// the source tree, and loading it and waiting until it is loaded.
#pragma once

#include <QString>
#include <QtTest>

#include "chat/chat_controller.h"

namespace kvchat::app::testing {

inline const QString kDemoModel =
    QStringLiteral(KVCHAT_SOURCE_DIR "/resources/models/kjv-demo-f16.gguf");

// Loads the demo model (with the model's own settings for it) and waits until it is
// loaded; false after a minute without it.
inline bool load_demo(ChatController& chat) {
  chat.models()->loadModel(kDemoModel);
  return QTest::qWaitFor(
      [&] { return !chat.models()->loading() && !chat.models()->info().isEmpty(); }, 60000);
}

}  // namespace kvchat::app::testing
