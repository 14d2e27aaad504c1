// The local server's sessions as users of the same weights (Settings → Local server):
// each one's client (User-Agent, address), KV and requests, the KV blocks they share, and
// how many more such users fit.
// A section of the memory panel (MemoryPanel.qml); shown while the server runs.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    required property var panel
    readonly property var st: LocalServer.stats
    readonly property var sessions: st.sessions || []
    visible: LocalServer.running
    Layout.fillWidth: true
    spacing: 6

    SectionHeader {
        text: qsTr("Local server: its users")
        help: qsTr("Each program talking to the local server gets a session of its own: its own KV cache over the same weights, growing with its conversation, kept while idle so a follow-up reuses it. Sessions whose prompts begin alike (a system prompt, a document) hold those KV blocks once. The last line divides the memory left by the average session's KV.")
    }
    Label {
        objectName: "serverUsersSummary"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: qsTr("%1 of %2 sessions in use · %3 busy · KV %4 · shared between sessions %5 · requests served: %6")
              .arg(Theme.num(section.sessions.length)).arg(Theme.num(section.st.slots || 0))
              .arg(Theme.num(section.st.busy || 0)).arg(section.panel.fmt(section.st.kv_allocated_bytes))
              .arg(section.panel.fmt(section.st.kv_shared_bytes)).arg(Theme.num(section.st.requests || 0))
    }
    Repeater {
        model: section.sessions
        delegate: Label {
            required property var modelData
            Layout.fillWidth: true
            Layout.maximumWidth: section.panel.columnWidth
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            // Who it serves: the last client's User-Agent and address, after the figures (a
            // client's text never goes through arg(): a "%1" in it would be replaced).
            textFormat: Text.PlainText
            text: qsTr("#%1 · %2 · %3 tokens · KV %4%5 · requests: %6")
                  .arg(modelData.index + 1).arg(modelData.busy ? qsTr("busy") : qsTr("idle"))
                  .arg(Theme.num(modelData.tokens)).arg(section.panel.fmt(modelData.kv_bytes))
                  .arg(modelData.shared_bytes > 0 ? qsTr(" (%1 shared)").arg(section.panel.fmt(modelData.shared_bytes)) : "")
                  .arg(Theme.num(modelData.requests))
                  + " · " + (modelData.user_agent ? modelData.user_agent + " (" + modelData.client_address + ")"
                                                  : (modelData.client_address || qsTr("no client yet")))
        }
    }
    Label {
        objectName: "serverMoreUsers"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: (section.st.more_users ?? -1) < 0
              ? qsTr("More users of this size that fit: — (no session holds KV yet)")
              : qsTr("More users of this size that fit: %1 (in the %2)").arg(Theme.num(section.st.more_users))
                .arg((section.st.kv_budget_bytes || 0) > 0 ? qsTr("server's KV budget") : qsTr("memory available"))
    }
}
