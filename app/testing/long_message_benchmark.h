// kvchat --benchmark-long-messages: how long the window's thread is held up by the longest
// messages a user can end up with (issue 40 point 8). Every conversation of the data
// directory is opened in the window in turn; in each, the list is scrolled to its first
// message and back, every message longer than a page is paged (second page, last page,
// first), copied whole, and offered for editing; the StallMeter notes the longest time the
// event loop did not run. Prints one JSON object and quits:
//   {"conversations": [{"id", "title", "longest_message_chars", "longest_stall_ms",
//     "ticks"}], "rss_bytes", "peak_rss_bytes"}
#pragma once

class QGuiApplication;
class QQmlApplicationEngine;

namespace kvchat::app {

class ChatController;

int benchmark_long_messages(QGuiApplication& app, ChatController& chat,
                            QQmlApplicationEngine& engine);

}  // namespace kvchat::app
