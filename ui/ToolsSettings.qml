// Settings → Tools: the MCP tool servers of <data dir>/mcp.json (Tools:
// app/tools/tools_controller.h), each with a switch that enables it, its state, why it
// failed, its stderr and its tools (descriptions, input schemas; a tool allowed for good
// shows Revoke); a form that adds a server; the limits on calls in a row and on a result's
// length. A conversation picks which servers it offers with the Tools button by the
// message box.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: root
    spacing: 6
    property string error: ""
    function focusFirst() {
        var first = serverRepeater.count > 0 ? serverRepeater.itemAt(0) : null
        if (first) first.focusSwitch()  // qmllint disable type
        else addName.forceActiveFocus(Qt.TabFocusReason)
    }

    Label { text: qsTr("Tools"); font.bold: true }
    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: qsTr("Tool servers (MCP) let the model read files, search or run what they offer. Every call is shown in the reply and runs only once you allow it. Servers are kept in %1.").arg(Tools.configPath)
    }
    Label {
        visible: Tools.configError.length > 0 || root.error.length > 0
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        color: Theme.error
        text: Tools.configError || root.error
    }
    Repeater {
        id: serverRepeater
        model: Tools.servers
        delegate: Rectangle {
            id: server
            required property var modelData
            property bool expanded: false
            function focusSwitch() { enableSwitch.forceActiveFocus(Qt.TabFocusReason) }
            Layout.fillWidth: true
            implicitHeight: serverColumn.implicitHeight + 2 * Theme.spacingS
            radius: Theme.radiusS
            color: "transparent"
            border.color: server.modelData.state === "failed" ? Theme.error : Theme.border
            ColumnLayout {
                id: serverColumn
                anchors.fill: parent
                anchors.margins: Theme.spacingS
                spacing: Theme.spacingXs
                RowLayout {
                    Layout.fillWidth: true
                    ThemedSwitch {
                        id: enableSwitch
                        objectName: "toolServerSwitch"
                        checked: server.modelData.enabled
                        Accessible.name: qsTr("Enable the tool server %1").arg(server.modelData.name)
                        onToggled: root.error = Tools.setServerEnabled(server.modelData.name, checked)
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        font.bold: true
                        text: server.modelData.name
                    }
                    Label {
                        objectName: "toolServerState"
                        font.pixelSize: Theme.smallSize
                        color: server.modelData.state === "failed" ? Theme.error
                             : server.modelData.state === "ready" ? Theme.text : Theme.textMuted
                        text: server.modelData.state === "ready" ? qsTr("ready · %1 tools").arg(server.modelData.tools.length)
                            : server.modelData.state === "failed" ? qsTr("failed")
                            : server.modelData.state === "starting" ? qsTr("starting…")
                            : server.modelData.state === "disabled" ? qsTr("off") : qsTr("stopped")
                    }
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.WrapAnywhere
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                    text: server.modelData.url || (server.modelData.command + " " + server.modelData.args)
                }
                Label {
                    visible: (server.modelData.message || "").length > 0
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: Theme.error
                    text: server.modelData.message || ""
                }
                RowLayout {
                    Button {
                        objectName: "toolServerDetails"
                        text: server.expanded ? qsTr("Hide its tools and log") : qsTr("Its tools and log")
                        onClicked: server.expanded = !server.expanded
                    }
                    Button {
                        text: qsTr("Remove")
                        Accessible.name: qsTr("Remove the tool server %1").arg(server.modelData.name)
                        onClicked: root.error = Tools.removeServer(server.modelData.name)
                    }
                }
                Repeater {
                    model: server.expanded ? server.modelData.tools : []
                    delegate: ColumnLayout {
                        id: tool
                        required property var modelData
                        Layout.fillWidth: true
                        spacing: 2
                        RowLayout {
                            Layout.fillWidth: true
                            Label {
                                Layout.fillWidth: true
                                wrapMode: Text.Wrap
                                font.family: Theme.monoFamily
                                text: tool.modelData.function ? tool.modelData.name : qsTr("%1 (not offered: see below)").arg(tool.modelData.name)
                            }
                            Button {
                                visible: tool.modelData.allowed
                                text: qsTr("Revoke")
                                Accessible.name: qsTr("Ask again before %1 runs").arg(tool.modelData.name)
                                onClicked: Tools.revokeTool(tool.modelData.key)
                            }
                        }
                        Label {
                            visible: tool.modelData.allowed
                            font.pixelSize: Theme.smallSize
                            color: Theme.warning
                            text: qsTr("Runs without asking (Always allow)")
                        }
                        Label {
                            visible: (tool.modelData.description || "").length > 0
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            font.pixelSize: Theme.smallSize
                            text: tool.modelData.description || ""
                        }
                        TextEdit {
                            Layout.fillWidth: true
                            readOnly: true
                            selectByMouse: true
                            wrapMode: TextEdit.WrapAnywhere
                            textFormat: TextEdit.PlainText
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.smallSize
                            color: Theme.textMuted
                            text: tool.modelData.schema
                        }
                    }
                }
                Label {
                    visible: server.expanded
                    text: qsTr("Its stderr (the last lines)")
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                }
                TextEdit {
                    visible: server.expanded
                    Layout.fillWidth: true
                    readOnly: true
                    selectByMouse: true
                    wrapMode: TextEdit.WrapAnywhere
                    textFormat: TextEdit.PlainText
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.smallSize
                    text: server.expanded ? (server.modelData.stderr || qsTr("(nothing)")) : ""
                }
            }
        }
    }
    Repeater {
        model: Tools.notes
        delegate: Label {
            required property string modelData
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            color: Theme.textMuted
            text: qsTr("Not offered: %1").arg(modelData)
        }
    }

    // A new server: what LM Studio and Claude Desktop write under "mcpServers".
    Label { text: qsTr("Add a server"); font.pixelSize: Theme.smallSize; color: Theme.textMuted }
    GridLayout {
        columns: 2
        Layout.fillWidth: true
        Label { text: qsTr("name") }
        TextField { id: addName; objectName: "toolAddName"; Layout.fillWidth: true
                    background: FieldBackground { control: addName }
                    Accessible.name: qsTr("The new server's name") }
        Label { text: qsTr("command") }
        TextField { id: addCommand; objectName: "toolAddCommand"; Layout.fillWidth: true; placeholderText: "npx"
                    background: FieldBackground { control: addCommand }
                    Accessible.name: qsTr("The command that starts it, or its URL (http://127.0.0.1:PORT/mcp)") }
        Label { text: qsTr("arguments") }
        TextField { id: addArgs; objectName: "toolAddArgs"; Layout.fillWidth: true
                    background: FieldBackground { control: addArgs }
                    placeholderText: qsTr("as on a command line")
                    Accessible.name: qsTr("Its arguments, as on a command line") }
        Label { text: qsTr("environment") }
        TextArea { id: addEnv; objectName: "toolAddEnv"; Layout.fillWidth: true; placeholderText: qsTr("KEY=value, one per line")
                   wrapMode: TextArea.Wrap
                   background: FieldBackground { control: addEnv }
                   // Tab leaves the box (the keyboard is never trapped here).
                   Keys.onTabPressed: (event) => nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                   Keys.onBacktabPressed: (event) => nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                   Accessible.name: qsTr("Environment variables it gets (only these, and HOME, PATH, USER…)") }
    }
    Button {
        objectName: "toolAddButton"
        text: qsTr("Add and start")
        enabled: addName.text.trim().length > 0 && addCommand.text.trim().length > 0
        onClicked: {
            root.error = Tools.addServer(addName.text, addCommand.text, addArgs.text, addEnv.text)
            if (root.error.length === 0) { addName.text = ""; addCommand.text = ""; addArgs.text = ""; addEnv.text = "" }
        }
    }

    // Limits.
    GridLayout {
        columns: 2
        Layout.fillWidth: true
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("calls in a row before asking again") }
        SpinBox { objectName: "toolMaxCalls"; from: 1; to: 100; editable: true; value: Tools.maxCalls
                  onValueModified: Tools.maxCalls = value
                  Accessible.name: qsTr("Tool calls in a row before asking again") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("tokens kept of a result") }
        SpinBox { objectName: "toolMaxResultTokens"; from: 16; to: 1000000; stepSize: 1000; editable: true; value: Tools.maxResultTokens
                  textFromValue: (v) => Theme.num(v); valueFromText: (t) => parseInt(String(t).replace(/[^0-9]/g, "")) || 8000
                  onValueModified: Tools.maxResultTokens = value
                  Accessible.name: qsTr("Tokens kept of a tool's result (a longer one is cut, and the cut said)") }
    }
    Button {
        text: qsTr("Reload mcp.json")
        onClicked: Tools.reload()
    }
}
