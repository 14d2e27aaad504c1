// A button of the window's main actions: its icon (resources/icons/NAME.svg, embedded as
// :/icons/NAME.png), its text as the accessible name and tooltip; `showText` puts the text
// beside the icon, `accent` fills it with the accent colour (the primary action).
import QtQuick
import QtQuick.Controls
import kvchat

ToolButton {
    id: button
    property string iconName
    property string toolTip: text
    property bool showText: false
    property bool accent: false
    display: showText ? AbstractButton.TextBesideIcon : AbstractButton.IconOnly
    icon.source: iconName ? "qrc:/icons/" + iconName + ".png" : ""
    icon.width: Theme.iconSize
    icon.height: Theme.iconSize
    icon.color: accent ? Theme.onAccent : Theme.text
    palette.buttonText: accent ? Theme.onAccent : Theme.text
    focusPolicy: Qt.StrongFocus
    Accessible.name: text
    Accessible.description: toolTip
    ToolTip.visible: (hovered || visualFocus) && toolTip.length > 0
    ToolTip.delay: 500
    ToolTip.text: toolTip
    opacity: enabled ? 1 : 0.45
    background: Rectangle {
        implicitWidth: Theme.px(36)
        implicitHeight: Theme.px(36)
        radius: Theme.radiusM
        color: button.accent ? Theme.accent
             : button.down || button.checked ? Theme.raised
             : button.hovered ? Theme.surfaceAlt : "transparent"
        border.color: Theme.focusRing
        border.width: button.visualFocus ? 2 : 0
    }
}
