// Tools in the context (issue 47 point 3): the tokens and KV bytes the offered tools'
// definitions take in this conversation's prompt, each call's result, their sum, and a
// warning when a result as long as the limit would not fit the free context (it would be
// cut to fit, the cut said in its block). A section of the memory panel (MemoryPanel.qml),
// shown while the conversation offers tools or holds results (Chat.toolMemory).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    required property var panel
    readonly property var t: Chat.toolMemory
    visible: t.offered || (t.results || []).length > 0
    Layout.fillWidth: true
    spacing: 4

    SectionHeader {
        text: qsTr("Tools in the context"); pixelSize: Theme.smallSize
        help: qsTr("A conversation that offers tools carries their definitions (names, descriptions, argument schemas) in its prompt, and every call's result is read by the model: both sit in the KV cache like any text. A long result is cut at the limit set in Settings → Tools, and to what the context can still hold.")
    }
    Label {
        objectName: "toolDefinitionsLine"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        text: section.t.definition_tokens > 0
              ? qsTr("Definitions: %1 tokens · %2").arg(Theme.num(section.t.definition_tokens)).arg(Chat.formatBytes(section.t.definition_kv_bytes))
              : qsTr("Definitions: counted with the next reply")
    }
    Repeater {
        model: section.t.results || []
        delegate: Label {
            required property var modelData
            objectName: "toolResultLine"
            Layout.fillWidth: true
            Layout.maximumWidth: section.panel.columnWidth
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            color: modelData.cut_note ? Theme.warning : Theme.text
            text: qsTr("Result of %1: %2 tokens · %3").arg(modelData.name).arg(Theme.num(modelData.tokens)).arg(Chat.formatBytes(modelData.kv_bytes))
                  + (modelData.cut_note ? qsTr(" (cut: %1)").arg(modelData.cut_note) : "")
        }
    }
    Label {
        visible: (section.t.results || []).length > 1
        Layout.fillWidth: true
        font.pixelSize: Theme.smallSize
        text: qsTr("All results: %1 tokens · %2").arg(Theme.num(section.t.result_tokens)).arg(Chat.formatBytes(section.t.result_kv_bytes))
    }
    Label {
        objectName: "toolContextWarning"
        visible: section.t.warning === true
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        color: Theme.warning
        text: qsTr("A tool result of up to %1 tokens would not fit: %2 tokens of the context are free. A longer result will be cut to fit, and the cut said.").arg(Theme.num(section.t.max_result_tokens)).arg(Theme.num(Math.max(0, section.t.free_tokens)))
    }
}
