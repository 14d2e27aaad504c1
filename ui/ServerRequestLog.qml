// The server view's live request log (LocalServer.requestLog: the last 200, newest first,
// over restarts of the same server): time, method and route, status, prompt → completion
// tokens, duration, the client; the message's first characters under it when the user
// turned that on. Keyboard: reached by Tab, its rows with the arrows.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: log
    spacing: 2
    function tokens(r) {
        return r.prompt_tokens > 0 || r.completion_tokens > 0
            ? qsTr("%1 → %2").arg(Theme.num(r.prompt_tokens)).arg(Theme.num(r.completion_tokens)) : "—"
    }

    RowLayout {
        Layout.fillWidth: true
        TableCell { text: qsTr("time"); font.bold: true; Layout.preferredWidth: Theme.px(70) }
        TableCell { text: qsTr("route"); font.bold: true; fill: true }
        TableCell { text: qsTr("status"); font.bold: true; Layout.preferredWidth: Theme.px(50) }
        TableCell { text: qsTr("tokens in → out"); font.bold: true; Layout.preferredWidth: Theme.px(110) }
        TableCell { text: qsTr("duration"); font.bold: true; Layout.preferredWidth: Theme.px(80) }
        TableCell { text: qsTr("client"); font.bold: true; Layout.preferredWidth: Theme.px(110) }
    }
    ListView {
        id: list
        objectName: "serverRequestLog"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        model: LocalServer.requestLog
        activeFocusOnTab: true
        keyNavigationEnabled: true
        highlightFollowsCurrentItem: true
        Accessible.name: qsTr("Requests to the local server")
        ScrollBar.vertical: ScrollBar {}
        highlight: Rectangle { color: Theme.selection; radius: Theme.radiusS; visible: list.activeFocus }
        Label {
            anchors.centerIn: parent
            visible: list.count === 0
            font.pixelSize: Theme.smallSize
            color: Theme.textMuted
            text: qsTr("No request yet.")
        }
        delegate: ColumnLayout {
            id: row
            required property var modelData
            width: ListView.view.width
            spacing: 0
            Accessible.role: Accessible.ListItem
            // The route is the client's text: joined, never through arg() (a "%1" in it).
            Accessible.name: row.modelData.method + " " + row.modelData.route + ", "
                             + qsTr("status %1").arg(row.modelData.status)
            RowLayout {
                Layout.fillWidth: true
                TableCell { text: Qt.formatTime(new Date(row.modelData.time), "hh:mm:ss"); Layout.preferredWidth: Theme.px(70) }
                TableCell { text: row.modelData.method + " " + row.modelData.route; fill: true }
                TableCell {
                    text: row.modelData.status
                    color: row.modelData.status >= 400 ? Theme.error : Theme.text
                    Layout.preferredWidth: Theme.px(50)
                }
                TableCell { text: log.tokens(row.modelData); Layout.preferredWidth: Theme.px(110) }
                TableCell { text: qsTr("%1 ms").arg(Theme.num(row.modelData.duration_ms)); Layout.preferredWidth: Theme.px(80) }
                TableCell { text: row.modelData.client_address; Layout.preferredWidth: Theme.px(110) }
            }
            TableCell {
                visible: (row.modelData.message_text || "").length > 0
                text: "“" + row.modelData.message_text + "”"
                color: Theme.textMuted
                fill: true
                Layout.leftMargin: Theme.px(70)
            }
        }
    }
}
