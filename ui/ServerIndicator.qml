// The local server in the window's header (issue 43): a dot (green: serving; red: on but
// not serving, e.g. its port taken; grey: off) and "Server on · N busy" / "Server off",
// the URL (or why it does not serve) on hover. Opens the server view (ServerView.qml);
// settingsRequested asks the window for Settings' local server section.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ToolButton {
    id: indicator
    objectName: "serverIndicator"
    signal settingsRequested()
    // The words beside the dot (the header drops them when narrow; the dot stays).
    property bool showText: true
    readonly property var st: LocalServer.stats
    readonly property bool failing: LocalServer.enabled && !LocalServer.running && LocalServer.error.length > 0
    text: LocalServer.running ? qsTr("Server on · %1 busy").arg(Theme.num(indicator.st.busy || 0))
        : indicator.failing ? qsTr("Server not serving")
        : qsTr("Server off")
    focusPolicy: Qt.StrongFocus
    Accessible.name: text
    Accessible.description: ToolTip.text
    ToolTip.visible: (hovered || visualFocus)
    ToolTip.delay: 500
    ToolTip.text: LocalServer.running ? qsTr("Local server at %1. Click for its sessions and requests.").arg(LocalServer.url)
        : indicator.failing ? LocalServer.error
        : qsTr("The local server is off. Click for the server view.")
    contentItem: RowLayout {
        spacing: Theme.spacingXs
        Rectangle {
            objectName: "serverIndicatorDot"
            implicitWidth: Theme.px(10)
            implicitHeight: Theme.px(10)
            radius: width / 2
            color: LocalServer.running ? Theme.success : indicator.failing ? Theme.error : Theme.textMuted
        }
        Label {
            visible: indicator.showText
            text: indicator.text
            color: Theme.text
            textFormat: Text.PlainText
        }
    }
    background: Rectangle {
        implicitWidth: Theme.px(36)
        implicitHeight: Theme.px(36)
        radius: Theme.radiusM
        color: indicator.down || view.opened ? Theme.raised : indicator.hovered ? Theme.surfaceAlt : "transparent"
        border.color: Theme.focusRing
        border.width: indicator.visualFocus ? 2 : 0
    }
    onClicked: view.open()
    // The view as shown (for the end-to-end tests): open or not, and every text it shows.
    readonly property alias view: view

    ServerView {
        id: view
        onSettingsRequested: indicator.settingsRequested()
    }
}
