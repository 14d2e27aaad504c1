// UiTestState: what the window itself shows, for the end-to-end tests (QML singleton
// UiTestState of the module kvchat).
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QVariantMap>

class QQuickItem;

namespace kvchat::app {

class ChatStateProbe;

// Beside the controllers' state file (KVCHAT_TEST_STATE_FILE), in "<that file>.ui.json":
// the layout Main.qml measures (pane widths, whether the memory panel is a drawer, the
// zoom), the item with the keyboard focus and the whole Tab order with each stop's
// accessible name. Inert when the variable is not set (Main.qml reports only when
// `enabled`).
class UiTestState : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool enabled READ enabled CONSTANT)

 public:
  UiTestState();
  bool enabled() const { return !path_.isEmpty(); }
  // The probe of the controllers' state file (made only when testing), which also hears
  // what the bubbles show.
  void set_probe(ChatStateProbe* probe) { probe_ = probe; }

  // `layout` plus, from `focus_root`'s window, the focused item and the Tab order from
  // `focus_root` round to itself. Written (atomically) only when something changed.
  Q_INVOKABLE void report(const QVariantMap& layout, QQuickItem* focus_root);
  // A user bubble's text as shown (ChatStateProbe::noteShownText); nothing when not testing.
  Q_INVOKABLE void noteShownText(int row, const QString& text);

 private:
  QString path_;
  QByteArray last_;
  ChatStateProbe* probe_ = nullptr;
};

}  // namespace kvchat::app
