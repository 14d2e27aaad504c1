// Settings: the conversation's system prompt, sampling, and the engine settings, each
// showing what it costs in KV memory before it is applied. Sampling, the KV type, the
// context and its policy are kept per model file (the one named at the top) and checked
// against that model before they are applied: a KV type it cannot use is disabled with
// the reason, a context past its trained length is warned.
//
// One rule for applying (issue 43), said at the top: every change applies at once, except
// the engine's choices (backend, threads, context, KV type, GPU layers, the context's
// policy), which reload the model: those wait for the Apply bar pinned at the bottom,
// which says what Apply will do. What restarts is said when it happens (the status line).
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
    // The dimming, seen in both themes (Fusion's is black at 7%), and under the header only:
    // the drawer starts below it (Main.qml), and its buttons stay as they are.
    // (Qt places a drawer's dimming at the drawer's own y: it starts under the header.)
    Overlay.modeless: Rectangle { color: Theme.dim }
    // A drawer dragged or clicked shut keeps nothing unsaid: the prompt being typed and a
    // template choice still waiting apply now.
    onAboutToHide: {
        drawer.applySystemPrompt()
        templateSettings.applyPendingChoice()
    }
    property var info: Models.modelInfo
    property var s: Models.sampling
    property var e: Models.engineSettings
    // KV bytes of `tokens` tokens in `type`, from the engine's per-type cost (model info).
    // "K/V" (typed apart): half a token's bytes of each.
    function kvBytes(type, tokens) {
        var parts = String(type).split("/")
        if (parts.length === 2) return (kvBytes(parts[0], tokens) + kvBytes(parts[1], tokens)) / 2
        var c = (info.kv_types || {})[type]
        return c ? c.bytes_per_token * tokens : 0
    }
    // The KV type the two boxes say: "q8_0", or "q8_0/q4_0" when V is typed apart.
    function kvTypeChoice() {
        var k = kvType.currentText
        var v = kvTypeV.currentIndex <= 0 ? k : kvTypeV.currentText
        return v === k ? k : k + "/" + v
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
    readonly property color problemColor: Theme.error

    // ---- applied at once ----------------------------------------------------------------
    // The preset whose values `v` holds ("" when none: edited by hand).
    function presetOf(v) {
        var r = (x) => Math.round(x * 100)
        var p = Models.samplingPresets.find(p => r(p.values.temperature) === r(v.temperature) && p.values.top_k === v.top_k
            && r(p.values.top_p) === r(v.top_p) && r(p.values.min_p) === r(v.min_p)
            && r(p.values.repeat_penalty) === r(v.repeat_penalty))
        return p ? p.id : ""
    }
    // The sampling the boxes hold now.
    function shownSampling() {
        return { "temperature": temp.value / 100, "top_k": topK.value, "top_p": topP.value / 100,
                 "min_p": minP.value / 100, "repeat_penalty": rep.value / 100,
                 "seed": seed.value, "max_tokens": maxTokens.value }
    }
    // Sampling applies at once (no reload): `changes` over what the boxes hold.
    function applySampling(changes) {
        var v = Object.assign(drawer.shownSampling(), changes || {})
        v.preset = drawer.presetOf(v)
        Models.sampling = v
    }
    // The system prompt applies as it is typed (a pause, leaving the field, closing the
    // drawer); the same text is not written again (nor a conversation opened for it).
    function applySystemPrompt() {
        promptPause.stop()
        if (systemPrompt.text !== Chat.systemPrompt) Chat.systemPrompt = systemPrompt.text
    }
    Timer { id: promptPause; interval: 700; onTriggered: drawer.applySystemPrompt() }
    // The KV snapshots' budget: a field in MB (decimal, as every byte figure of the window),
    // shown and typed as the window writes sizes ("4.29 GB"; "500 MB" and "2 GB" typed).
    function budgetText(mb) { return mb > 0 ? Chat.formatBytes(mb * 1e6) : qsTr("no limit") }
    function budgetFromText(text, current) {
        if (text.trim() === drawer.budgetText(current)) return current
        var loc = Qt.locale()
        var m = /^\s*([0-9][0-9.,\s]*)\s*([KMGT]?B)?\s*$/i.exec(text.split(loc.groupSeparator).join(""))
        if (!m) return current
        var n = parseFloat(m[1].replace(loc.decimalPoint, ".").replace(/\s/g, ""))
        // The units util::format_bytes writes, read back from what is typed.
        var mbPer = { "B": 1e-6, "KB": 1e-3, "MB": 1, "GB": 1e3, "TB": 1e6 }[(m[2] || "MB").toUpperCase()]  // byte-units: ok
        return isNaN(n) ? current : Math.round(n * mbPer)
    }

    // Opens at the local server's section, its switch focused (the server view's button).
    function openServerSection() {
        open()
        const bar = scroll.ScrollBar.vertical
        bar.position = Math.max(0, Math.min(serverSettings.y / Math.max(1, scroll.contentHeight), 1 - bar.size))
        serverSettings.focusSwitch()
    }

    // Opens at Settings → Tools (the message box's Tools button).
    function openToolsSection() {
        open()
        const bar = scroll.ScrollBar.vertical
        bar.position = Math.max(0, Math.min(toolsSettings.y / Math.max(1, scroll.contentHeight), 1 - bar.size))
        toolsSettings.focusFirst()
    }

    // ---- pending until Apply: the engine's choices, which reload the model ------------------
    // The engine settings in force, with the defaults the boxes show for keys not set.
    readonly property var engineInForce: ({
        "backend": drawer.e.backend || "auto", "threads": drawer.e.threads || 0, "ctx": drawer.e.ctx || 0,
        "kv_type": drawer.e.kv_type || "f16", "context_policy": drawer.e.context_policy || "drop-oldest",
        "gpu_layers": drawer.e.gpu_layers ?? -1 })
    // What the engine boxes hold now.
    readonly property var engineChoice: ({
        "backend": backend.currentText, "threads": threads.value, "ctx": ctxSpin.value,
        "kv_type": drawer.kvTypeChoice(), "context_policy": policy.ids[policy.currentIndex],
        "gpu_layers": gpuLayers.value })
    readonly property bool enginePending: Object.keys(engineChoice).some(k => String(engineChoice[k]) !== String(engineInForce[k]))
    // Whether Apply loads the model: the settings model is the loaded one, or its load failed.
    readonly property bool applyLoads: Models.settingsModel.length > 0
        && (drawer.info.path === Models.settingsModel || Models.modelError.length > 0)
    // The engine boxes back to the settings in force (Cancel; another model's settings).
    function resetEngine() {
        var v = drawer.engineInForce
        backend.currentIndex = Math.max(0, backend.model.indexOf(v.backend))
        threads.value = v.threads
        ctxSpin.value = v.ctx
        var kv = String(v.kv_type).split("/")
        kvType.currentIndex = Math.max(0, kvType.model.indexOf(kv[0]))
        kvTypeV.currentIndex = kv.length === 2 ? Math.max(0, kvTypeV.model.indexOf(kv[1])) : 0
        policy.currentIndex = Math.max(0, policy.ids.indexOf(v.context_policy))
        gpuLayers.value = v.gpu_layers
    }
    Component.onCompleted: resetEngine()
    Connections {
        target: Models
        function onEngineSettingsChanged() { drawer.resetEngine() }
    }
    function applyEngine() {
        // A changed setting reloads the model; after a failed load, Apply retries it.
        if (drawer.enginePending || Models.modelError) Models.setEngineSettings(drawer.engineChoice)
        drawer.close()
    }
    // What the Apply bar says Apply will do (or that nothing waits for it).
    readonly property string applyNote: drawer.blocked
        ? qsTr("This model cannot use these settings: see the reason above.")
        : !drawer.enginePending && !Models.modelError ? qsTr("No engine change waits: the settings above are in force.")
        : !drawer.applyLoads ? qsTr("Apply keeps these engine settings for %1: it is loaded with them.").arg(drawer.modelFile)
        : Models.modelError ? qsTr("Apply loads %1 again with these engine settings.").arg(drawer.modelFile)
        : qsTr("Apply reloads %1 with these engine settings: the conversation is computed again.").arg(drawer.modelFile)

    // Where the drawer, its dimming and its Apply bar are (for the end-to-end tests).
    function layoutState() {
        var top = drawer.contentItem.mapToItem(null, 0, 0).y
        var bar = applyBar.mapToItem(null, 0, 0).y
        return { "opened": drawer.opened, "top": top, "bottom": top + drawer.contentItem.height,
                 "dim_top": drawer.y, "dim_alpha": Theme.dim.a,
                 "rule": ruleLine.text, "apply_bar_top": bar, "apply_bar_bottom": bar + applyBar.height,
                 "apply_note": drawer.applyNote, "apply_enabled": applyButton.enabled,
                 "engine_pending": drawer.enginePending }
    }

    // The rule, at the top where it is read first; the Apply bar pinned at the bottom.
    Label {
        id: ruleLine
        objectName: "settingsApplyRule"
        anchors.top: parent.top
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.margins: Theme.spacingM
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: qsTr("Changes here apply at once. The engine's choices reload the model, so they wait for Apply at the bottom.")
    }
    ScrollView {
        id: scroll
        anchors.top: ruleLine.bottom
        anchors.topMargin: Theme.spacingXs
        anchors.bottom: applyBar.top
        anchors.left: parent.left
        anchors.right: parent.right
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
                background: FieldBackground { control: systemPrompt }
                // Applied at once: after a pause in the typing, and on leaving the field.
                onTextChanged: if (activeFocus) promptPause.restart()
                onEditingFinished: drawer.applySystemPrompt()
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
                    // Applied at once; the boxes below follow (bound to the sampling in force).
                    onActivated: (index) => { if (model[index].values) drawer.applySampling(model[index].values) }
                }
            }
            GridLayout {
                columns: 2
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("temperature") }
                SpinBox { id: temp; from: 0; to: 200; value: Math.round((drawer.s.temperature ?? 0.8) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true
                          background: FieldBackground { control: temp }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("top-k") }
                SpinBox { id: topK; from: 0; to: 1000; value: drawer.s.top_k ?? 40; editable: true
                          background: FieldBackground { control: topK }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("top-p") }
                SpinBox { id: topP; from: 0; to: 100; value: Math.round((drawer.s.top_p ?? 0.95) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true
                          background: FieldBackground { control: topP }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("min-p") }
                SpinBox { id: minP; from: 0; to: 100; value: Math.round((drawer.s.min_p ?? 0.05) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true
                          background: FieldBackground { control: minP }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("repeat penalty") }
                SpinBox { id: rep; from: 50; to: 200; value: Math.round((drawer.s.repeat_penalty ?? 1.0) * 100); textFromValue: (v) => (v / 100).toFixed(2); valueFromText: (t) => Math.round(parseFloat(t) * 100); editable: true
                          background: FieldBackground { control: rep }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("seed") }
                SpinBox { id: seed; from: -1; to: 2147483647; value: drawer.s.seed ?? -1; editable: true; textFromValue: (v) => v < 0 ? qsTr("random") : String(v); valueFromText: (t) => /^[0-9]+$/.test(t.trim()) ? parseInt(t) : -1; ToolTip.visible: hovered; ToolTip.text: qsTr("−1 or “random”: a fresh seed for every reply (each reply shows its own). A number: every reply sampled with it.")
                          background: FieldBackground { control: seed }
                          onValueModified: drawer.applySampling() }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("max tokens") }
                SpinBox { id: maxTokens; from: 1; to: 100000; value: drawer.s.max_tokens ?? 256; editable: true
                          background: FieldBackground { control: maxTokens }
                          onValueModified: drawer.applySampling() }
            }

            ChatTemplateSettings { id: templateSettings; Layout.fillWidth: true }

            LocalServerSettings { id: serverSettings; Layout.fillWidth: true }

            ToolsSettings { id: toolsSettings; Layout.fillWidth: true }

            // The KV snapshots' budget applies at once (nothing is reloaded).
            Label { text: qsTr("KV snapshots"); font.bold: true }
            RowLayout {
                Layout.fillWidth: true
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("on disk at most (0 = no limit)") }
                SpinBox {
                    id: snapshotBudget
                    objectName: "snapshotBudgetSpin"
                    Accessible.name: qsTr("KV snapshots on disk at most")
                    from: 0; to: 16777216; stepSize: 500; editable: true
                    value: Math.round(MemoryState.snapshotBudgetBytes / 1e6)
                    textFromValue: (v) => drawer.budgetText(v)
                    valueFromText: (t) => drawer.budgetFromText(t, snapshotBudget.value)
                    validator: null  // sizes with their unit ("2 GB"), not only digits
                    background: FieldBackground { control: snapshotBudget }
                    onValueModified: MemoryState.snapshotBudgetBytes = value * 1e6
                }
            }

            // The RAM tier's budget applies at once: conversations past it leave RAM.
            RowLayout {
                Layout.fillWidth: true
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("in RAM at most, for conversations you left (0 = none kept)") }
                SpinBox {
                    id: ramTierBudget
                    objectName: "ramTierBudgetSpin"
                    Accessible.name: qsTr("KV of conversations you left, in RAM at most")
                    from: 0; to: 16777216; stepSize: 500; editable: true
                    value: Math.round(MemoryState.ramTierBudgetBytes / 1e6)
                    textFromValue: (v) => drawer.budgetText(v)
                    valueFromText: (t) => drawer.budgetFromText(t, ramTierBudget.value)
                    validator: null
                    background: FieldBackground { control: ramTierBudget }
                    onValueModified: MemoryState.ramTierBudgetBytes = value * 1e6
                }
            }

            Label { text: qsTr("Engine"); font.bold: true }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("These reload the model: they wait for Apply at the bottom.")
            }
            GridLayout {
                columns: 2
                Layout.fillWidth: true
                // No bindings to the settings in force: resetEngine() sets these (Cancel,
                // another model's settings), so what is chosen here stays until Apply.
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("backend") }
                ComboBox { id: backend; objectName: "backendChoice"; model: ["auto", "cpu", "cuda"]; Accessible.name: qsTr("Backend") }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("threads (0 = all)") }
                SpinBox { id: threads; from: 0; to: 256; editable: true
                          background: FieldBackground { control: threads } }
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("context (0 = trained)") }
                SpinBox { id: ctxSpin; objectName: "contextSpin"; from: 0; to: 1048576; stepSize: 256; editable: true
                          background: FieldBackground { control: ctxSpin }
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
                    model: ["f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r"]
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
                Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("V type (values)") }
                ComboBox {
                    id: kvTypeV
                    objectName: "kvTypeVChoice"
                    Layout.fillWidth: true
                    popup.width: Math.max(width, drawer.width - 24)
                    popup.x: width - popup.width
                    Accessible.name: qsTr("V type")
                    // First: V as K (one KV type); else V typed apart from K.
                    model: [qsTr("same as K"), "f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r"]
                    delegate: ItemDelegate {
                        required property string modelData
                        required property int index
                        readonly property string problem: index === 0 ? "" : (drawer.facts, Models.kvTypeProblem(modelData))
                        width: ListView.view ? ListView.view.width : implicitWidth
                        text: problem ? qsTr("%1 — not for this model").arg(modelData) : modelData
                        enabled: problem.length === 0
                        highlighted: kvTypeV.highlightedIndex === index
                        ToolTip.visible: hovered && problem.length > 0
                        ToolTip.text: problem
                    }
                }
                Label {
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: qsTr("Keys carry most of what a low-bit KV type loses: finer keys with 4-bit values (q8_0 K, q4_0r V) keep most of the quality at well under half of f16's memory. K and V typed apart run on the CPU backend.")
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
                          background: FieldBackground { control: gpuLayers }
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
                    readonly property var ids: ["drop-oldest", "shift", "sink-window", "stop"]
                    model: [qsTr("drop the oldest turns"), qsTr("shift out the oldest half"), qsTr("keep the start and the latest (attention sinks)"), qsTr("stop and ask")]
                }
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                text: qsTr("Cost before applying: a full context of %1 tokens in %2 takes %3 of KV cache (%4 per token); the weights take %5.")
                    .arg(Theme.num(drawer.ctxValue())).arg(drawer.kvTypeChoice())
                    .arg(Chat.formatBytes(drawer.kvBytes(drawer.kvTypeChoice(), drawer.ctxValue())))
                    .arg(Chat.formatBytes(drawer.kvBytes(drawer.kvTypeChoice(), 1)))
                    .arg(Chat.formatBytes(drawer.info.weight_bytes || 0))
            }
            Repeater {
                model: ["f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r", "f16/q8_0", "q8_0/q4_0", "q8_0/q4_0r"]
                Label {
                    required property string modelData
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    text: modelData + ": " + Chat.formatBytes(drawer.kvBytes(modelData, drawer.ctxValue())) + qsTr(" at %1 tokens").arg(Theme.num(drawer.ctxValue()))
                }
            }
        }
    }
    // The Apply bar: pinned (never scrolled away), saying what Apply does.
    Rectangle {
        id: applyBar
        objectName: "settingsApplyBar"
        anchors.bottom: parent.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        height: applyColumn.implicitHeight + 2 * Theme.spacingS
        color: Theme.surfaceAlt
        Rectangle { width: parent.width; height: 1; color: Theme.border }
        ColumnLayout {
            id: applyColumn
            anchors.fill: parent
            anchors.margins: Theme.spacingS
            anchors.leftMargin: Theme.spacingM
            anchors.rightMargin: Theme.spacingM
            spacing: Theme.spacingXs
            Label {
                objectName: "settingsApplyNote"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                textFormat: Text.PlainText  // names a file
                font.pixelSize: Theme.smallSize
                color: drawer.blocked ? Theme.error : Theme.text
                text: drawer.applyNote
            }
            RowLayout {
                Button {
                    id: applyButton
                    objectName: "applySettings"
                    text: qsTr("Apply")
                    Accessible.description: drawer.applyNote
                    enabled: !drawer.blocked && (drawer.enginePending || Models.modelError.length > 0)
                    onClicked: drawer.applyEngine()
                }
                Button {
                    objectName: "cancelEngineSettings"
                    text: qsTr("Cancel")
                    Accessible.name: qsTr("Cancel the engine changes")
                    enabled: drawer.enginePending
                    onClicked: drawer.resetEngine()
                }
            }
        }
    }
}
