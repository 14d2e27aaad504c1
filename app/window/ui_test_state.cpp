#include "window/ui_test_state.h"

#include <QAccessible>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQuickItem>
#include <QQuickWindow>

#include "testing/chat_state_probe.h"
#include "testing/test_state_file.h"

namespace kvchat::app {
namespace {

// One stop: objectName, QML type ("IconButton", not "IconButton_QMLTYPE_12") and the
// name and role assistive technology gets: its Accessible.name, or for a button its
// text (what Qt Quick Controls name a button by once an assistive technology is on,
// which under Xvfb it is not).
QVariantMap describe(QQuickItem* item) {
  if (!item) return {};
  QString name;
  int role = 0;
  if (QAccessibleInterface* a = QAccessible::queryAccessibleInterface(item)) {
    name = a->text(QAccessible::Name);
    role = static_cast<int>(a->role());
  }
  if (name.isEmpty() && item->inherits("QQuickAbstractButton")) {
    name = item->property("text").toString();
  }
  const QString type =
      QString::fromLatin1(item->metaObject()->className()).section(QStringLiteral("_QML"), 0, 0);
  const QPointF at = item->mapToScene({0, 0});  // tells apart two stops of the same name
  return {{"object_name", item->objectName()},
          {"type", type},
          {"name", name},
          {"role", role},
          {"x", qRound(at.x())},
          {"y", qRound(at.y())}};
}

}  // namespace

UiTestState::UiTestState() {
  const QString state = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE");
  if (!state.isEmpty()) path_ = state + QStringLiteral(".ui.json");
}

void UiTestState::report(const QVariantMap& layout, QQuickItem* focus_root) {
  if (path_.isEmpty()) return;
  QVariantMap state = layout;
  if (focus_root && focus_root->window()) {
    QQuickWindow* window = focus_root->window();
    state.insert(QStringLiteral("focus"), describe(window->activeFocusItem()));
    QVariantList stops;
    QQuickItem* item = focus_root;
    for (int i = 0; i < 400 && item; ++i) {
      stops.append(describe(item));
      item = item->nextItemInFocusChain(true);
      if (item == focus_root) break;
    }
    state.insert(QStringLiteral("tab_order"), stops);
    state.insert(QStringLiteral("device_pixel_ratio"), window->devicePixelRatio());
  }
  const QByteArray json = QJsonDocument(QJsonObject::fromVariantMap(state)).toJson();
  if (json == last_) return;
  if (write_test_state_file(path_, json)) last_ = json;
}

void UiTestState::noteShownText(int row, const QString& text) {
  if (probe_) probe_->noteShownText(row, text);
}

}  // namespace kvchat::app
