// The model picker at the top of the chat (issue 43): a button naming the loaded model (its
// name, size and backend, a chevron) that opens the models to load — "Open file…" (the
// window's file dialog), My models (the files in the data folder's models/) and Recent (the
// other models opened before) — each with its size and whether it fits (Library's fit at
// the Models page's context and KV type). Choosing one shows its load options before the
// load: the context, the KV type, the GPU layers (when CUDA runs the chat) and what a full
// context does, and beside them the memory they will take, recomputed as they change
// (Library.loadEstimate: the engine's weights + KV at that context and type against the
// free memory, and the formula behind the KV). Load keeps the options as that model's own
// and loads it (Models.loadModelWith). Keys: Ctrl+O (Main.qml) opens it on "Open file…";
// ↑ ↓ and Tab move, Enter chooses, Esc closes. Names and paths are plain text.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ToolButton {
    id: picker
    objectName: "modelPicker"
    // The header is short of room: the model's name alone (its size and backend are in the
    // tooltip and the list).
    property bool compact: false
    // The whole demo notice, shown at the top of the list when the header has no room for it.
    property string notice: ""
    // The most the name takes before it is cut in the middle (only very long names are).
    property real nameMaxWidth: Theme.px(320)
    // "Open file…" was chosen: the window opens its file dialog.
    signal openFileRequested()

    readonly property var info: Models.modelInfo
    readonly property string modelName: Models.modelLoading
        ? qsTr("Loading model… %1%").arg(Math.round(100 * Models.loadProgress))
        : picker.info.display_name ? picker.info.display_name : qsTr("No model")
    readonly property string details: !picker.info.display_name || Models.modelLoading ? ""
        : picker.info.remote ? qsTr("remote: %1").arg(picker.info.remote_origin)
        : Chat.formatBytes(picker.info.file_bytes) + "  ·  " + (picker.info.backend || "cpu")
    // Whether the GPU-layers choice means anything here: CUDA runs the chat.
    readonly property bool gpuAvailable: picker.info.backend === "cuda" || ModelHub.freeMemoryIsGpu
    // "list" (the models) or "options" (the chosen one's load options).
    property string view: "list"
    readonly property Item overlay: Overlay.overlay

    text: picker.modelName + (picker.details ? "  ·  " + picker.details : "")
    Accessible.name: qsTr("Model: %1").arg(picker.text)
    Accessible.description: qsTr("Choose a model and its load options (Ctrl+O)")
    focusPolicy: Qt.StrongFocus
    ToolTip.visible: (hovered || visualFocus) && !popup.opened
    ToolTip.delay: 500
    ToolTip.text: picker.text + (picker.notice ? "\n" + picker.notice : "") + "\n" + Accessible.description
    onClicked: popup.opened ? popup.close() : picker.openList(false)
    Keys.onReturnPressed: picker.openList(false)
    Keys.onEnterPressed: picker.openList(false)

    contentItem: RowLayout {
        spacing: Theme.spacingXs
        Label {
            objectName: "modelPickerName"
            font.bold: true
            textFormat: Text.PlainText
            text: picker.modelName
            elide: Text.ElideMiddle
            Layout.maximumWidth: picker.nameMaxWidth
        }
        Label {
            objectName: "modelPickerDetails"
            visible: !picker.compact && picker.details.length > 0
            textFormat: Text.PlainText
            color: Theme.textMuted
            text: "·  " + picker.details
        }
        Label { text: "▾"; color: Theme.textMuted; Accessible.ignored: true }
    }
    background: Rectangle {
        implicitHeight: Theme.px(36)
        radius: Theme.radiusM
        color: picker.down || popup.opened ? Theme.raised : picker.hovered ? Theme.surface : "transparent"
        border.color: Theme.focusRing
        border.width: picker.visualFocus ? 2 : 0
    }

    // The rows of the list: "Open file…", then My models and Recent, each under its title.
    readonly property var rows: {
        var out = [{ "kind": "open" }]
        var entries = Library.entries
        var mine = entries.filter(e => e.in_models_dir)
        var recent = entries.filter(e => !e.in_models_dir && e.recent_rank >= 0)
        out.push({ "kind": "section", "title": qsTr("My models") })
        if (mine.length === 0)
            out.push({ "kind": "empty", "title": qsTr("No model files in %1 yet: the Models page (Ctrl+Shift+M) downloads them.").arg(Library.modelsDir) })
        mine.forEach(e => out.push({ "kind": "model", "section": "mine", "entry": e }))
        if (recent.length > 0) out.push({ "kind": "section", "title": qsTr("Recent") })
        recent.forEach(e => out.push({ "kind": "model", "section": "recent", "entry": e }))
        return out
    }
    function selectable(i) { return i >= 0 && i < rows.length && (rows[i].kind === "open" || rows[i].kind === "model") }
    // Opens the list on "Open file…" (fileFirst: Ctrl+O) or on the loaded model.
    function openList(fileFirst) {
        view = "list"
        popup.open()
        var loaded = rows.findIndex(r => r.kind === "model" && r.entry.loaded)
        list.currentIndex = fileFirst || loaded < 0 ? 0 : loaded
        list.forceActiveFocus()
    }
    // The next row that can be chosen, `step` away (round the list).
    function move(step) {
        var n = rows.length
        for (var k = 1, i = list.currentIndex; k <= n; ++k) {
            i = (i + step + n) % n
            if (selectable(i)) { list.currentIndex = i; return }
        }
    }
    function choose(i) {
        if (!selectable(i)) return
        if (rows[i].kind === "open") { popup.close(); picker.openFileRequested(); return }
        showOptions(rows[i].entry.path)
    }
    // The load options of a file (a path or a file URL): its own settings (the engine's
    // defaults where it has none), the context its own number of tokens or else 4096, at
    // most its trained context.
    function showOptions(path) {
        var s = Models.engineSettingsOf(path)
        options.facts = Library.loadEstimate(path, 0, "f16", -1)
        options.path = path
        var trained = options.facts.n_ctx_train || 0
        var ctx = s.ctx > 0 ? s.ctx : 4096
        ctxSpin.value = trained > 0 ? Math.min(ctx, trained) : ctx
        kvBox.currentIndex = Math.max(0, Library.kvTypes.indexOf(s.kv_type || "f16"))
        gpuSpin.value = s.gpu_layers ?? -1
        policyBox.currentIndex = Math.max(0, policyBox.ids.indexOf(s.context_policy || "drop-oldest"))
        view = "options"
        if (!popup.opened) popup.open()
        ctxSpin.forceActiveFocus()
    }
    function loadChosen() {
        if (!options.canLoad) return
        var chosen = { "ctx": ctxSpin.value, "kv_type": kvBox.currentText, "gpu_layers": gpuSpin.value,
                       "context_policy": policyBox.ids[policyBox.currentIndex] }
        if (Models.loadModelWith(options.path, chosen)) popup.close()
    }
    // An entry's fit as a short line (at the Models page's context and KV type).
    function fitLine(e) {
        if (e.error) return qsTr("Cannot be read: %1").arg(e.error)
        if (e.fit_state !== "done") return e.fit_error || ""
        var x = e.fit
        if (!x.runnable) return qsTr("kvchat cannot run it")
        return (x.fits ? qsTr("Fits: %1 at %2 tokens of %3, %4 free") : qsTr("Does not fit: %1 at %2 tokens of %3, %4 free"))
            .arg(Chat.formatBytes(x.total_bytes)).arg(Theme.num(x.n_ctx)).arg(x.kv_type).arg(Chat.formatBytes(x.free_bytes))
    }
    // For the end-to-end tests' ui.json: the popup as shown.
    function testState() {
        var models = rows.filter(r => r.kind === "model")
        var est = options.estimate
        return { "opened": popup.opened, "view": view, "text": picker.text, "compact": picker.compact,
                 "x": popup.opened ? popup.background.mapToItem(null, 0, 0).x : -1, "width": popup.width, "height": popup.height,
                 "items": models.map(r => r.entry.file_name), "sections": models.map(r => r.section),
                 "current": list.currentIndex >= 0 && list.currentIndex < rows.length ? rows[list.currentIndex].kind : "",
                 "notice_shown": noticeLabel.visible,
                 "options": view !== "options" ? null : {
                     "path": options.path, "ctx": ctxSpin.value, "kv_type": kvBox.currentText, "gpu_layers": gpuSpin.value,
                     "gpu_layers_shown": gpuSpin.visible, "context_policy": policyBox.ids[policyBox.currentIndex],
                     "kv_bytes": est.kv_bytes, "total_bytes": est.total_bytes, "fits": est.fits, "fit_text": est.fit_text,
                     "can_load": options.canLoad } }
    }
    readonly property alias popupOpened: popup.opened
    readonly property Item popupContent: popup.contentItem

    Popup {
        id: popup
        objectName: "modelPickerPopup"
        y: picker.height
        width: Math.min(Theme.px(540), (picker.overlay ? picker.overlay.width : Theme.px(540)) - 2 * Theme.spacingS)
        height: Math.min(implicitHeight, (picker.overlay ? picker.overlay.height : implicitHeight) - picker.height - 3 * Theme.spacingS)
        margins: Theme.spacingS
        padding: Theme.spacingS
        focus: true
        modal: false
        closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutsideParent
        background: Rectangle {
            color: Theme.window
            border.color: Theme.border
            radius: Theme.radiusM
        }
        contentItem: ColumnLayout {  // qmllint disable deferred-property-id
            id: popupColumn
            spacing: Theme.spacingS
            Label {
                id: noticeLabel
                visible: picker.notice.length > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: Theme.warning
                text: picker.notice
            }
            ListView {
                id: list
                objectName: "modelPickerList"
                visible: picker.view === "list"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.preferredHeight: Math.min(contentHeight, Theme.px(480))
                clip: true
                model: picker.rows
                keyNavigationEnabled: false
                Accessible.role: Accessible.List
                Accessible.name: qsTr("Models to load")
                Keys.onUpPressed: picker.move(-1)
                Keys.onDownPressed: picker.move(1)
                Keys.onTabPressed: picker.move(1)
                Keys.onBacktabPressed: picker.move(-1)
                Keys.onReturnPressed: picker.choose(currentIndex)
                Keys.onEnterPressed: picker.choose(currentIndex)
                ScrollBar.vertical: ScrollBar {}
                delegate: ModelPickerRow {
                    listView: list
                    owner: picker
                }
            }
            ScrollView {
                id: optionsScroll
                visible: picker.view === "options"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.preferredHeight: options.implicitHeight
                contentWidth: availableWidth
                ColumnLayout {
                    id: options
                    width: optionsScroll.availableWidth
                    spacing: Theme.spacingS
                    property string path
                    property var facts: ({})
                    // What these options take, recomputed as they change.
                    readonly property var estimate: options.path
                        ? Library.loadEstimate(options.path, ctxSpin.value, kvBox.currentText, gpuSpin.value) : ({})
                    // No load while a reply is written (Models refuses it).
                    readonly property bool canLoad: options.path.length > 0 && !options.estimate.error && !Chat.generating
                    Keys.onReturnPressed: picker.loadChosen()
                    Keys.onEnterPressed: picker.loadChosen()
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        font.bold: true
                        textFormat: Text.PlainText
                        text: qsTr("Load %1").arg(options.facts.name || "")
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.WrapAnywhere
                        font.pixelSize: Theme.smallSize
                        color: Theme.textMuted
                        textFormat: Text.PlainText
                        text: (options.facts.path || "") + "  ·  " + (options.facts.size_text || "")
                    }
                    GridLayout {
                        columns: 2
                        Layout.fillWidth: true
                        columnSpacing: Theme.spacingS
                        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("Context (tokens)") }
                        SpinBox {
                            id: ctxSpin
                            objectName: "pickerContext"
                            from: 64
                            to: options.facts.n_ctx_train > 0 ? options.facts.n_ctx_train : 1048576
                            stepSize: 256
                            editable: true
                            Accessible.name: qsTr("Context length in tokens")
                        }
                        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("KV type") }
                        ComboBox {
                            id: kvBox
                            objectName: "pickerKvType"
                            model: Library.kvTypes
                            Accessible.name: qsTr("KV type")
                        }
                        Label { visible: gpuSpin.visible; Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("GPU layers") }
                        SpinBox {
                            id: gpuSpin
                            objectName: "pickerGpuLayers"
                            visible: picker.gpuAvailable
                            from: -1
                            to: Math.max(0, options.facts.n_layers || 1024)
                            editable: true
                            textFromValue: (v) => v < 0 ? qsTr("auto") : String(v)
                            valueFromText: (t) => /^[0-9]+$/.test(t.trim()) ? parseInt(t) : -1
                            Accessible.name: qsTr("GPU layers (auto: as many as fit)")
                        }
                        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("When the context is full") }
                        ComboBox {
                            id: policyBox
                            objectName: "pickerPolicy"
                            Layout.fillWidth: true
                            readonly property var ids: ["drop-oldest", "shift", "sink-window", "stop"]
                            model: [qsTr("drop the oldest turns"), qsTr("shift out the oldest half"), qsTr("keep the start and the latest (attention sinks)"), qsTr("stop and ask")]
                            Accessible.name: qsTr("When the context is full")
                        }
                    }
                    Label {
                        objectName: "pickerEstimate"
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        textFormat: Text.PlainText
                        color: options.estimate.fits ? Theme.success : options.estimate.error ? Theme.error : Theme.warning
                        text: options.estimate.fit_text || ""
                    }
                    Label {
                        visible: !options.estimate.error && options.estimate.n_layers > 0
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        font.pixelSize: Theme.smallSize
                        color: Theme.textMuted
                        text: qsTr("KV cache = 2 (keys and values) × %1 layers × %2 tokens × %3 KV heads × %4 values per head, in %5: %6")
                            .arg(Theme.num(options.estimate.n_layers)).arg(Theme.num(options.estimate.n_ctx))
                            .arg(Theme.num(options.estimate.n_kv_heads)).arg(Theme.num(options.estimate.head_dim))
                            .arg(options.estimate.kv_type || "").arg(Chat.formatBytes(options.estimate.kv_bytes))
                    }
                    RowLayout {
                        Button {
                            objectName: "pickerLoad"
                            text: qsTr("Load")
                            enabled: options.canLoad
                            Keys.onReturnPressed: picker.loadChosen()
                            Keys.onEnterPressed: picker.loadChosen()
                            onClicked: picker.loadChosen()
                        }
                        Button {
                            text: qsTr("Back")
                            Keys.onReturnPressed: clicked()
                            Keys.onEnterPressed: clicked()
                            onClicked: picker.openList(false)
                        }
                    }
                }
            }
        }
    }
}
