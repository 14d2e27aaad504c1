// Settings: the conversation's system prompt, sampling, and the engine settings, each
// showing what it costs in KV memory before it is applied. Sampling, the KV type, the
// context and its policy are kept per model file (the one named at the top) and checked
// against that model before they are applied: a KV type it cannot use is disabled with
// the reason, a context past its trained length is warned.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Drawer {
    id: drawer
    edge: Qt.RightEdge
    // Not modal, and Esc closes it through the window's Esc shortcut (Main.qml): Qt Quick
    // blocks every window shortcut while a modal popup, or one that closes on Escape itself,
    // is open (Ctrl+, could not close it, Ctrl+= not zoom it). The window behind is dimmed.
    modal: false
    dim: true
    closePolicy: Popup.CloseOnPressOutside
    // Zoomed with the type, never wider than the window; every row wraps to this width (its
    // labels fill their cells and wrap: a layout keeps a label that does not at its one-line
    // width, pushing the row past the drawer's edge).
    width: Math.min(Theme.px(400), parent ? parent.width : Theme.px(400))
    property var info: Models.modelInfo
    property var s: Models.sampling
    property var e: Models.engineSettings
    // KV bytes of `tokens` tokens in `type`, from the engine's per-type cost (model info).
    function kvBytes(type, tokens) {
        var c = (info.kv_types || {})[type]
        return c ? c.bytes_per_token * tokens : 0
    }
    function ctxValue() { return ctxSpin.value > 0 ? ctxSpin.value : (info.n_ctx_train || facts.n_ctx_train || 0) }
    // The model these settings are for, and what it is (head_dim, trained context).
    property var facts: Models.settingsModelFacts
    // The chat template's "In use" line as shown (for the end-to-end tests).
    readonly property string chatFormatLine: templateSettings.inUseText
    readonly property string modelFile: Models.settingsModel.split("/").pop()
    // The engine choices' problems with that model ({key, blocking, reason}); `facts` is
    // named so that the list is recomputed when the model changes.
    readonly property var issues: (facts, Models.checkEngineSettings({ "kv_type": kvType.currentText, "ctx": ctxSpin.value }))
    function issueFor(key) {
        for (var i = 0; i < issues.length; ++i) if (issues[i].key === key) return issues[i]
        return null
    }
    readonly property bool blocked: issues.some(i => i.blocking)
    // The preset whose values `v` holds ("" when none: edited by hand).
    function presetOf(v) {
        var r = (x) => Math.round(x * 100)
        var p = Models.samplingPresets.find(p => r(p.values.temperature) === r(v.temperature) && p.values.top_k === v.top_k
            && r(p.values.top_p) === r(v.top_p) && r(p.values.min_p) === r(v.min_p)
            && r(p.values.repeat_penalty) === r(v.repeat_penalty))
        return p ? p.id : ""
    }
    // The preset the sampling boxes hold now.
    function matchingPreset() {
        return presetOf({ "temperature": temp.value / 100, "top_k": topK.value, "top_p": topP.value / 100,
                          "min_p": minP.value / 100, "repeat_penalty": rep.value / 100 })
    }
    readonly property color problemColor: WindowTheme.name === "dark" ? "#ff8a80" : "#b03a2e"

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        ColumnLayout {
            width: scroll.availableWidth - 24
            x: 12
            spacing: 8

            Label { text: qsTr("Language"); font.bold: true; topPadding: 8 }
            ComboBox {
                id: languageChoice
                Layout.fillWidth: true
                Accessible.name: qsTr("Language")
                // Each language in its own words; the system entry says what it resolves to.
                model: [qsTr("System (%1)").arg(Language.active === "ko" ? "한국어" : "English"), "English", "한국어"]
                currentIndex: Math.max(0, Array.from(Language.choices).indexOf(Language.choice))
                onActivated: (index) => Language.choose(Language.choices[index])
            }

            Label { text: qsTr("Conversation"); font.bold: true }
            Label { text: qsTr("System prompt"); font.pixelSize: Theme.smallSize }
            // The library of saved prompts (SystemPromptDialog.qml): a pick sets this
            // conversation's prompt at once (and it remembers which one); Save as… keeps the
            // text below under a name; Edit… and Delete act on the saved prompt shown.
            ComboBox {
                id: savedPrompt
                objectName: "savedPromptChoice"
                Layout.fillWidth: true
                Accessible.name: qsTr("Saved system prompt")
                textRole: "name"
                valueRole: "id"
                model: Array.of({ "id": 0, "name": qsTr("None (this conversation's own text)") }).concat(SystemPrompts.prompts)
                currentIndex: Math.max(0, model.findIndex(p => p.id === SystemPrompts.currentPromptId))
                onActivated: (index) => SystemPrompts.pick(model[index].id)
            }
            RowLayout {
                Layout.fillWidth: true
                Button {
                    objectName: "savePromptAs"
                    text: qsTr("Save as…")
                    Accessible.name: qsTr("Save the system prompt as a new saved prompt")
                    onClicked: promptDialog.openFor("save", 0, systemPrompt.text)
                }
                Button {
                    objectName: "editSavedPrompt"
                    text: qsTr("Edit…")
                    Accessible.name: qsTr("Edit the saved prompt")
                    enabled: SystemPrompts.currentPromptId > 0
                    onClicked: promptDialog.openFor("edit", SystemPrompts.currentPromptId, "")
                }
                Button {
                    objectName: "deleteSavedPrompt"
                    text: qsTr("Delete…")
                    Accessible.name: qsTr("Delete the saved prompt")
                    enabled: SystemPrompts.currentPromptId > 0
                    onClicked: promptDialog.openFor("delete", SystemPrompts.currentPromptId, "")
                }
            }
            // Picked from a saved prompt edited since: this conversation kept its text.
            Label {
                objectName: "savedPromptDiffers"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                visible: SystemPrompts.currentDiffers
                text: qsTr("“%1” has changed since this conversation took it; the text below is this conversation's.").arg(SystemPrompts.currentPromptName)
            }
            Button {
                objectName: "useSavedPromptText"
                visible: SystemPrompts.currentDiffers
                text: qsTr("Use the saved text")
                Accessible.name: qsTr("Use the saved prompt's current text in this conversation")
                onClicked: SystemPrompts.pick(SystemPrompts.currentPromptId)
            }
            TextArea {
                id: systemPrompt
                objectName: "systemPromptField"
                Accessible.name: qsTr("System prompt")
                // Tab moves on (a keyboard user is not trapped in the text).
                Keys.onTabPressed: (event) => nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                Keys.onBacktabPressed: (event) => nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                Layout.fillWidth: true
                Layout.preferredHeight: 70
                wrapMode: TextArea.Wrap
                text: Chat.systemPrompt
                placeholderText: qsTr("Optional instructions for this conversation")
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("New conversations start with")
            }
            ComboBox {
                id: defaultPrompt
                objectName: "defaultPromptChoice"
                Layout.fillWidth: true
                Accessible.name: qsTr("System prompt of new conversations")
                textRole: "name"
                valueRole: "id"
                model: Array.of({ "id": 0, "name": qsTr("No system prompt") }).concat(SystemPrompts.prompts)
                currentIndex: Math.max(0, model.findIndex(p => p.id === SystemPrompts.defaultPromptId))
                onActivated: (index) => SystemPrompts.defaultPromptId = model[index].id
            }
            SystemPromptDialog { id: promptDialog }

            Label {
                objectName: "settingsModelLabel"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.bold: true
                visible: Models.settingsModel.length > 0
                text: qsTr("For %1").arg(drawer.modelFile)
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                visible: Models.settingsModel.length > 0
                text: (drawer.facts.head_dim > 0
                       ? qsTr("Sampling, KV type, context and its policy below are kept for this model (head size %1, trained for %2 tokens).").arg(Theme.num(drawer.facts.head_dim)).arg(Theme.num(drawer.facts.n_ctx_train))
                       : qsTr("Sampling, KV type, context and its policy below are kept for this model."))
            }
            // What this model cannot run with, at the top where it is seen first.
            Label {
                objectName: "settingsProblems"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: drawer.problemColor
                visible: drawer.blocked
                text: drawer.issues.filter(i => i.blocking).map(i => "✕ " + i.reason).join("\n")
                    + "\n" + qsTr("Choose another value under Engine below and Apply: the model is loaded again.")
            }

            Label { text: qsTr("Sampling"); font.bold: true }
            RowLayout {
                Layout.fillWidth: true
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("preset") }
                ComboBox {
                    id: preset
                    objectName: "samplingPreset"
                    Layout.fillWidth: true
                    Accessible.name: qsTr("Sampling preset")
                    textRole: "name"
                    model: Array.of({ "id": "", "name": qsTr("Custom") }).concat(Models.samplingPresets)
                    currentIndex: Math.max(0, model.findIndex(p => p.id === (drawer.s.preset !== undefined ? drawer.s.preset : drawer.presetOf(drawer.s))))
                    onActivated: (index) => {
                        var v = model[index].values
                        if (!v) return
                        temp.value = Math.round(v.temperature * 100); topK.value = v.top_k
                        topP.value = Math.round(v.top_p * 100); minP.value = Math.round(v.min_p * 100)
                        rep.value = Math.round(v.repeat_penalty * 100)
                    }
                }
            }
            GridLayout {
                columns: 2
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("temperature") } SpinBox { id: temp; from: 0; to: 200; value: Math.round((drawer.s.temperature ?? 0.8) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("top-k") } SpinBox { id: topK; from: 0; to: 1000; value: drawer.s.top_k ?? 40; editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("top-p") } SpinBox { id: topP; from: 0; to: 100; value: Math.round((drawer.s.top_p ?? 0.95) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("min-p") } SpinBox { id: minP; from: 0; to: 100; value: Math.round((drawer.s.min_p ?? 0.05) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("repeat penalty") } SpinBox { id: rep; from: 50; to: 200; value: Math.round((drawer.s.repeat_penalty ?? 1.0) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("seed") } SpinBox { id: seed; from: -1; to: 2147483647; value: drawer.s.seed ?? -1; editable: true; textFromValue: (v) => v < 0 ? qsTr("random") : String(v); valueFromText: (t) => /^[0-9]+$/.test(t.trim()) ? parseInt(t) : -1; ToolTip.visible: hovered; ToolTip.text: qsTr("−1 or “random”: a fresh seed for every reply (each reply shows its own). A number: every reply sampled with it.") }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("max tokens") } SpinBox { id: maxTokens; from: 1; to: 100000; value: drawer.s.max_tokens ?? 256; editable: true }
            }

            ChatTemplateSettings { id: templateSettings; Layout.fillWidth: true }

            LocalServerSettings { Layout.fillWidth: true }

            Label { text: qsTr("Engine"); font.bold: true }
            GridLayout {
                columns: 2
                Layout.fillWidth: true
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("backend") }
                ComboBox { id: backend; model: ["auto", "cpu", "cuda"]; currentIndex: Math.max(0, model.indexOf(drawer.e.backend || "auto")) }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("threads (0 = all)") }
                SpinBox { id: threads; from: 0; to: 256; value: drawer.e.threads || 0; editable: true }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("context (0 = trained)") }
                SpinBox { id: ctxSpin; objectName: "contextSpin"; from: 0; to: 1048576; stepSize: 256; value: drawer.e.ctx || 0; editable: true
                          Accessible.name: qsTr("Context length") }
                Label {
                    objectName: "contextWarning"
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: drawer.problemColor
                    visible: text.length > 0
                    text: { var i = drawer.issueFor("ctx"); return i ? "⚠ " + i.reason : "" }
                }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("KV type") }
                ComboBox {
                    id: kvType
                    objectName: "kvTypeChoice"
                    Layout.fillWidth: true
                    // Wider than the box, to the left: the reasons fit.
                    popup.width: Math.max(width, drawer.width - 24)
                    popup.x: width - popup.width
                    Accessible.name: qsTr("KV type")
                    model: ["f32", "f16", "q8_0", "q4_0"]
                    currentIndex: Math.max(0, model.indexOf(drawer.e.kv_type || "f16"))
                    // A type this model cannot use is shown disabled, with why beside it.
                    delegate: ItemDelegate {
                        required property string modelData
                        required property int index
                        readonly property string problem: (drawer.facts, Models.kvTypeProblem(modelData))
                        width: ListView.view ? ListView.view.width : implicitWidth
                        text: problem ? qsTr("%1 — not for this model").arg(modelData) : modelData
                        enabled: problem.length === 0
                        highlighted: kvType.highlightedIndex === index
                        ToolTip.visible: hovered && problem.length > 0
                        ToolTip.text: problem
                    }
                }
                Label {
                    objectName: "kvTypeReason"
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: drawer.problemColor
                    visible: text.length > 0
                    text: { var i = drawer.issueFor("kv_type"); return i ? "✕ " + i.reason : "" }
                }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("GPU layers") }
                SpinBox { id: gpuLayers; objectName: "gpuLayersSpin"; from: -1; to: 1024; editable: true
                          value: drawer.e.gpu_layers ?? -1
                          textFromValue: (v) => v < 0 ? qsTr("auto") : String(v)
                          valueFromText: (t) => /^[0-9]+$/.test(t.trim()) ? parseInt(t) : -1
                          Accessible.name: qsTr("GPU layers") }
                Label {
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("With the CUDA backend: how many layers run on the GPU, the rest on the CPU. Auto puts as many as fit the GPU's free memory at this context and KV type.")
                }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("when the context is full") }
                ComboBox {
                    id: policy
                    Layout.fillWidth: true
                    popup.width: Math.max(width, 240)
                    popup.x: width - popup.width
                    Accessible.name: qsTr("When the context is full")
                    readonly property var ids: ["drop-oldest", "shift", "stop"]
                    model: [qsTr("drop the oldest turns"), qsTr("shift out the oldest half"), qsTr("stop and ask")]
                    currentIndex: Math.max(0, ids.indexOf(drawer.e.context_policy || "drop-oldest"))
                }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("KV snapshots on disk, MiB (0 = no limit)") }
                SpinBox { id: snapshotBudget; from: 0; to: 16777216; stepSize: 256; editable: true
                          value: Math.round(MemoryState.snapshotBudgetBytes / 1048576) }
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("Cost before applying: a full context of %1 tokens in %2 takes %3 of KV cache (%4 per token); the weights take %5.")
                    .arg(Theme.num(drawer.ctxValue())).arg(kvType.currentText)
                    .arg(Chat.formatBytes(drawer.kvBytes(kvType.currentText, drawer.ctxValue())))
                    .arg(Chat.formatBytes(drawer.kvBytes(kvType.currentText, 1)))
                    .arg(Chat.formatBytes(drawer.info.weight_bytes || 0))
            }
            Repeater {
                model: ["f32", "f16", "q8_0", "q4_0"]
                Label {
                    required property string modelData
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: modelData + ": " + Chat.formatBytes(drawer.kvBytes(modelData, drawer.ctxValue())) + qsTr(" at %1 tokens").arg(drawer.ctxValue())
                }
            }
            RowLayout {
                Button {
                    objectName: "applySettings"
                    text: qsTr("Apply")
                    enabled: !drawer.blocked
                    ToolTip.visible: hovered && drawer.blocked
                    ToolTip.text: qsTr("This model cannot use these settings: see the reason above.")
                    onClicked: {
                        Chat.systemPrompt = systemPrompt.text
                        MemoryState.snapshotBudgetBytes = snapshotBudget.value * 1048576
                        Models.sampling = { "temperature": temp.value / 100, "top_k": topK.value, "top_p": topP.value / 100,
                                          "min_p": minP.value / 100, "repeat_penalty": rep.value / 100,
                                          "seed": seed.value, "max_tokens": maxTokens.value,
                                          "preset": drawer.matchingPreset() }
                        var engine = { "backend": backend.currentText, "threads": threads.value, "ctx": ctxSpin.value,
                                       "kv_type": kvType.currentText, "context_policy": policy.ids[policy.currentIndex],
                                       "gpu_layers": gpuLayers.value }
                        var current = Models.engineSettings
                        var changed = Object.keys(engine).some(k => String(engine[k]) !== String(current[k]))
                        // A changed setting reloads the model; after a failed load it retries.
                        if (changed || Models.modelError) Models.setEngineSettings(engine)
                        drawer.close()
                    }
                }
                Button { text: qsTr("Cancel"); onClicked: drawer.close() }
            }
        }
    }
}
