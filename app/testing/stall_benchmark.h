// kvchat --benchmark-ui-stalls N: the longest time the GUI event loop did not run while the
// model loaded and while N tokens were generated (target: under 50 ms), printed as JSON.
#pragma once

#include <QString>

class QGuiApplication;

namespace kvchat::app {

class ChatController;

// Loads `path` half a second after the window shows, then generates `tokens` greedily;
// returns the application's exit code (it quits when done).
int benchmark_stalls(QGuiApplication& app, ChatController& chat, const QString& path, int tokens);

}  // namespace kvchat::app
