// A reply's tool calls (app/tools/tool_steps.h), in the order they happened: each step's
// text, then a block per call — its name and state as a header that folds it, the
// arguments indented, the result (or why there is none, in words) and its cost in the
// context. The call waiting for consent shows Allow / Always allow this tool / Deny, with
// the focus on Allow; the reply that reached the limit of calls in a row asks whether to
// go on. Shown in MessageBubble.qml above the reply's answer.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: blocks
    required property var steps
    required property bool isLast  // the conversation's last message (the prompts are its)
    readonly property var prompt: Chat.toolPrompt
    readonly property string askingId: prompt.kind === "consent" && prompt.call ? prompt.call.id : ""
    readonly property bool askingLimit: isLast && prompt.kind === "limit"
    visible: steps.length > 0 || askingLimit
    Layout.fillWidth: true
    spacing: Theme.spacingXs

    function pretty(json) {
        try { return JSON.stringify(JSON.parse(json), null, 2) } catch (e) { return json }
    }
    function stateText(call) {
        switch (call.state) {
        case "asking": return qsTr("waiting for your consent")
        case "running": return qsTr("running…")
        case "done":
            if (call.seconds === undefined) return qsTr("ran")
            if (call.seconds < 1) return qsTr("ran in %1 ms").arg(Theme.num(Math.round(call.seconds * 1000)))
            return qsTr("ran in %1 s").arg(Number(call.seconds).toLocaleString(Qt.locale(), 'f', 1))
        case "denied": return qsTr("denied")
        case "failed": return qsTr("failed")
        case "stopped": return qsTr("stopped before it ran")
        default: return blocks.isLast && Chat.generating ? qsTr("waiting") : qsTr("not run")
        }
    }
    // What the result means when the call did not give one.
    function resultNote(call) {
        switch (call.state) {
        case "denied": return qsTr("You denied this call: it did not run, and the model was told so.")
        case "failed": return qsTr("The call failed; the model read what went wrong:")
        case "stopped": return qsTr("Stopped (Esc) before it ran; the model was told so.")
        default: return ""
        }
    }

    Repeater {
        model: blocks.steps
        delegate: ColumnLayout {
            id: step
            required property var modelData
            Layout.fillWidth: true
            spacing: Theme.spacingXs
            TextEdit {
                visible: (step.modelData.text || "").trim().length > 0
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                textFormat: TextEdit.PlainText
                font.pixelSize: Theme.fontSize
                color: Theme.text
                text: step.modelData.text || ""
            }
            Repeater {
                model: step.modelData.calls
                delegate: Rectangle {
                    id: block
                    required property var modelData
                    readonly property var call: modelData
                    readonly property bool asking: blocks.askingId.length > 0 && blocks.askingId === call.id
                    readonly property bool failed: call.state === "failed"
                    property bool toggled: false
                    property bool choice: false
                    // Open while it waits or runs and in the reply being written; folded later.
                    readonly property bool open: toggled ? choice : (asking || call.state === "running" || blocks.isLast)
                    objectName: "toolCallBlock"
                    Layout.fillWidth: true
                    implicitHeight: callColumn.implicitHeight + 2 * Theme.spacingXs
                    radius: Theme.radiusS
                    color: Theme.codeBackground
                    border.color: block.asking ? Theme.accent : block.failed ? Theme.error : Theme.border
                    border.width: block.asking ? 2 : 1
                    onAskingChanged: if (asking) Qt.callLater(allowButton.forceActiveFocus)  // qmllint disable type
                    Component.onCompleted: if (asking) Qt.callLater(allowButton.forceActiveFocus)  // qmllint disable type

                    ColumnLayout {
                        id: callColumn
                        anchors.left: parent.left
                        anchors.right: parent.right
                        anchors.top: parent.top
                        anchors.margins: Theme.spacingXs
                        spacing: Theme.spacingXs
                        ToolButton {
                            objectName: "toolCallToggle"
                            Layout.fillWidth: true
                            contentItem: Label {
                                text: (block.open ? "▾ " : "▸ ") + qsTr("Tool call: %1 — %2").arg(block.call.name).arg(blocks.stateText(block.call))
                                font.pixelSize: Theme.smallSize
                                font.bold: true
                                color: block.failed ? Theme.error : Theme.text
                                elide: Text.ElideRight
                                horizontalAlignment: Text.AlignLeft
                            }
                            Accessible.name: (block.open ? qsTr("Fold the call of %1") : qsTr("Show the call of %1")).arg(block.call.name)
                            Accessible.description: blocks.stateText(block.call)
                            ToolTip.visible: hovered
                            ToolTip.text: block.call.server ? qsTr("%1 on the tool server %2").arg(block.call.tool).arg(block.call.server) : block.call.name
                            onClicked: { block.choice = !block.open; block.toggled = true }
                        }
                        Label {
                            visible: block.open
                            text: qsTr("Arguments")
                            font.pixelSize: Theme.smallSize
                            color: Theme.textMuted
                        }
                        TextEdit {
                            objectName: "toolCallArguments"
                            visible: block.open
                            Layout.fillWidth: true
                            readOnly: true
                            selectByMouse: true
                            wrapMode: TextEdit.Wrap
                            textFormat: TextEdit.PlainText
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.smallSize
                            color: Theme.text
                            text: block.open ? blocks.pretty(block.call.arguments || "{}") : ""
                        }
                        // Consent: nothing runs without it.
                        RowLayout {
                            visible: block.asking
                            Layout.fillWidth: true
                            spacing: Theme.spacingXs
                            Label {
                                Layout.fillWidth: true
                                wrapMode: Text.Wrap
                                font.pixelSize: Theme.smallSize
                                text: qsTr("Run this call?")
                            }
                            Button {
                                id: allowButton
                                objectName: "toolAllowButton"
                                text: qsTr("Allow")
                                highlighted: true
                                Accessible.name: qsTr("Allow this call of %1 once").arg(block.call.name)
                                onClicked: Chat.answerToolPrompt("allow")
                                Keys.onReturnPressed: Chat.answerToolPrompt("allow")
                            }
                            Button {
                                objectName: "toolAlwaysAllowButton"
                                text: qsTr("Always allow this tool")
                                Accessible.name: qsTr("Always allow %1 (revocable in Settings → Tools)").arg(block.call.name)
                                onClicked: Chat.answerToolPrompt("always")
                                Keys.onReturnPressed: Chat.answerToolPrompt("always")
                            }
                            Button {
                                objectName: "toolDenyButton"
                                text: qsTr("Deny")
                                Accessible.name: qsTr("Deny this call: the model is told it was refused")
                                onClicked: Chat.answerToolPrompt("deny")
                                Keys.onReturnPressed: Chat.answerToolPrompt("deny")
                            }
                        }
                        Label {
                            visible: block.open && blocks.resultNote(block.call).length > 0
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            font.pixelSize: Theme.smallSize
                            color: block.failed ? Theme.error : Theme.textMuted
                            text: blocks.resultNote(block.call)
                        }
                        Label {
                            visible: block.open && block.call.state === "done"
                            text: qsTr("Result")
                            font.pixelSize: Theme.smallSize
                            color: Theme.textMuted
                        }
                        TextEdit {
                            objectName: "toolCallResult"
                            visible: block.open && (block.call.state === "done" || block.call.state === "failed")
                            Layout.fillWidth: true
                            readOnly: true
                            selectByMouse: true
                            wrapMode: TextEdit.Wrap
                            textFormat: TextEdit.PlainText
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.smallSize
                            color: block.failed ? Theme.error : Theme.text
                            text: visible ? (block.call.result || "") : ""
                        }
                        // What the result holds in the context, and a cut said.
                        Label {
                            visible: block.call.result_tokens !== undefined
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            font.pixelSize: Theme.smallSize
                            color: block.call.cut_note ? Theme.warning : Theme.textMuted
                            text: (block.call.cut_note ? qsTr("Cut: %1. ").arg(block.call.cut_note) : "")
                                  + qsTr("%1 tokens · %2 of KV cache").arg(Theme.num(block.call.result_tokens || 0)).arg(Chat.formatBytes(block.call.kv_bytes || 0))
                        }
                    }
                }
            }
        }
    }

    // The limit of calls in a row (Settings → Tools): go on, or stop here.
    RowLayout {
        visible: blocks.askingLimit
        Layout.fillWidth: true
        spacing: Theme.spacingXs
        onVisibleChanged: if (visible) Qt.callLater(goOnButton.forceActiveFocus)  // qmllint disable type
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("The model made %1 tool calls in a row (the limit set in Settings → Tools). Let it go on?").arg(blocks.prompt.calls || 0)
        }
        Button {
            id: goOnButton
            objectName: "toolLimitGoOnButton"
            text: qsTr("Go on")
            highlighted: true
            onClicked: Chat.answerToolPrompt("go_on")
            Keys.onReturnPressed: Chat.answerToolPrompt("go_on")
        }
        Button {
            objectName: "toolLimitStopButton"
            text: qsTr("Stop here")
            onClicked: Chat.answerToolPrompt("stop")
            Keys.onReturnPressed: Chat.answerToolPrompt("stop")
        }
    }
}
