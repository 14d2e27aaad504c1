// Settings: the conversation's system prompt, sampling, and the engine settings, each
// showing what it costs in KV memory before it is applied.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Drawer {
    id: drawer
    edge: Qt.RightEdge
    width: 380
    property var info: chat.modelInfo
    property var s: chat.sampling
    property var e: chat.engineSettings
    // KV bytes of `tokens` tokens in `type`, from the engine's per-type cost (model info).
    function kvBytes(type, tokens) {
        var c = (info.kv_types || {})[type]
        return c ? c.bytes_per_token * tokens : 0
    }
    function ctxValue() { return ctxSpin.value > 0 ? ctxSpin.value : (info.n_ctx_train || 0) }

    ScrollView {
        anchors.fill: parent
        contentWidth: availableWidth
        ColumnLayout {
            width: drawer.width - 24
            x: 12
            spacing: 8

            Label { text: qsTr("Language"); font.bold: true; topPadding: 8 }
            ComboBox {
                id: languageChoice
                Layout.fillWidth: true
                Accessible.name: qsTr("Language")
                // Each language in its own words; the system entry says what it resolves to.
                model: [qsTr("System (%1)").arg(language.active === "ko" ? "한국어" : "English"), "English", "한국어"]
                currentIndex: Math.max(0, language.choices.indexOf(language.choice))
                onActivated: (index) => language.choose(language.choices[index])
            }

            Label { text: qsTr("Conversation"); font.bold: true }
            Label { text: qsTr("System prompt"); font.pixelSize: Theme.smallSize }
            TextArea {
                id: systemPrompt
                Layout.fillWidth: true
                Layout.preferredHeight: 70
                wrapMode: TextArea.Wrap
                text: chat.systemPrompt
                placeholderText: qsTr("Optional instructions for this conversation")
            }

            Label { text: qsTr("Sampling"); font.bold: true }
            GridLayout {
                columns: 2
                Label { text: qsTr("temperature") } SpinBox { id: temp; from: 0; to: 200; value: Math.round((s.temperature ?? 0.8) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { text: qsTr("top-k") } SpinBox { id: topK; from: 0; to: 1000; value: s.top_k ?? 40; editable: true }
                Label { text: qsTr("top-p") } SpinBox { id: topP; from: 0; to: 100; value: Math.round((s.top_p ?? 0.95) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { text: qsTr("min-p") } SpinBox { id: minP; from: 0; to: 100; value: Math.round((s.min_p ?? 0.05) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { text: qsTr("repeat penalty") } SpinBox { id: rep; from: 50; to: 200; value: Math.round((s.repeat_penalty ?? 1.0) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { text: qsTr("seed") } SpinBox { id: seed; from: -1; to: 2147483647; value: s.seed ?? -1; editable: true; textFromValue: (v) => v < 0 ? qsTr("random") : String(v); valueFromText: (t) => /^[0-9]+$/.test(t.trim()) ? parseInt(t) : -1; ToolTip.visible: hovered; ToolTip.text: qsTr("−1 or “random”: a fresh seed for every reply (each reply shows its own). A number: every reply sampled with it.") }
                Label { text: qsTr("max tokens") } SpinBox { id: maxTokens; from: 1; to: 100000; value: s.max_tokens ?? 256; editable: true }
            }

            ChatTemplateSettings { Layout.fillWidth: true }

            Label { text: qsTr("Engine"); font.bold: true }
            GridLayout {
                columns: 2
                Label { text: qsTr("backend") }
                ComboBox { id: backend; model: ["auto", "cpu", "cuda"]; currentIndex: Math.max(0, model.indexOf(e.backend || "auto")) }
                Label { text: qsTr("threads (0 = all)") }
                SpinBox { id: threads; from: 0; to: 256; value: e.threads || 0; editable: true }
                Label { text: qsTr("context (0 = trained)") }
                SpinBox { id: ctxSpin; from: 0; to: 1048576; stepSize: 256; value: e.ctx || 0; editable: true }
                Label { text: qsTr("KV type") }
                ComboBox { id: kvType; model: ["f32", "f16", "q8_0", "q4_0"]; currentIndex: Math.max(0, model.indexOf(e.kv_type || "f16")) }
                Label { text: qsTr("when the context is full") }
                ComboBox { id: policy; model: ["stop", "drop-oldest", "shift"]; currentIndex: Math.max(0, model.indexOf(e.context_policy || "stop")) }
                Label { text: qsTr("KV snapshots on disk, MiB (0 = no limit)") }
                SpinBox { id: snapshotBudget; from: 0; to: 16777216; stepSize: 256; editable: true
                          value: Math.round(chat.snapshotBudgetBytes / 1048576) }
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("Cost before applying: a full context of %1 tokens in %2 takes %3 of KV cache (%4 per token); the weights take %5.")
                    .arg(ctxValue()).arg(kvType.currentText)
                    .arg(chat.formatBytes(kvBytes(kvType.currentText, ctxValue())))
                    .arg(chat.formatBytes(kvBytes(kvType.currentText, 1)))
                    .arg(chat.formatBytes(info.weight_bytes || 0))
            }
            Repeater {
                model: ["f32", "f16", "q8_0", "q4_0"]
                Label {
                    font.pixelSize: Theme.smallSize
                    text: modelData + ": " + chat.formatBytes(kvBytes(modelData, ctxValue())) + qsTr(" at %1 tokens").arg(ctxValue())
                }
            }
            RowLayout {
                Button {
                    text: qsTr("Apply")
                    onClicked: {
                        chat.systemPrompt = systemPrompt.text
                        chat.snapshotBudgetBytes = snapshotBudget.value * 1048576
                        chat.sampling = { "temperature": temp.value / 100, "top_k": topK.value, "top_p": topP.value / 100,
                                          "min_p": minP.value / 100, "repeat_penalty": rep.value / 100,
                                          "seed": seed.value, "max_tokens": maxTokens.value }
                        var engine = { "backend": backend.currentText, "threads": threads.value, "ctx": ctxSpin.value,
                                       "kv_type": kvType.currentText, "context_policy": policy.currentText }
                        if (JSON.stringify(engine) !== JSON.stringify(chat.engineSettings)) chat.setEngineSettings(engine)
                        drawer.close()
                    }
                }
                Button { text: qsTr("Cancel"); onClicked: drawer.close() }
            }
        }
    }
}
