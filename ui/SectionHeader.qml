// A section title of the memory panel with its "what is this?" button: the explanation,
// in plain words, opens in a popup beside it (also on Enter/Space when focused).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: header
    property alias text: title.text
    property string help
    property bool bold: true
    property int pixelSize: 0
    property real titleOpacity: 1
    Layout.fillWidth: true
    spacing: 6
    Label {
        id: title
        font.bold: header.bold
        font.pixelSize: header.pixelSize > 0 ? header.pixelSize : Theme.fontSize
        opacity: header.titleOpacity
        Layout.fillWidth: true
        wrapMode: Text.Wrap
    }
    ToolButton {
        id: button
        text: "?"
        visible: header.help.length > 0
        font.bold: true
        implicitWidth: 22
        implicitHeight: 22
        Accessible.name: qsTr("What is this? %1").arg(title.text)
        ToolTip.visible: hovered && !popup.visible
        ToolTip.text: qsTr("What is this?")
        onClicked: popup.opened ? popup.close() : popup.open()
        Popup {
            id: popup
            y: button.height + 2
            x: Math.min(0, header.width - width - button.x)
            width: Math.min(360, header.width)
            padding: 10
            Label {
                width: popup.availableWidth
                wrapMode: Text.Wrap
                text: header.help
            }
        }
    }
}
