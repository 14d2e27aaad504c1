// StateProbe: a JSON state file for the end-to-end tests, rewritten shortly after any
// signal of the objects it watches (writes coalesced, at most one per kWriteDelayMs;
// each replaces the file in one rename). The objects do not know it: main.cpp makes one
// per state file, only when KVCHAT_TEST_STATE_FILE is set. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QVariantMap>
#include <functional>

namespace kvchat::app {

class StateProbe : public QObject {
  Q_OBJECT
 public:
  static constexpr int kWriteDelayMs = 20;
  // Writes state() to `path` now and after each watched signal.
  StateProbe(QString path, std::function<QVariantMap()> state, QObject* parent = nullptr);

  // Every signal of `object` (its own and its bases', not QObject's) rewrites the file.
  void watch(QObject* object);

 public slots:
  void schedule();

 private:
  void write();

  const QString path_;
  const std::function<QVariantMap()> state_;
  QTimer pending_;
};

}  // namespace kvchat::app
