// The memory panel while a remote model is loaded (issue 48 point 2): what its engine
// publishes of its memory (Remote.memory, polled every few seconds): vLLM's KV cache use,
// running and waiting requests and prefix-cache hits; llama.cpp's slots and requests;
// kvchat's sessions, KV bytes and RAM tier. Then this conversation's tokens and, when a GGUF
// of the same model was pointed to, the KV they take by the formula, labelled an estimate.
// And what cannot work remotely, said rather than hidden.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    required property var panel
    readonly property var r: Remote.memory
    readonly property bool hasFigures: (r.source || "none") !== "none"
    Layout.fillWidth: true
    spacing: 6

    function pct(x) { return (x * 100).toLocaleString(Qt.locale(), 'f', 1) + " %" }

    SectionHeader {
        text: qsTr("Remote engine: %1").arg(Remote.activeName)
        help: qsTr("The model runs on another machine; its KV cache is that engine's, shared by every request it serves. What it publishes is read every few seconds: vLLM's /metrics (KV cache use, requests, prefix-cache hits), llama.cpp's /slots and /metrics, kvchat's /health (sessions, KV bytes; it answers a caller with its key). An engine that publishes nothing leaves this conversation's own tokens, and the KV they take by the formula when the model's shape is known from a GGUF file of it.")
    }
    Label {
        objectName: "remoteEngineSummary"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        text: !section.r.polled_at ? qsTr("Asking the engine what it publishes…")
            : section.hasFigures ? qsTr("Published by %1").arg(section.r.engine)
            : qsTr("The engine publishes nothing kvchat can read about its memory.")
    }
    ProgressBar {
        visible: section.r.kv_usage !== undefined
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        from: 0; to: 1
        value: section.r.kv_usage || 0
        Accessible.name: qsTr("The remote engine's KV cache in use")
    }
    Label {
        objectName: "remoteEngineFigures"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        visible: text.length > 0
        text: {
            var r = section.r, lines = []
            if (r.kv_usage !== undefined) lines.push(qsTr("KV cache in use: %1 of the engine's, across all its requests").arg(section.pct(r.kv_usage)))
            if (r.kv_tokens !== undefined) lines.push(qsTr("KV cache: %1 tokens").arg(Theme.num(r.kv_tokens)))
            if (r.kv_allocated_bytes !== undefined)
                lines.push(qsTr("KV allocated: %1, of it shared between sessions %2%3")
                           .arg(section.panel.fmt(r.kv_allocated_bytes)).arg(section.panel.fmt(r.kv_shared_bytes))
                           .arg(r.kv_type ? " (" + r.kv_type + ")" : ""))
            if (r.kv_budget_bytes !== undefined) lines.push(qsTr("KV budget: %1").arg(section.panel.fmt(r.kv_budget_bytes)))
            if (r.sessions_busy !== undefined)
                lines.push(qsTr("Sessions: %1 busy, %2 idle").arg(Theme.num(r.sessions_busy)).arg(Theme.num(r.sessions_idle)))
            if (r.ram_tier_budget_bytes !== undefined)
                lines.push(qsTr("Its RAM tier: %1 of %2").arg(section.panel.fmt(r.ram_tier_used_bytes)).arg(section.panel.fmt(r.ram_tier_budget_bytes)))
            if (r.running !== undefined)
                lines.push(qsTr("Requests: %1 running, %2 waiting").arg(Theme.num(r.running)).arg(Theme.num(r.waiting || 0)))
            if (r.prefix_hit_rate !== undefined) lines.push(qsTr("Prefix cache hit rate: %1").arg(section.pct(r.prefix_hit_rate)))
            if (r.slots !== undefined)
                lines.push(qsTr("Slots: %1 of %2 tokens each, %3 busy").arg(Theme.num(r.slots)).arg(Theme.num(r.slot_ctx)).arg(Theme.num(r.slots_busy)))
            return lines.join("\n")
        }
    }
    Label {
        objectName: "remoteConversation"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        text: {
            var r = section.r
            if (r.conversation_tokens === undefined || r.conversation_tokens < 0)
                return qsTr("This conversation: its tokens are counted by the engine after the next reply.")
            var s = qsTr("This conversation: %1 tokens (the last reply's prompt and answer, as the engine counted them).").arg(Theme.num(r.conversation_tokens))
            if (r.estimate_kv_bytes !== undefined)
                s += " " + qsTr("About %1 of KV — an estimate: 2 × %2 layers × %3 tokens × %4 KV heads × %5 × 2 bytes (f16; the engine's KV type is not published).")
                    .arg(section.panel.fmt(r.estimate_kv_bytes)).arg(r.shape.n_layers).arg(Theme.num(r.conversation_tokens))
                    .arg(r.shape.n_kv_heads).arg(r.shape.head_dim)
            return s
        }
    }
    RowLayout {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        Button {
            text: section.r.shape_file ? qsTr("Another GGUF for the estimate…") : qsTr("A GGUF of this model, for the KV estimate…")
            onClicked: shapeDialog.open()
        }
        Label {
            id: shapeError
            objectName: "remoteShapeError"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.error
            textFormat: Text.PlainText
            property string error: ""
            visible: error.length > 0
            text: error
        }
    }
    Label {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: qsTr("Not here with a remote model: KV snapshots on disk, the RAM tier, KV types, context policies and the what-if table on the loaded weights — the remote engine keeps its own cache — nor document summaries and tools, which plan with a local model's tokenizer. Sampling is sent as OpenAI's temperature, top-p and seed; top-k, min-p and the repetition penalty are the engine's.")
    }
    Label {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        textFormat: Text.PlainText
        visible: (section.r.notes || []).length > 0
        text: (section.r.notes || []).join("\n")
    }
    FileDialog {
        id: shapeDialog
        title: qsTr("A GGUF file of the same model (only its header is read)")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: shapeError.error = Remote.setShapeFile(selectedFile)
    }
}
