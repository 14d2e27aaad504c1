// The KV memory panel: how the weights and the growing KV cache share the memory,
// updated after every token from the engine's MemoryReport.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: panel
    clip: true
    property var m: chat.memory
    property var info: chat.modelInfo
    readonly property bool hasModel: !!info.name && !chat.modelLoading
    property string kvType: m.kv_type || "f16"
    // Bytes per K/V value of each type: q8_0 and q4_0 count their f16 block scales.
    // What one value / one token costs in each KV type, from the engine (model info).
    readonly property var kvTypes: info.kv_types || ({})
    function fmt(b) { return chat.formatBytes(b || 0) }
    // The bar under "Machine:" as shown (for the end-to-end tests): its caption, whether
    // the caption is visible, and the bar's accessible name.
    // The panel's status lines and every text it shows now (for the end-to-end tests).
    function statusTexts() {
        return { "last_reply": lastReplyLine.visible ? lastReplyLine.text : "",
                 "context": contextLine.visible ? contextLine.text : "", "texts": visibleTexts(panel, []) }
    }
    function visibleTexts(item, out) {
        for (var i = 0; i < item.children.length; ++i) {
            var c = item.children[i]
            if (!c.visible) continue
            if (typeof c.text === "string" && c.text.length > 0) out.push(c.text)
            visibleTexts(c, out)
        }
        return out
    }
    function machineBarState() {
        return { "label": machineBarLabel.text, "label_visible": machineBarLabel.visible && machineBarLabel.height > 0,
                 "accessible_name": machineBar.Accessible.name }
    }
    // Free memory for the what-if table, refreshed every 2 s (not after every token).
    property real available: 0
    Timer {
        interval: 2000; running: true; repeat: true; triggeredOnStart: true
        onTriggered: panel.available = panel.m.system_available_bytes || 0
    }
    function kvTypeBytes(t) { var c = kvTypes[t]; return !c ? "?" : c.bytes_den === 1 ? String(c.bytes_num) : c.bytes_num + "/" + c.bytes_den }
    function perToken(t) { var c = kvTypes[t]; return c ? c.bytes_per_token : 0 }

    Flickable {
        id: scroll
        anchors.fill: parent
        clip: true
        contentWidth: width
        // The column's whole height (wrapped lines included) and a margin: the last section
        // scrolls fully into view.
        contentHeight: Math.max(column.implicitHeight, column.childrenRect.height) + Theme.spacingL
        ScrollBar.vertical: ScrollBar {}

        ColumnLayout {
            id: column
            width: scroll.width - 12
            spacing: 10

            Label { text: qsTr("Memory"); font.bold: true; font.pixelSize: Theme.headingSize }
            // Without a model there is nothing to measure: say so, not zeros.
            Label {
                objectName: "memoryEmpty"
                visible: !panel.hasModel
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                color: Theme.textMuted
                text: chat.modelLoading
                    ? qsTr("Loading the model… Its memory is shown here once it is ready.")
                    : qsTr("No model is loaded. Open a GGUF model (Ctrl+O), or the demo model under “Recent”, to see how its weights and this conversation's memory share the machine.")
            }
            // The header lines are always there (a dash until known): nothing above the
            // figures appears or vanishes while a reply is written, so the panel does not jump.
            Label {
                id: lastReplyLine
                objectName: "lastReply"
                property var st: chat.lastReplyStats
                visible: panel.hasModel
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: st.generated_tokens === undefined ? qsTr("Last reply: —")
                    : qsTr("Last reply (%5 KV): %1 tokens/s · first token after %2 ms · %3 of %4 prompt tokens computed")
                    .arg(Number(st.tokens_per_second).toLocaleString(Qt.locale(), 'f', 1)).arg(Theme.num(Math.round(st.ttft_ms)))
                    .arg(Theme.num(st.evaluated_tokens)).arg(Theme.num(st.prompt_tokens)).arg(st.kv_type || panel.kvType)
            }
            SectionHeader {
                visible: panel.hasModel
                text: qsTr("Snapshot on disk"); pixelSize: Theme.smallSize
                help: qsTr("After each reply the conversation's KV cache is saved to disk, so that reopening the conversation later restores it instead of computing every earlier token again. This line says what happened last for this conversation.")
            }
            // One line for this conversation's snapshot (the engine's reason on hover).
            Label {
                objectName: "snapshotLine"
                visible: panel.hasModel
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: chat.snapshotStatus.length > 0 ? chat.snapshotStatus : qsTr("Nothing saved or restored yet for this conversation.")
                ToolTip.visible: snapshotMouse.containsMouse && chat.snapshotDetail.length > 0
                ToolTip.text: chat.snapshotStatus + (chat.snapshotDetail.length > 0 ? "\n\n" + qsTr("Details: %1").arg(chat.snapshotDetail) : "")
                MouseArea { id: snapshotMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
            }
            FontMetrics { id: fontMetrics; font.pixelSize: Theme.smallSize }
            // All snapshots against their budget; what the last save wrote on hover.
            Label {
                property var d: chat.snapshotDisk
                visible: panel.hasModel
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: d.total_bytes === undefined ? qsTr("All snapshots: —")
                    : (d.budget_bytes > 0
                       ? qsTr("All snapshots: %1 of %2 budget").arg(fmt(d.total_bytes)).arg(fmt(d.budget_bytes))
                       : qsTr("All snapshots: %1 (no budget)").arg(fmt(d.total_bytes)))
                    + (d.evicted > 0 ? qsTr(" · %1 least recently used removed").arg(Theme.num(d.evicted)) : "")
                ToolTip.visible: diskMouse.containsMouse && text.length > 0
                ToolTip.text: (d.file_bytes !== undefined ? qsTr("This conversation's snapshot: %1").arg(fmt(d.file_bytes)) : qsTr("This conversation has no snapshot yet."))
                    + (d.last_written_bytes !== undefined
                       ? "\n" + (d.last_rewritten
                          ? qsTr("Last save rewrote the whole file: %1 (%2)").arg(fmt(d.last_written_bytes)).arg(d.last_why_rewritten)
                          : qsTr("Last save appended %1 (%2 tokens)").arg(fmt(d.last_written_bytes)).arg(d.last_tokens_written))
                       : "")
                MouseArea { id: diskMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
            }

            ColumnLayout {
            visible: panel.hasModel
            Layout.fillWidth: true
            Layout.maximumWidth: column.width
            spacing: 10

            // Both sessions on the shared weights while a summary job runs: each one's KV,
            // and the memory they share (the KV budget when one is set, else what is free).
            Label {
                id: sessions
                property var j: chat.documents.jobMemory || ({})
                property real chatKv: m.kv_allocated_bytes || 0
                property real jobKv: j.kv_allocated_bytes || 0
                property real budget: (m.kv_budget_bytes || 0) > 0 ? m.kv_budget_bytes : (m.system_available_bytes || 0) + chatKv + jobKv
                visible: j.kv_tokens !== undefined
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("Two sessions share the weights (%1): chat KV %2 (%3 tokens) · summary job KV %4 (%5 tokens) · together %6 of %7 %8 · sessions of the larger size that fit: %9")
                    .arg(fmt(m.weights_bytes)).arg(fmt(chatKv)).arg(Theme.num(m.kv_tokens))
                    .arg(fmt(jobKv)).arg(Theme.num(j.kv_tokens)).arg(fmt(chatKv + jobKv)).arg(fmt(budget))
                    .arg((m.kv_budget_bytes || 0) > 0 ? qsTr("KV budget") : qsTr("available"))
                    .arg(Theme.num(Math.max(chatKv, jobKv) > 0 ? Math.floor(budget / Math.max(chatKv, jobKv)) : 0))
            }

            // Gauge 1: the engine's own bytes, all on one scale.
            SectionHeader {
                text: qsTr("This conversation's engine memory"); bold: false; titleOpacity: 0.8
                help: qsTr("The bar divides the memory this conversation uses. The weights are what the model learned: fixed in size and shared by every conversation. The KV cache is the model's working notes for this conversation, the keys and values of every token so far: it grows with each token. Reserved but empty KV blocks, and scratch buffers for one step of computation, make up the rest. With a large model the KV cache is a sliver of this bar: the bar below shows it on its own scale.")
            }
            Row {
                id: gauge
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                height: 22
                clip: true
                property real total: (m.weights_bytes || 0) + (m.kv_allocated_bytes || 0) + (m.scratch_bytes || 0)
                property var parts: [
                    { name: qsTr("weights"), bytes: m.weights_bytes || 0, color: Theme.chartWeights },
                    { name: qsTr("KV used"), bytes: m.kv_used_bytes || 0, color: Theme.chartKvUsed },
                    { name: qsTr("KV allocated, empty"), bytes: (m.kv_allocated_bytes || 0) - (m.kv_used_bytes || 0), color: Theme.chartKvAllocated },
                    { name: qsTr("scratch"), bytes: m.scratch_bytes || 0, color: Theme.chartScratch }
                ]
                Repeater {
                    model: gauge.parts
                    Rectangle {
                        height: gauge.height
                        width: gauge.total > 0 ? Math.max(modelData.bytes > 0 ? 2 : 0, gauge.width * modelData.bytes / gauge.total) : 0
                        color: modelData.color
                    }
                }
            }
            Flow {
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                spacing: 10
                Repeater {
                    model: gauge.parts
                    Row {
                        spacing: 4
                        Rectangle { width: 10; height: 10; color: modelData.color; anchors.verticalCenter: parent.verticalCenter }
                        Label { text: modelData.name + " " + fmt(modelData.bytes); font.pixelSize: Theme.smallSize }
                    }
                }
            }
            // The KV cache on its own scale: used and allocated against what the whole
            // context (or the KV budget, when one is set) would take, so growth shows at any
            // model size.
            SectionHeader {
                text: qsTr("KV cache on its own scale"); bold: false; titleOpacity: 0.8
                help: qsTr("The same KV cache as in the bar above, drawn against the most it can take: the whole context at this KV type, or the KV budget set in Settings when that is smaller. Orange is used, light orange reserved but still empty.")
            }
            Rectangle {
                id: kvGauge
                objectName: "kvGauge"
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                height: 16
                radius: 2
                color: Theme.chartEmpty
                border.color: Theme.border
                Accessible.role: Accessible.Indicator
                Accessible.name: kvScaleText.text
                property real contextBytes: (m.kv_max_tokens || 0) * (m.kv_bytes_per_token || 0)
                property bool budgeted: (m.kv_budget_bytes || 0) > 0 && m.kv_budget_bytes < contextBytes
                property real scale: Math.max(1, budgeted ? m.kv_budget_bytes : contextBytes, m.kv_allocated_bytes || 0)
                Rectangle {
                    height: parent.height; color: Theme.chartKvAllocated; radius: 2
                    width: parent.width * Math.min(1, (m.kv_allocated_bytes || 0) / kvGauge.scale)
                }
                Rectangle {
                    height: parent.height; color: Theme.chartKvUsed; radius: 2
                    width: Math.max((m.kv_used_bytes || 0) > 0 ? 2 : 0, parent.width * Math.min(1, (m.kv_used_bytes || 0) / kvGauge.scale))
                }
            }
            Label {
                id: kvScaleText
                objectName: "kvScaleText"
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("KV used %1 · allocated %2 · %3 %4 (%5%)")
                    .arg(fmt(m.kv_used_bytes)).arg(fmt(m.kv_allocated_bytes))
                    .arg(kvGauge.budgeted ? qsTr("budget") : qsTr("whole context"))
                    .arg(fmt(kvGauge.budgeted ? m.kv_budget_bytes : kvGauge.contextBytes))
                    .arg(kvGauge.scale > 1 ? (100 * (m.kv_used_bytes || 0) / kvGauge.scale).toFixed(1) : 0)
            }
            // Gauge 2: against the machine — the GPU's memory when the CUDA backend runs.
            Label {
                objectName: "deviceMemory"
                visible: !!m.device_name
                text: qsTr("%1: weights %2 · KV pool %3 · scratch %4 on the device")
                    .arg(m.device_name || "").arg(fmt(m.device_weights_bytes)).arg(fmt(m.device_kv_bytes))
                    .arg(fmt(m.device_scratch_bytes))
                font.pixelSize: Theme.smallSize
                wrapMode: Text.Wrap
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
            }
            Label {
                text: (m.device_name ? qsTr("VRAM: %2 free of %3 (all processes) · %1 resident in this process")
                                     : qsTr("Machine: %1 resident in this process · %2 available of %3"))
                    .arg(fmt(m.process_resident_bytes)).arg(fmt(m.system_available_bytes)).arg(fmt(m.system_total_bytes))
                font.pixelSize: Theme.smallSize
                wrapMode: Text.Wrap
                Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
            }
            // The bar: memory in use by every process (total − available: MemAvailable for
            // RAM, the device's free memory for VRAM) of the total, said in its caption.
            Label {
                id: machineBarLabel
                objectName: "machineBarLabel"
                readonly property real used: (m.system_total_bytes || 0) - (m.system_available_bytes || 0)
                text: (m.device_name ? qsTr("Bar: VRAM in use by all processes, %1 of %2 (%3%)")
                                     : qsTr("Bar: RAM in use on this machine by all processes, %1 of %2 (%3%)"))
                    .arg(fmt(used)).arg(fmt(m.system_total_bytes))
                    .arg((m.system_total_bytes || 0) > 0 ? (100 * used / m.system_total_bytes).toFixed(0) : 0)
                font.pixelSize: Theme.smallSize
                wrapMode: Text.Wrap
                Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
            }
            ProgressBar {
                id: machineBar
                objectName: "machineBar"
                palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                from: 0; to: m.system_total_bytes || 1
                value: machineBarLabel.used
                Accessible.name: machineBarLabel.text
            }

            // The formula with this model's numbers.
            SectionHeader {
                text: qsTr("KV cache")
                help: qsTr("To write each new token the model looks back at every earlier token through its key and value vectors. Keeping them (the KV cache) instead of computing them again turns work that grows with the square of the length into a lookup, at a price in memory that grows with every token: 2 (K and V) × layers × tokens × KV heads × head size × bytes per value. The line below is this model's formula with its numbers.")
            }
            Label {
                objectName: "kvFormula"
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.WrapAtWordBoundaryOrAnywhere
                font.family: "monospace"
                text: qsTr("2 × %1 layers × %2 tokens × %3 KV heads × %4 values per head × %5 bytes (%6)\n= %7 bytes (%8)")
                      .arg(Theme.num(info.n_layers)).arg(Theme.num(m.kv_tokens)).arg(Theme.num(info.n_kv_heads)).arg(Theme.num(info.head_dim))
                      .arg(kvTypeBytes(m.kv_type)).arg(m.kv_type || "f16")
                      .arg(Number(m.kv_bytes_without_window || m.kv_used_bytes || 0).toLocaleString(Qt.locale(), 'f', 0))
                      .arg(fmt(m.kv_bytes_without_window || m.kv_used_bytes))
            }
            // Sliding-window layers (gemma2/3) free the rows that fall out of their window.
            Label {
                objectName: "kvWindow"
                visible: (m.kv_windowed_layers || 0) > 0
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.WordWrap
                text: qsTr("%1 of %2 layers use a %3-token window: %4 freed by the window; without it the KV would be %5")
                    .arg(Theme.num(m.kv_windowed_layers)).arg(Theme.num(info.n_layers))
                    .arg(Number(m.kv_window || 0).toLocaleString(Qt.locale(), 'f', 0))
                    .arg(fmt(m.kv_window_freed_bytes)).arg(fmt(m.kv_bytes_without_window))
            }
            // The figures wrap to the panel's width (a label that does not fill its cell keeps
            // its one-line width and pushes the panel's right edge out when zoomed).
            GridLayout {
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                columns: 2
                columnSpacing: 12
                Label { text: qsTr("KV used") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; objectName: "kvUsed"; text: fmt(m.kv_used_bytes) }
                Label { text: qsTr("KV allocated") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("%1  (%2 blocks of %3 tokens)").arg(fmt(m.kv_allocated_bytes)).arg(m.kv_blocks || 0).arg(m.kv_block_tokens || 16) }
                Label { text: qsTr("reserved, empty") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: fmt((m.kv_allocated_bytes || 0) - (m.kv_used_bytes || 0)) }
                Label { text: qsTr("per token") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: fmt(m.kv_bytes_per_token) }
                Label { text: qsTr("per layer") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: fmt((m.kv_used_bytes || 0) / Math.max(1, info.n_layers || 1)) + qsTr(" used in each of %1 layers").arg(info.n_layers || 0) }
                Label { text: qsTr("peak") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: fmt(m.kv_peak_allocated_bytes) + qsTr(" allocated") }
            }

            // A document sent whole: its share of the KV cache.
            ColumnLayout {
                property var d: chat.documents.sentWhole
                property real docBytes: (d.tokens || 0) * (m.kv_bytes_per_token || 0)
                visible: (d.tokens || 0) > 0 && (m.kv_tokens || 0) > 0
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                spacing: 2
                Label {
                    objectName: "documentShare"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("Document “%1”: %2 tokens × %3 = %4, %5% of the KV used (%6)")
                        .arg(parent.d.name || "").arg(parent.d.tokens || 0).arg(fmt(m.kv_bytes_per_token))
                        .arg(fmt(parent.docBytes))
                        .arg(m.kv_used_bytes > 0 ? Math.min(100, Math.round(100 * parent.docBytes / m.kv_used_bytes)) : 0)
                        .arg(fmt(m.kv_used_bytes))
                }
                Rectangle {
                    Layout.fillWidth: true
                    height: 10
                    color: Theme.chartKvAllocated
                    Rectangle {
                        height: parent.height
                        width: m.kv_used_bytes > 0 ? parent.width * Math.min(1, parent.parent.docBytes / m.kv_used_bytes) : 0
                        color: Theme.chartDocument
                    }
                }
            }

            // Context used, and what happens when it is full.
            SectionHeader {
                text: qsTr("Context"); pixelSize: Theme.smallSize
                help: qsTr("The context is how many tokens the model can see at once, your messages and its replies together. When it is full, the policy chosen in Settings decides what happens: stop, drop the oldest turns, or shift the window past the oldest half.")
            }
            Label {
                id: contextLine
                objectName: "contextLine"
                // One computation for this line and the status line (ChatController::contextUsage).
                text: qsTr("Context: %1").arg(chat.contextUsage.text || "")
            }
            ProgressBar {
                palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                from: 0; to: m.kv_max_tokens || 1; value: m.kv_tokens || 0
            }
            Label {
                visible: m.kv_max_tokens > 0 && m.kv_tokens >= 0.9 * m.kv_max_tokens
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                color: Theme.error
                text: qsTr("The context is almost full. Policy “%1”: ").arg(info.context_policy || "stop")
                    + ((info.context_policy === "shift") ? qsTr("the oldest half of the conversation after the system prompt will be discarded.")
                       : (info.context_policy === "drop-oldest") ? qsTr("the oldest whole turns will be dropped and the rest re-evaluated.")
                       : qsTr("new tokens will be refused; start a new chat or edit an earlier message."))
            }
            // What the context policy last did in this conversation (ChatController::contextNotice).
            Label {
                objectName: "contextPolicyNotice"
                visible: chat.contextNotice.length > 0
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: chat.contextNotice
            }

            // Block map of the paged cache.
            SectionHeader {
                text: qsTr("Blocks: %1 used · %2 free in the pool").arg(Theme.num(m.kv_blocks)).arg(Theme.num(m.kv_free_blocks)); bold: false; pixelSize: Theme.smallSize
                help: qsTr("The KV cache is not reserved for the whole context up front: it grows in small blocks of a fixed number of tokens as the conversation lengthens (paging). Only the last block can be partly empty, so almost no memory is lost to fragmentation, and blocks freed by a shorter conversation return to the pool for the next one.")
            }
            // One cell per block of the whole context (at most 512), so the map keeps its
            // size while the conversation grows: used, the last one partly filled, free in
            // the pool, not reserved yet.
            Item {
                id: blockMap
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                readonly property int blockTokens: m.kv_block_tokens || 16
                readonly property int cells: Math.min(512, Math.max((m.kv_blocks || 0) + (m.kv_free_blocks || 0),
                                                                    Math.ceil((m.kv_max_tokens || 0) / blockTokens)))
                readonly property int perRow: Math.max(1, Math.floor(width / 12))
                implicitHeight: Math.ceil(cells / perRow) * 12
                Flow {
                    anchors.fill: parent
                    spacing: 2
                    Repeater {
                        model: blockMap.cells
                        Rectangle {
                            width: 10; height: 10
                            property int blocks: m.kv_blocks || 0
                            property real lastFill: ((m.kv_tokens || 0) - (blocks - 1) * blockMap.blockTokens) / blockMap.blockTokens
                            color: index < blocks - 1 ? Theme.chartKvUsed : index === blocks - 1 ? (lastFill >= 1 ? Theme.chartKvUsed : Theme.chartKvAllocated)
                                 : index < blocks + (m.kv_free_blocks || 0) ? Theme.chartEmpty : "transparent"
                            border.color: Theme.border; border.width: 0.5
                            opacity: index < blocks + (m.kv_free_blocks || 0) ? 1 : 0.4
                        }
                    }
                }
            }

            // Timeline: this conversation's KV bytes against the tokens in context, with
            // axes, units and a mark where each reply began (cleared per conversation).
            SectionHeader {
                text: qsTr("KV memory over this conversation"); bold: false; pixelSize: Theme.smallSize
                help: qsTr("Each point is the KV cache after a token: the bytes used (orange) and reserved (light orange), against the number of tokens in the context. A dashed line marks where a reply began. A conversation's timeline is its own: it starts empty in a new chat and comes back when you return to a conversation (it is not kept after the app closes).")
            }
            Canvas {
                id: timeline
                objectName: "kvTimeline"
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                height: 150
                property var points: chat.memoryHistory
                property color ink: Theme.text
                Accessible.role: Accessible.Chart
                Accessible.name: points.length === 0 ? qsTr("KV memory over this conversation: no tokens yet")
                    : qsTr("KV memory over this conversation: %1 used at %2 tokens")
                      .arg(panel.fmt(points[points.length - 1].used)).arg(points[points.length - 1].tokens)
                onPointsChanged: requestPaint()
                onWidthChanged: requestPaint()
                onInkChanged: requestPaint()
                // 1, 2, 5 × 10^n at or above v: round axis ends.
                function niceCeil(v) {
                    if (v <= 0) return 1
                    var p = Math.pow(10, Math.floor(Math.log(v) / Math.LN10))
                    var f = v / p
                    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p
                }
                onPaint: {
                    var ctx = getContext("2d")
                    ctx.reset()
                    var left = 56, bottom = 20, top = 22, right = 8
                    var w = width - left - right, h = height - top - bottom
                    ctx.fillStyle = Qt.rgba(0.5, 0.5, 0.5, 0.08)
                    ctx.fillRect(left, top, w, h)
                    var n = points ? points.length : 0
                    var lastTokens = n > 0 ? points[n - 1].tokens : 0
                    var maxT = 1, maxB = 1
                    for (var i = 0; i < n; ++i) {
                        maxT = Math.max(maxT, points[i].tokens)
                        maxB = Math.max(maxB, points[i].allocated, points[i].used)
                    }
                    // Round ends, the tokens axis at most the whole context.
                    maxT = niceCeil(maxT * 1.05)
                    if ((m.kv_max_tokens || 0) > 0 && maxT > m.kv_max_tokens) maxT = Math.max(m.kv_max_tokens, lastTokens, 1)
                    maxB = niceCeil(maxB * 1.05)
                    function x(t) { return left + w * t / maxT }
                    function y(b) { return top + h - h * b / maxB }
                    // Axes, ticks and units.
                    ctx.strokeStyle = Qt.rgba(ink.r, ink.g, ink.b, 0.5)
                    ctx.fillStyle = ink
                    ctx.lineWidth = 1
                    ctx.font = "10px sans-serif"
                    ctx.beginPath(); ctx.moveTo(left, top); ctx.lineTo(left, top + h); ctx.lineTo(left + w, top + h); ctx.stroke()
                    for (var k = 0; k <= 2; ++k) {
                        var bv = maxB * k / 2, tv = maxT * k / 2
                        ctx.textAlign = "right"
                        ctx.fillText(panel.fmt(bv), left - 4, y(bv) + 3)
                        ctx.textAlign = k === 0 ? "left" : k === 2 ? "right" : "center"
                        ctx.fillText(Math.round(tv).toLocaleString(Qt.locale(), 'f', 0), x(tv), top + h + 12)
                        ctx.beginPath(); ctx.moveTo(left - 3, y(bv)); ctx.lineTo(left, y(bv)); ctx.stroke()
                        ctx.beginPath(); ctx.moveTo(x(tv), top + h); ctx.lineTo(x(tv), top + h + 3); ctx.stroke()
                    }
                    ctx.textAlign = "left"
                    ctx.fillText(qsTr("KV bytes"), 2, 10)
                    ctx.textAlign = "right"
                    ctx.fillText(qsTr("→ tokens in context"), left + w, 10)
                    if (n === 0) {
                        ctx.textAlign = "center"
                        ctx.fillText(qsTr("No tokens yet in this conversation"), left + w / 2, top + h / 2)
                        return
                    }
                    // Where each reply began.
                    ctx.strokeStyle = Theme.chartWeights
                    var turn = 0
                    for (var q = 0; q < n; ++q) {
                        if (!points[q].turn) continue
                        turn += 1
                        var tx = x(points[q].tokens)
                        for (var d = top; d < top + h; d += 6) { ctx.beginPath(); ctx.moveTo(tx, d); ctx.lineTo(tx, Math.min(d + 3, top + h)); ctx.stroke() }
                        ctx.fillStyle = Theme.chartWeights
                        ctx.textAlign = "center"
                        ctx.fillText(String(turn), tx, top + 9)
                    }
                    var series = [["allocated", Theme.chartKvAllocated], ["used", Theme.chartKvUsed]]
                    for (var s = 0; s < series.length; ++s) {
                        ctx.strokeStyle = series[s][1]
                        ctx.lineWidth = 2
                        ctx.beginPath()
                        for (var j = 0; j < n; ++j) {
                            var p = points[j]
                            if (j === 0) ctx.moveTo(x(p.tokens), y(p[series[s][0]]))
                            else ctx.lineTo(x(p.tokens), y(p[series[s][0]]))
                        }
                        if (n === 1) ctx.lineTo(x(points[0].tokens) + 2, y(points[0][series[s][0]]))
                        ctx.stroke()
                    }
                }
            }
            Label {
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: qsTr("orange: used · light orange: reserved · dashed: a reply began (%1 so far)")
                    .arg(Theme.num(chat.memoryHistory.filter(function(p) { return p.turn }).length))
            }

            // What if: each KV type for this model.
            SectionHeader {
                text: qsTr("What each KV type would cost")
                help: qsTr("Keys and values can be stored with fewer bits: q8_0 takes about half the memory of f16, q4_0 about a quarter, so a longer context or more conversations fit. The price is accuracy: the quality column shows how far the next-token probabilities move (KL divergence) and how often the most likely token stays the same.")
            }
            GridLayout {
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                columns: 4
                columnSpacing: 8
                Label { text: qsTr("type"); font.bold: true }
                Label { text: qsTr("bytes/token"); font.bold: true }
                Label { text: qsTr("max context"); font.bold: true }
                Label {
                    text: (chat.kvQuality.types || info.is_demo === true) ? qsTr("quality*") : qsTr("quality* (demo model's)")
                    font.bold: true
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                }
                Repeater {
                    // One flat list of cells (4 per row): nested Repeaters inside a layout
                    // are not safe in Qt 6.4.
                    model: {
                        // Measured on the loaded model when that is done, else the demo model's.
                        var q = chat.kvQuality.types
                        function quality(t, demo) {
                            // A type this model cannot use (its head size is not whole blocks).
                            if ((chat.kvQuality.unusable || {})[t]) return qsTr("not for this model")
                            if (!q || !q[t]) return demo
                            return qsTr("KL %1, %2%").arg(Number(q[t].mean_kl).toExponential(1))
                                                     .arg((100 * q[t].top1_agreement).toFixed(1))
                        }
                        var rows = [["f32", quality("f32", qsTr("KL 4e-8, 100%"))], ["f16", qsTr("baseline")],
                                    ["q8_0", quality("q8_0", qsTr("KL 1.9e-5, 99.75%"))],
                                    ["q4_0", quality("q4_0", qsTr("KL 6.0e-3, 95.0%"))]]
                        var cells = []
                        var current = panel.kvType
                        for (var i = 0; i < rows.length; ++i) {
                            var t = rows[i][0], bpt = panel.perToken(t)
                            cells.push(t + (t === current ? " ●" : ""))
                            cells.push(fmt(bpt))
                            cells.push(bpt > 0 ? Math.min(Math.floor(panel.available / bpt), info.n_ctx_train || 0)
                                                 .toLocaleString(Qt.locale(), 'f', 0) + qsTr(" tokens") : "")
                            cells.push(rows[i][1])
                        }
                        return cells
                    }
                    // The quality column takes what is left and wraps in it.
                    Label {
                        text: modelData
                        font.pixelSize: Theme.smallSize
                        Layout.fillWidth: index % 4 === 3
                        wrapMode: Text.Wrap
                    }
                }
            }
            Label {
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("max context: what fits in the available RAM, at most the trained context. ")
                      + (chat.kvQuality.types
                         ? qsTr("*Measured on this model (%1 tokens of a built-in text) against f16 KV: mean KL divergence, top-1 agreement.").arg(Theme.num(chat.kvQuality.tokens))
                         : qsTr("*Measured on the demo model against f16 KV: mean KL divergence, top-1 agreement (docs/KV_CACHE.md).")
                           + (info.is_demo === true ? "" : qsTr(" Not yet measured on the loaded model: its own figures replace these when they are.")))
            }
            // Last, under its own header: what this conversation's KV means for how many fit.
            SectionHeader {
                visible: m.kv_tokens > 0 && m.kv_allocated_bytes > 0
                text: qsTr("How many conversations fit"); pixelSize: Theme.smallSize; bold: false
                help: qsTr("Every conversation needs a KV cache of its own while the weights are shared. So the memory one conversation takes at this length decides how many can be held side by side: the same arithmetic limits how many people a server can answer at once, and why shorter contexts or smaller KV types let more fit.")
            }
            Label {
                objectName: "conversationsFit"
                visible: m.kv_tokens > 0 && m.kv_allocated_bytes > 0
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("Conversations of this length that would fit in the available memory: %1")
                      .arg(Math.floor((m.system_available_bytes || 0) / Math.max(1, m.kv_allocated_bytes)).toLocaleString(Qt.locale(), 'f', 0))
            }
            }  // hasModel
        }
    }
}
