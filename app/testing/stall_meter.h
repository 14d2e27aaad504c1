// StallMeter: how long the GUI thread's event loop goes without running. A 1 ms timer
// on the GUI thread notes the time between its ticks; the longest gap is the worst
// stall a user would feel (a frame at 60 Hz is 16.7 ms).
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace kvchat::app {

class StallMeter : public QObject {
  Q_OBJECT
 public:
  explicit StallMeter(QObject* parent = nullptr);
  void start();
  void stop();
  double longest_ms() const { return longest_ns_ / 1e6; }
  qint64 ticks() const { return ticks_; }

 private:
  void tick();
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ns_ = 0;
  qint64 longest_ns_ = 0;
  qint64 ticks_ = 0;
};

}  // namespace kvchat::app
