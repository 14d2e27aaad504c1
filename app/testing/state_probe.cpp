#include "testing/state_probe.h"

#include <QMetaMethod>

#include "testing/test_state_file.h"

namespace kvchat::app {

StateProbe::StateProbe(QString path, std::function<QVariantMap()> state, QObject* parent)
    : QObject(parent), path_(std::move(path)), state_(std::move(state)) {
  pending_.setSingleShot(true);
  pending_.setInterval(kWriteDelayMs);
  connect(&pending_, &QTimer::timeout, this, &StateProbe::write);
  write();
}

void StateProbe::watch(QObject* object) {
  if (!object) return;
  const QMetaMethod slot = metaObject()->method(metaObject()->indexOfSlot("schedule()"));
  const QMetaObject* meta = object->metaObject();
  for (int i = QObject::staticMetaObject.methodCount(); i < meta->methodCount(); ++i) {
    const QMetaMethod method = meta->method(i);
    if (method.methodType() == QMetaMethod::Signal) connect(object, method, this, slot);
  }
}

void StateProbe::schedule() {
  if (!pending_.isActive()) pending_.start();
}

void StateProbe::write() { write_test_state_file(path_, state_()); }

}  // namespace kvchat::app
