// A Switch drawn in the theme's colours (issue 43). Fusion's fills its track with the
// palette's highlight, which the window sets to the selection tint (nearly the background
// in the dark theme), and draws its handle in the button colour: on and off looked alike
// there. Here off is a hollow track outlined in the muted text colour with its knob on
// the left, on is a track filled with the accent and a white knob on the right (each
// at least 3:1 against the backgrounds, WCAG 1.4.11); the keyboard focus rings it.
import QtQuick
import QtQuick.Controls
import kvchat

Switch {
    id: control
    focusPolicy: Qt.StrongFocus
    indicator: Rectangle {
        implicitWidth: Theme.px(40)
        implicitHeight: Theme.px(20)
        x: control.text.length > 0 && control.mirrored ? control.width - width - control.rightPadding
                                                       : control.leftPadding
        y: control.topPadding + (control.availableHeight - height) / 2
        radius: height / 2
        color: control.checked ? Theme.accent : Theme.surface
        border.width: control.visualFocus ? 2 : 1
        border.color: control.visualFocus ? Theme.focusRing : control.checked ? Theme.accent : Theme.textMuted
        opacity: control.enabled ? 1 : 0.45
        Rectangle {
            width: parent.height - Theme.px(8)
            height: width
            radius: width / 2
            y: Theme.px(4)
            x: control.checked ? parent.width - width - Theme.px(4) : Theme.px(4)
            color: control.checked ? Theme.onAccent : Theme.textMuted
            Behavior on x { NumberAnimation { duration: 100 } }
        }
    }
}
