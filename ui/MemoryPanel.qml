// The KV memory panel: how the weights and the growing KV cache share the memory,
// updated after every token from the engine's MemoryReport.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Pane {
    id: panel
    clip: true
    property var m: MemoryState.memory
    property var info: Models.modelInfo
    readonly property bool hasModel: !!info.name && !Models.modelLoading
    property string kvType: m.kv_type || "f16"
    // Bytes per K/V value of each type: q8_0 and q4_0 count their f16 block scales.
    // What one value / one token costs in each KV type, from the engine (model info).
    readonly property var kvTypes: info.kv_types || ({})
    function fmt(b) { return Chat.formatBytes(b || 0) }
    // The width every line of the panel wraps to (the sections in memory/ use it).
    readonly property real columnWidth: column.width
    // The bar under "Machine:" as shown (for the end-to-end tests): its caption, whether
    // the caption is visible, and the bar's accessible name.
    // The panel's status lines and every text it shows now (for the end-to-end tests).
    function statusTexts() {
        return { "last_reply": lastReplyLine.visible ? lastReplyLine.text : "",
                 "context": contextSection.contextLine.visible ? contextSection.contextLine.text : "", "texts": visibleTexts(panel, []) }
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
    function machineBarState() { return gauges.machineBarState() }
    // Free memory for the what-if table, refreshed every 2 s (not after every token).
    property real available: 0
    Timer {
        interval: 2000; running: true; repeat: true; triggeredOnStart: true
        onTriggered: panel.available = panel.m.system_available_bytes || 0
    }
    function kvTypeBytes(t) {
        var parts = String(t).split("/")  // "K/V" typed apart: the mean of K's and V's bytes
        if (parts.length === 2) return "½(" + kvTypeBytes(parts[0]) + " + " + kvTypeBytes(parts[1]) + ")"
        var c = kvTypes[t]; return !c ? "?" : c.bytes_den === 1 ? String(c.bytes_num) : c.bytes_num + "/" + c.bytes_den
    }
    function perToken(t) {
        var parts = String(t).split("/")  // "K/V" typed apart: half of each type's bytes
        if (parts.length === 2) return (perToken(parts[0]) + perToken(parts[1])) / 2
        var c = kvTypes[t]; return c ? c.bytes_per_token : 0
    }

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
                text: Models.modelLoading
                    ? qsTr("Loading the model… Its memory is shown here once it is ready.")
                    : qsTr("No model is loaded. Open a GGUF model (Ctrl+O), or the demo model under “Recent”, to see how its weights and this conversation's memory share the machine.")
            }
            // A remote model: its engine's memory, as far as it publishes it.
            RemoteEngine {
                visible: panel.hasModel && Remote.active
                panel: panel
                Layout.maximumWidth: column.width
            }
            ColumnLayout {
                visible: panel.hasModel && !Remote.active
                Layout.fillWidth: true
                Layout.maximumWidth: column.width
                spacing: 10

                // What a user asks first (issue 43 point 2): how full the context is and how the
                // KV grows; then the weights against the KV; what fits; the last reply's figures;
                // other users of the weights; and last the snapshots on disk.
                ContextBlocks { id: contextSection; panel: panel; Layout.maximumWidth: column.width }
                ToolCosts { panel: panel; Layout.maximumWidth: column.width }
                KvTimeline { panel: panel; Layout.maximumWidth: column.width }
                EngineGauges { id: gauges; panel: panel; Layout.maximumWidth: column.width }
                KvCacheFigures { panel: panel; Layout.maximumWidth: column.width }
                KvTypeCosts { panel: panel; Layout.maximumWidth: column.width }
                // The last reply's figures, once there is one (set when it ends: no jump mid-reply).
                Label {
                    id: lastReplyLine
                    objectName: "lastReply"
                    property var st: Chat.lastReplyStats
                    visible: panel.hasModel && st.generated_tokens !== undefined
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: st.generated_tokens === undefined ? ""
                        : qsTr("Last reply (%5 KV): %1 tokens/s · first token after %2 ms · %3 of %4 prompt tokens computed")
                        .arg(Number(st.tokens_per_second).toLocaleString(Qt.locale(), 'f', 1)).arg(Theme.num(Math.round(st.ttft_ms)))
                        .arg(Theme.num(st.evaluated_tokens)).arg(Theme.num(st.prompt_tokens)).arg(st.kv_type || panel.kvType)
                }
                // The last reply's reasoning in KV, and what this turn's prompt freed: a template that
                // leaves earlier reasoning out of the history (Qwen 3, DeepSeek-R1) makes the cache
                // differ from that reasoning's first token on. Set when a reply ends (no jump mid-reply).
                Label {
                    objectName: "reasoningKvLine"
                    property var st: Chat.lastReplyStats
                    readonly property bool thought: st.thinking_tokens !== undefined && st.thinking_tokens > 0
                    readonly property bool freed: st.released_kv_bytes !== undefined && st.released_kv_bytes > 0
                    visible: panel.hasModel && (thought || freed)
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                    text: (thought ? qsTr("Its reasoning: %1 tokens, %2 of KV").arg(Theme.num(st.thinking_tokens)).arg(panel.fmt(st.thinking_kv_bytes)) : "")
                        + (thought && freed ? " · " : "")
                        + (!freed ? "" : panel.info.chat_declares_thinking === true
                           ? qsTr("freed at its prompt: %1 (%2 tokens the cache held past the first changed token, earlier reasoning among them)")
                                   .arg(panel.fmt(st.released_kv_bytes)).arg(Theme.num(st.released_tokens))
                           : qsTr("freed at its prompt: %1 (%2 tokens the cache held past the first changed token)")
                                   .arg(panel.fmt(st.released_kv_bytes)).arg(Theme.num(st.released_tokens)))
                }
                // Both sessions on the shared weights while a summary job runs: each one's KV,
                // and the memory they share (the KV budget when one is set, else what is free).
                Label {
                    id: sessions
                    property var j: Chat.documents.jobMemory || ({})
                    property real chatKv: panel.m.kv_allocated_bytes || 0
                    property real jobKv: j.kv_allocated_bytes || 0
                    property real budget: (panel.m.kv_budget_bytes || 0) > 0 ? panel.m.kv_budget_bytes : (panel.m.system_available_bytes || 0) + chatKv + jobKv
                    visible: j.kv_tokens !== undefined
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("Two sessions share the weights (%1): chat KV %2 (%3 tokens) · summary job KV %4 (%5 tokens) · together %6 of %7 %8 · sessions of the larger size that fit: %9")
                        .arg(panel.fmt(panel.m.weights_bytes)).arg(panel.fmt(chatKv)).arg(Theme.num(panel.m.kv_tokens))
                        .arg(panel.fmt(jobKv)).arg(Theme.num(j.kv_tokens)).arg(panel.fmt(chatKv + jobKv)).arg(panel.fmt(budget))
                        .arg((panel.m.kv_budget_bytes || 0) > 0 ? qsTr("KV budget") : qsTr("available"))
                        .arg(Theme.num(Math.max(chatKv, jobKv) > 0 ? Math.floor(budget / Math.max(chatKv, jobKv)) : 0))
                }

                ServerUsers { panel: panel; Layout.maximumWidth: column.width }
                // The three places the KV lives: the live cache, the RAM tier, the disk.
                SectionHeader {
                    visible: panel.hasModel
                    text: qsTr("Where the KV lives"); pixelSize: Theme.smallSize
                    help: qsTr("Live: the open conversation's KV, what the next reply reads. RAM tier: the KV of conversations and branches you left, of summary jobs between runs and of the local server's idle users, kept within its budget (Settings) so that going back to them computes nothing again; the least recently used leave RAM when the budget is reached. Disk: the snapshots, read back when a conversation is no longer in RAM.")
                }
                Label {
                    objectName: "kvTiersLine"
                    property var t: panel.m.ram_tier || ({})
                    property var d: MemoryState.snapshotDisk
                    visible: panel.hasModel
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("Live: %1 (%2 tokens)").arg(panel.fmt(panel.m.kv_allocated_bytes || 0)).arg(Theme.num(panel.m.kv_tokens || 0))
                        + "\n" + qsTr("RAM tier: %1 of %2 · %3 conversations, %4 branches, %5 summaries, %6 server sessions")
                              .arg(panel.fmt(t.used_bytes || 0)).arg(panel.fmt(t.budget_bytes || 0))
                              .arg(Theme.num(t.conversations || 0)).arg(Theme.num(t.branches || 0))
                              .arg(Theme.num(t.summaries || 0)).arg(Theme.num(t.server_sessions || 0))
                        + ((t.shared_live_bytes || 0) > 0 ? qsTr(" (and %1 shared with the live KV, counted there)").arg(panel.fmt(t.shared_live_bytes)) : "")
                        + ((t.evictions || 0) > 0 ? qsTr(" · %1 left RAM for the budget").arg(Theme.num(t.evictions)) : "")
                        + "\n" + (d.total_bytes === undefined ? qsTr("Disk: no snapshot written in this run yet")
                                   : (d.budget_bytes > 0 ? qsTr("Disk: %1 of %2").arg(panel.fmt(d.total_bytes)).arg(panel.fmt(d.budget_bytes))
                                                         : qsTr("Disk: %1 (no budget)").arg(panel.fmt(d.total_bytes))))
                }
                Label {
                    objectName: "kvTiersLesson"
                    property var t: panel.m.ram_tier || ({})
                    visible: panel.hasModel && (panel.m.kv_bytes_per_token || 0) > 0
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                    text: qsTr("Memory decides how many of your conversations come back instantly: at %1 per token, the RAM tier's budget holds about %2 tokens of conversations you left; beyond it the oldest come back from disk, or are computed again.")
                        .arg(panel.fmt(panel.m.kv_bytes_per_token || 0))
                        .arg(Theme.num(Math.floor((t.budget_bytes || 0) / Math.max(1, panel.m.kv_bytes_per_token || 1))))
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
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: MemoryState.snapshotStatus.length > 0 ? MemoryState.snapshotStatus : qsTr("Nothing saved or restored yet for this conversation.")
                    ToolTip.visible: snapshotMouse.containsMouse && MemoryState.snapshotDetail.length > 0
                    ToolTip.text: MemoryState.snapshotStatus + (MemoryState.snapshotDetail.length > 0 ? "\n\n" + qsTr("Details: %1").arg(MemoryState.snapshotDetail) : "")
                    MouseArea { id: snapshotMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
                }
                // All snapshots against their budget; what the last save wrote on hover.
                Label {
                    property var d: MemoryState.snapshotDisk
                    visible: panel.hasModel && d.total_bytes !== undefined
                    Layout.fillWidth: true
                    Layout.maximumWidth: column.width
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                    text: d.total_bytes === undefined ? ""
                        : (d.budget_bytes > 0
                           ? qsTr("All snapshots: %1 of %2 budget").arg(panel.fmt(d.total_bytes)).arg(panel.fmt(d.budget_bytes))
                           : qsTr("All snapshots: %1 (no budget)").arg(panel.fmt(d.total_bytes)))
                        + (d.evicted > 0 ? qsTr(" · %1 least recently used removed").arg(Theme.num(d.evicted)) : "")
                    ToolTip.visible: diskMouse.containsMouse && text.length > 0
                    ToolTip.text: (d.file_bytes !== undefined ? qsTr("This conversation's snapshot: %1").arg(panel.fmt(d.file_bytes)) : qsTr("This conversation has no snapshot yet."))
                        + (d.last_written_bytes !== undefined
                           ? "\n" + (d.last_rewritten
                              ? qsTr("Last save rewrote the whole file: %1 (%2)").arg(panel.fmt(d.last_written_bytes)).arg(d.last_why_rewritten)
                              : qsTr("Last save appended %1 (%2 tokens)").arg(panel.fmt(d.last_written_bytes)).arg(d.last_tokens_written))
                           : "")
                    MouseArea { id: diskMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
                }

            }  // hasModel
        }
    }
}
