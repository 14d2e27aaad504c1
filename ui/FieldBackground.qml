// The background of a text field, the same in both themes: the field's colour with an
// outline that is seen (Theme.fieldBorder, ≥ 3:1 on the field and around it; the focus
// ring's colour while it has the focus). Fusion draws a TextArea with none and a
// TextField or SpinBox with one barely darker than the window.
import QtQuick
import kvchat

Rectangle {
    // The field this is the background of (its focus turns the outline to the ring).
    required property Item control
    implicitWidth: Theme.px(120)
    implicitHeight: Theme.px(24)
    radius: Theme.radiusS
    color: Theme.surface
    border.width: control.activeFocus ? 2 : 1
    border.color: control.activeFocus ? Theme.focusRing : Theme.fieldBorder
}
