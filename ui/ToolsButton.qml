// The message box's Tools button (Ctrl+T): which tool servers' tools this conversation
// offers the model (none by default; Settings → Tools lists the servers), and whether its
// replies must call one. Keyboard: Tab through the boxes, Space toggles, Esc closes.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

IconButton {
    id: button
    objectName: "toolsButton"
    signal settingsRequested()
    signal choiceClosed()  // the focus goes back to the message box
    readonly property int offered: Chat.conversationToolServers.length
    iconName: "tools"
    text: offered > 0 ? qsTr("Tools: %1").arg(serverNames()) : qsTr("Tools")
    function serverNames() {
        var names = ""
        for (var i = 0; i < Chat.conversationToolServers.length; ++i)
            names += (i > 0 ? ", " : "") + Chat.conversationToolServers[i]
        return names
    }
    showText: offered > 0
    toolTip: qsTr("The tools this conversation offers the model (Ctrl+T)")
    checked: popup.visible
    onClicked: popup.opened ? popup.close() : popup.open()
    function openChoice() { popup.open() }

    Popup {
        id: popup
        objectName: "toolsPopup"
        y: -height - Theme.spacingXs
        width: Math.min(Theme.px(360), button.Window.width - Theme.px(32))
        padding: Theme.spacingM
        // Sized by its column (a layout filling the popup would not give it a height).
        contentWidth: availableWidth
        contentHeight: column.implicitHeight
        focus: true
        closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutside
        onOpened: {
            var first = serverRepeater.count > 0 ? serverRepeater.itemAt(0) : null
            if (first) first.forceActiveFocus(Qt.TabFocusReason)
            else settingsLink.forceActiveFocus(Qt.TabFocusReason)
        }
        onClosed: button.choiceClosed()
        background: Rectangle {
            radius: Theme.radiusM
            color: Theme.window
            border.color: Theme.border
        }
        ColumnLayout {
            id: column
            width: popup.availableWidth
            spacing: Theme.spacingXs
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.bold: true
                text: qsTr("Tools this conversation offers")
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: Tools.servers.length === 0
                      ? qsTr("No tool servers yet: add one in Settings → Tools (its mcp.json).")
                      : qsTr("Each call is shown in the reply and runs only once you allow it. Their definitions take room in the context (the memory panel says how much).")
            }
            Repeater {
                id: serverRepeater
                model: Tools.servers
                delegate: CheckBox {
                    id: serverBox
                    required property var modelData
                    readonly property bool ready: modelData.state === "ready"
                    objectName: "toolServerCheck"
                    Layout.fillWidth: true
                    text: ready ? qsTr("%1 (%2 tools)").arg(modelData.name).arg(modelData.tools.length)
                                : qsTr("%1 (%2)").arg(modelData.name).arg(modelData.state)
                    enabled: ready || checked
                    checked: Chat.conversationToolServers.indexOf(modelData.name) >= 0
                    onToggled: Chat.setConversationToolServer(modelData.name, checked)
                    Keys.onReturnPressed: { serverBox.toggle(); serverBox.toggled() }
                }
            }
            CheckBox {
                objectName: "toolsRequiredCheck"
                Layout.fillWidth: true
                text: qsTr("The model must call a tool")
                enabled: button.offered > 0
                checked: Chat.conversationToolsRequired
                onToggled: Chat.setConversationToolsRequired(checked)
                ToolTip.visible: hovered || visualFocus
                ToolTip.text: qsTr("Its first reply to each message is a call (small models rarely call on their own); after the results it answers freely.")
            }
            Button {
                id: settingsLink
                objectName: "toolsSettingsButton"
                text: qsTr("Settings → Tools…")
                onClicked: { popup.close(); button.settingsRequested() }
            }
        }
    }
}
