// The context used, what the context policy last did, and the block map of the paged cache.
// A section of the memory panel (MemoryPanel.qml), on its figures (panel.m, panel.info).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    readonly property var contextUsage: MemoryState.contextUsage  // a JS object
    required property var panel
    readonly property var m: panel.m
    readonly property var info: panel.info
    Layout.fillWidth: true
    spacing: 10
    readonly property alias contextLine: contextLine

    // Context used, and what happens when it is full.
    SectionHeader {
        text: qsTr("Context"); pixelSize: Theme.smallSize
        help: qsTr("The context is how many tokens the model can see at once, your messages and its replies together. When it is full, the policy chosen in Settings decides what happens: stop, drop the oldest turns, shift the window past the oldest half, or keep the start and the latest tokens (attention sinks: the oldest after the start leave a block at a time).")
    }
    Label {
        id: contextLine
        objectName: "contextLine"
        // One computation for this line and the status line (ChatController::contextUsage).
        text: qsTr("Context: %1").arg(section.contextUsage.text || "")
    }
    ProgressBar {
        palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        from: 0; to: section.m.kv_max_tokens || 1; value: section.m.kv_tokens || 0
    }
    // Almost full or full: the context meter's words (the status line's and the banners').
    Label {
        objectName: "contextLevelLine"
        visible: Chat.contextMeter.level === "almost" || Chat.contextMeter.level === "full"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        color: Chat.contextMeter.level === "full" ? Theme.error : Theme.warning
        text: Chat.contextMeter.sentence
    }
    // What the context policy last did in this conversation (ChatController::contextNotice).
    Label {
        objectName: "contextPolicyNotice"
        visible: Chat.contextNotice.length > 0
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: Chat.contextNotice
    }

    // Block map of the paged cache.
    SectionHeader {
        text: qsTr("Blocks: %1 used · %2 free in the pool").arg(Theme.num(section.m.kv_blocks)).arg(Theme.num(section.m.kv_free_blocks)); bold: false; pixelSize: Theme.smallSize
        help: qsTr("The KV cache is not reserved for the whole context up front: it grows in small blocks of a fixed number of tokens as the conversation lengthens (paging). Only the last block can be partly empty, so almost no memory is lost to fragmentation, and blocks freed by a shorter conversation return to the pool for the next one.")
    }
    // One cell per block of the whole context (at most 512), so the map keeps its
    // size while the conversation grows: used, the last one partly filled, free in
    // the pool, not reserved yet.
    Item {
        id: blockMap
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        readonly property int blockTokens: section.m.kv_block_tokens || 16
        readonly property int cells: Math.min(512, Math.max((section.m.kv_blocks || 0) + (section.m.kv_free_blocks || 0),
                                                            Math.ceil((section.m.kv_max_tokens || 0) / blockTokens)))
        readonly property int perRow: Math.max(1, Math.floor(width / 12))
        implicitHeight: Math.ceil(cells / perRow) * 12
        Flow {
            anchors.fill: parent
            spacing: 2
            Repeater {
                model: blockMap.cells
                Rectangle {
                    required property int index
                    width: 10; height: 10
                    property int blocks: section.m.kv_blocks || 0
                    property real lastFill: ((section.m.kv_tokens || 0) - (blocks - 1) * blockMap.blockTokens) / blockMap.blockTokens
                    color: index < blocks - 1 ? Theme.chartKvUsed : index === blocks - 1 ? (lastFill >= 1 ? Theme.chartKvUsed : Theme.chartKvAllocated)
                         : index < blocks + (section.m.kv_free_blocks || 0) ? Theme.chartEmpty : "transparent"
                    border.color: Theme.border; border.width: 0.5
                    opacity: index < blocks + (section.m.kv_free_blocks || 0) ? 1 : 0.4
                }
            }
        }
    }
}
