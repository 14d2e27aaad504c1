#include "testing/stall_meter.h"

#include <algorithm>

namespace kvchat::app {

StallMeter::StallMeter(QObject* parent) : QObject(parent) {
  timer_.setInterval(1);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &StallMeter::tick);
}

void StallMeter::start() {
  longest_ns_ = 0;
  ticks_ = 0;
  clock_.start();
  last_ns_ = clock_.nsecsElapsed();
  timer_.start();
}

void StallMeter::stop() {
  tick();
  timer_.stop();
}

void StallMeter::tick() {
  const qint64 now = clock_.nsecsElapsed();
  longest_ns_ = std::max(longest_ns_, now - last_ns_);
  last_ns_ = now;
  ++ticks_;
}

}  // namespace kvchat::app
