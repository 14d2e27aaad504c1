// A section title of the memory panel with its "what is this?" button: the explanation,
// in plain words, opens in a popup beside it (also on Enter/Space when focused; Esc closes
// it), kept inside the window.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

RowLayout {
    id: header
    property alias text: title.text
    property string help
    property bool bold: true
    property int pixelSize: 0
    property real titleOpacity: 1
    Layout.fillWidth: true
    spacing: 6
    // In a scrolled panel, brings the header into view (its "?" got the keyboard focus).
    function scrollIntoView() {
        for (var p = header.parent; p; p = p.parent) {
            // (qmllint: any Item is asked; the Flickables answer)
            if (p.contentY === undefined || p.flickableDirection === undefined) continue  // qmllint disable type
            var y = header.mapToItem(p.contentItem, 0, 0).y
            if (y < p.contentY) p.contentY = Math.max(0, y - Theme.spacingS)
            else if (y + header.height > p.contentY + p.height)
                p.contentY = Math.max(0, Math.min(p.contentHeight - p.height, y + header.height - p.height + Theme.spacingS))
            return
        }
    }
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
        implicitWidth: Theme.px(22)
        implicitHeight: Theme.px(22)
        Accessible.name: qsTr("What is this? %1").arg(title.text)
        ToolTip.visible: hovered && !popup.visible
        ToolTip.text: qsTr("What is this?")
        onClicked: popup.opened ? popup.close() : popup.open()
        onActiveFocusChanged: if (activeFocus) header.scrollIntoView()
        Popup {
            id: popup
            // Below the button, or above it when the window has no room below.
            onAboutToShow: {
                const below = button.mapToItem(null, 0, button.height + 2).y
                y = below + implicitHeight <= button.Window.height - Theme.spacingS ? button.height + 2 : -implicitHeight - 2
            }
            x: Math.min(0, header.width - width - button.x)
            width: Math.min(Theme.px(360), header.width)
            margins: Theme.spacingS  // moved to stay inside the window, never drawn past its edge
            padding: 10
            // Esc closes it through the window's Esc shortcut (Theme.closeHelpPopups), not
            // the popup's own CloseOnEscape: Qt Quick blocks every window shortcut (Ctrl+O,
            // Ctrl+=, ...) while a popup that closes on Escape is open.
            closePolicy: Popup.CloseOnPressOutside
            Connections { target: Theme; function onCloseHelpPopups() { popup.close() } }
            onOpenedChanged: {
                Theme.helpPopupsOpen += opened ? 1 : -1
                if (opened) Theme.helpPopupBottom = contentItem.mapToItem(null, 0, contentItem.height).y + bottomPadding
            }
            Label {
                width: popup.availableWidth
                wrapMode: Text.Wrap
                text: header.help
            }
        }
    }
}
