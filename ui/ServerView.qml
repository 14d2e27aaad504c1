// The server view (issue 43), opened from the header's ServerIndicator: the local server's
// URL and endpoints, its counters (kept across a restart of the same server), the last
// restart and why, each session with the client that used it last (address, User-Agent,
// model; busy or idle, tokens, KV, shared bytes), and the live request log (time, route,
// status, tokens, duration; the last 200, newest first; never a key, the message text only
// when the switch below is on). Keyboard: Tab goes through its controls, the log's rows
// with the arrows, Esc closes.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Dialog {
    id: dialog
    objectName: "serverView"
    signal settingsRequested()
    readonly property var st: LocalServer.stats
    readonly property var sessions: dialog.st.sessions || []
    readonly property var restart: LocalServer.lastRestart
    title: qsTr("Local server")
    modal: true
    focus: true
    closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutside
    anchors.centerIn: Overlay.overlay
    width: Math.min(Theme.px(900), (Overlay.overlay ? Overlay.overlay.width : Theme.px(900)) - 40)
    height: Math.min(Theme.px(720), (Overlay.overlay ? Overlay.overlay.height : Theme.px(720)) - 40)
    standardButtons: Dialog.Close

    function clock(ms) { return Qt.formatTime(new Date(ms), "hh:mm:ss") }
    function statusLine() {
        if (LocalServer.running) return qsTr("Serving %1 at %2").arg(LocalServer.modelId).arg(LocalServer.url)
        return LocalServer.error.length > 0 ? "✕ " + LocalServer.error : qsTr("Off.")
    }
    function restartLine() {
        if (!dialog.restart.reason) return qsTr("No restart since the app started.")
        return (dialog.restart.counters_kept ? qsTr("Last restart at %1: %2 (the counters and the log were kept).")
                                             : qsTr("Last restart at %1: %2 (the counters started again)."))
            .arg(dialog.clock(dialog.restart.time)).arg(dialog.restart.reason)
    }

    component Heading: Label { font.bold: true; Layout.topMargin: Theme.spacingS }

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        ColumnLayout {
            width: scroll.availableWidth
            spacing: Theme.spacingXs

            Label {
                objectName: "serverViewStatus"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                color: LocalServer.error.length > 0 && !LocalServer.running ? Theme.error : Theme.text
                text: dialog.statusLine()
            }
            Label {
                objectName: "serverViewCounters"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                visible: LocalServer.running
                text: qsTr("Requests served: %1 · refused, every session busy: %2 · clients that hung up: %3 · prompt tokens evaluated: %4")
                      .arg(Theme.num(dialog.st.requests)).arg(Theme.num(dialog.st.rejected_busy))
                      .arg(Theme.num(dialog.st.client_hang_ups)).arg(Theme.num(dialog.st.prompt_tokens_evaluated))
            }
            Label {
                objectName: "serverViewRestart"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: dialog.restartLine()
            }

            Heading { text: qsTr("Endpoints") }
            Repeater {
                model: LocalServer.endpoints
                delegate: Label {
                    required property string modelData
                    textFormat: Text.PlainText
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.smallSize
                    text: modelData
                }
            }

            Heading { text: qsTr("Sessions and their clients") }
            Label {
                visible: dialog.sessions.length === 0
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: qsTr("No client has been served yet.")
            }
            RowLayout {
                visible: dialog.sessions.length > 0
                Layout.fillWidth: true
                TableCell { text: "#"; font.bold: true; Layout.preferredWidth: Theme.px(28) }
                TableCell { text: qsTr("client"); font.bold: true; Layout.preferredWidth: Theme.px(110) }
                TableCell { text: qsTr("user agent"); font.bold: true; fill: true }
                TableCell { text: qsTr("model"); font.bold: true; Layout.preferredWidth: Theme.px(110) }
                TableCell { text: qsTr("state"); font.bold: true }
                TableCell { text: qsTr("tokens"); font.bold: true }
                TableCell { text: qsTr("KV"); font.bold: true; Layout.preferredWidth: Theme.px(80) }
                TableCell { text: qsTr("shared"); font.bold: true; Layout.preferredWidth: Theme.px(80) }
            }
            Repeater {
                model: dialog.sessions
                delegate: RowLayout {
                    id: sessionRow
                    required property var modelData
                    objectName: "serverViewSession"
                    Layout.fillWidth: true
                    TableCell { text: sessionRow.modelData.index + 1; Layout.preferredWidth: Theme.px(28) }
                    TableCell { text: sessionRow.modelData.client_address || "—"; Layout.preferredWidth: Theme.px(110) }
                    TableCell { text: sessionRow.modelData.user_agent || "—"; fill: true }
                    TableCell { text: sessionRow.modelData.model || "—"; Layout.preferredWidth: Theme.px(110) }
                    TableCell { text: sessionRow.modelData.busy ? qsTr("busy") : qsTr("idle") }
                    TableCell { text: Theme.num(sessionRow.modelData.tokens) }
                    TableCell { text: Chat.formatBytes(sessionRow.modelData.kv_bytes); Layout.preferredWidth: Theme.px(80) }
                    TableCell { text: Chat.formatBytes(sessionRow.modelData.shared_bytes); Layout.preferredWidth: Theme.px(80) }
                }
            }

            Heading { text: qsTr("Requests (the last 200, newest first)") }
            RowLayout {
                Layout.fillWidth: true
                ThemedSwitch {
                    id: logText
                    objectName: "serverLogMessageText"
                    checked: LocalServer.logMessageText
                    Accessible.name: qsTr("Log the text of each request's last message")
                    onToggled: LocalServer.logMessageText = checked
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("Log the text of each request's last message (its first 200 characters). Off: the log holds routes, statuses and token counts, never what clients wrote nor their keys.")
                }
            }
            ServerRequestLog { Layout.fillWidth: true; Layout.preferredHeight: Theme.px(240) }

            Button {
                objectName: "serverViewSettings"
                Layout.topMargin: Theme.spacingS
                text: qsTr("Server settings…")
                onClicked: { dialog.close(); dialog.settingsRequested() }
            }
        }
    }
}
