// The Models page (issue 15): the curated catalog and a search of the Hugging Face Hub
// for GGUF repositories; for each file of the chosen repository "Will it fit?" — weights
// + KV cache at the chosen context and KV type against this machine's free memory, read
// from the file's header before a byte of its weights is downloaded — and its download
// (progress, speed, time left, pause / resume / cancel). A finished download opens like
// any other model. Ctrl+Shift+M opens and closes it; Enter searches; Ctrl+Shift+D downloads
// the selected file.
// Every text from the Hub or a file (ids, file names, model and architecture names, error
// messages) is shown with textFormat: Text.PlainText: QML's default AutoText would render
// "<b>" or "<img src=...>" in a repository's answer as markup (tests/hub/test_qml_plain_text).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Popup {
    id: page
    objectName: "modelsPage"
    modal: true
    focus: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(parent ? parent.width - 40 : 1100, 1200)
    height: parent ? parent.height - 40 : 760
    closePolicy: Popup.CloseOnEscape

    property var hub: ModelHub
    HubListHeader { id: hubListHeader }  // the header of the Hub list
    property int selectedFile: 0

    onOpened: page.focusTab()
    function focusTab() {
        if (tabs.currentIndex === 1) { Library.refresh(); library.focusList() }
        else if (tabs.currentIndex === 2) remoteModels.focusForm()
        else searchField.forceActiveFocus()
    }

    function kvTypes() { return ["f16", "q8_0", "q4_0", "q8_0r", "q4_0r", "f32"] }
    function duration(s) {
        if (s === undefined || s < 0) return "–"
        if (s < 90) return qsTr("%1 s").arg(Math.round(s))
        if (s < 5400) return qsTr("%1 min").arg(Math.round(s / 60))
        return qsTr("%1 h").arg((s / 3600).toFixed(1))
    }
    function fitSummary(f) {
        if (f.fit_state === "reading") return qsTr("Reading its header…")
        if (f.fit_state === "estimate") return catalogFitSummary(f.fit)
        if (f.fit_state === "error") return qsTr("Fit unknown: %1").arg(f.fit_error)
        if (f.fit_state !== "done") return ""
        var x = f.fit
        if (!x.runnable) return qsTr("kvchat cannot run it: %1").arg(x.why_not)
        if (!x.fits && x.max_ctx === 0)
            return qsTr("Does not fit: the weights alone need %1, %2 free").arg(hub.formatBytes(x.weights_bytes)).arg(hub.formatBytes(x.free_bytes))
        return (x.fits ? qsTr("Fits") : qsTr("Does not fit at this context"))
            + qsTr(": %1 weights + %2 KV at %3 tokens (%4) of %5 free; the longest context that fits: %6 tokens; %7 such conversations side by side")
                .arg(hub.formatBytes(x.weights_bytes)).arg(hub.formatBytes(x.kv_bytes))
                .arg(Number(x.n_ctx).toLocaleString(Qt.locale(), 'f', 0)).arg(x.kv_type)
                .arg(hub.formatBytes(x.free_bytes))
                .arg(Number(x.max_ctx_capped).toLocaleString(Qt.locale(), 'f', 0))
                .arg(Theme.num(x.concurrent_conversations))
            + (x.ctx_cut_to_trained
               ? qsTr(" (%1 tokens is the context it was trained on, used instead of the %2 asked for)")
                   .arg(Number(x.n_ctx).toLocaleString(Qt.locale(), 'f', 0))
                   .arg(Number(x.requested_ctx).toLocaleString(Qt.locale(), 'f', 0)) : "")
    }
    // A catalog file's fit without the Hub (ModelHub.filesMessage says why): its size alone.
    function catalogFitSummary(x) {
        return x.fits
            ? qsTr("From the catalog: the file alone (%1) fits in the %2 free; the KV cache is counted once its header can be read")
                .arg(hub.formatBytes(x.weights_bytes)).arg(hub.formatBytes(x.free_bytes))
            : qsTr("From the catalog: the file alone (%1) does not fit in the %2 free")
                .arg(hub.formatBytes(x.weights_bytes)).arg(hub.formatBytes(x.free_bytes))
    }
    // The download bars as shown (for the end-to-end test): each one's status, filled
    // fraction and fill colour.
    function downloadBars() {
        var out = []
        for (var i = 0; i < downloadRows.count; ++i) {
            var row = downloadRows.itemAt(i)
            if (!row) continue
            out.push({ "status": page.hub.downloads[i].status, "position": row.bar.position,
                       "fill": String(row.bar.palette.highlight), "accent": String(Theme.accent),
                       "accessible_name": row.bar.Accessible.name })
        }
        return out
    }
    function downloadSelected() {
        var files = hub.files
        if (selectedFile >= 0 && selectedFile < files.length) hub.download(files[selectedFile].path)
    }

    Shortcut { sequence: "Ctrl+Shift+D"; enabled: page.opened; onActivated: page.downloadSelected() }
    // The tabs: Hub (search, fit, downloads), My models (the files on disk) and Remote (models
    // served elsewhere).
    Shortcut { sequence: "Ctrl+PgDown"; enabled: page.opened; onActivated: tabs.currentIndex = (tabs.currentIndex + 1) % tabs.count }
    Shortcut { sequence: "Ctrl+PgUp"; enabled: page.opened; onActivated: tabs.currentIndex = (tabs.currentIndex + tabs.count - 1) % tabs.count }
    // For the UI state file: which tab, and My models' confirmation.
    function libraryState() {
        var s = library.confirmState()
        s.tab = tabs.currentIndex
        return s
    }
    function remoteState() {
        var s = remoteModels.testState()
        s.open = page.opened
        s.tab = tabs.currentIndex
        return s
    }

    // A search that finds something shows the files of its first repository.
    Connections {
        target: page.hub
        function onSearchChanged() {
            if (!page.hub.searching && page.hub.searchResults.length > 0) {
                var first = page.hub.searchResults[0].id
                var shown = false
                for (var i = 0; i < page.hub.searchResults.length; ++i)
                    if (page.hub.searchResults[i].id === page.hub.currentRepo) shown = true
                if (!shown) { page.selectedFile = 0; page.hub.openRepo(first) }
            }
        }
    }

    contentItem: ColumnLayout {  // qmllint disable deferred-property-id
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Models"); font.bold: true; font.pixelSize: Theme.headingSize }
            Label { text: qsTr("Hub") }
            TextField {
                id: endpointField
                Layout.preferredWidth: 300
                text: page.hub.endpoint
                placeholderText: "https://huggingface.co"
                onAccepted: page.hub.setEndpoint(text)
                ToolTip.visible: hovered
                ToolTip.text: qsTr("The Hub's address (from %1). Empty: HF_ENDPOINT, else https://huggingface.co; plain http only to this computer. Enter saves it.")
                    .arg(page.hub.endpointSource)
            }
            Label {
                Layout.fillWidth: true
                elide: Label.ElideRight
                opacity: 0.7
                textFormat: Text.PlainText
                text: qsTr("models go to %1").arg(page.hub.modelsDir)
            }
            ToolButton { text: qsTr("Close"); onClicked: page.close() }
        }
        TabBar {
            id: tabs
            Layout.fillWidth: true
            onCurrentIndexChanged: page.focusTab()
            TabButton { text: qsTr("Hub"); width: implicitWidth }
            TabButton {
                text: qsTr("My models")
                width: implicitWidth
                ToolTip.visible: hovered
                ToolTip.text: qsTr("The model files on this computer (Ctrl+PgDown / Ctrl+PgUp switch tabs)")
            }
            TabButton {
                text: qsTr("Remote")
                width: implicitWidth
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Models served elsewhere through the OpenAI API: vLLM, llama.cpp's server, Ollama, LM Studio, another kvchat")
            }
        }
        Label {
            objectName: "modelsOfflineNotice"
            visible: page.hub.offlineNotice.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: "#b36b00"
            textFormat: Text.PlainText
            text: page.hub.offlineNotice
        }
        Label {
            visible: page.hub.message.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: "#c0392b"
            textFormat: Text.PlainText
            text: page.hub.message
        }
        // What "fit" means here: the context and KV type, against the free memory.
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Will it fit? Context") }
            SpinBox {
                id: ctxBox
                from: 256; to: 1048576; stepSize: 1024; editable: true
                value: page.hub.fitContext
                onValueModified: page.hub.setFitOptions(value, kvBox.currentText)
            }
            Label { text: qsTr("KV type") }
            ComboBox {
                id: kvBox
                model: page.kvTypes()
                currentIndex: Math.max(0, page.kvTypes().indexOf(page.hub.fitKvType))
                onActivated: page.hub.setFitOptions(ctxBox.value, currentText)
            }
            Label {
                Layout.fillWidth: true
                text: page.hub.freeMemoryIsGpu
                      ? qsTr("free GPU memory now: %1").arg(page.hub.formatBytes(page.hub.freeMemoryBytes))
                      : qsTr("free memory now: %1").arg(page.hub.formatBytes(page.hub.freeMemoryBytes))
            }
            TextField {
                id: tokenField
                Layout.preferredWidth: 220
                echoMode: TextInput.Password
                placeholderText: page.hub.hasToken ? qsTr("access token set") : qsTr("access token (gated models)")
                onAccepted: { page.hub.setAccessToken(text); text = "" }
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Kept in memory only, never saved nor logged; HF_TOKEN is read at start.")
            }
        }
        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex
            SplitView {
                orientation: Qt.Horizontal
                // Left: search and catalog.
                ColumnLayout {
                    SplitView.preferredWidth: 380
                    TextField {
                        id: searchField
                        objectName: "modelsSearch"
                        Layout.fillWidth: true
                        placeholderText: qsTr("Search the Hub for GGUF models (Enter)")
                        onAccepted: page.hub.search(text)
                    }
                    BusyIndicator { visible: page.hub.searching; running: visible; Layout.preferredHeight: 24 }
                    ListView {
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        clip: true
                        model: page.hub.searchResults.length > 0 ? page.hub.searchResults : page.hub.catalog
                        header: hubListHeader.component  // (not inline: see HubListHeader.qml)
                        delegate: ItemDelegate {
                            id: resultItem
                            required property var modelData
                            width: ListView.view.width
                            highlighted: (resultItem.modelData.repo || resultItem.modelData.id) === page.hub.currentRepo
                            contentItem: Label {
                                text: resultItem.text
                                textFormat: Text.PlainText
                                elide: Text.ElideRight
                                color: resultItem.highlighted ? resultItem.palette.highlightedText : resultItem.palette.text
                            }
                            text: resultItem.modelData.name
                                ? resultItem.modelData.name + " — " + resultItem.modelData.architecture + ", " + resultItem.modelData.license
                                  + "\n" + resultItem.modelData.repo
                                  + (resultItem.modelData.size_text ? "  ·  " + resultItem.modelData.size_text : "")
                                : resultItem.modelData.id + (resultItem.modelData.gated ? qsTr(" (gated: needs a token)") : "")
                                  + "\n" + qsTr("%1 downloads").arg(Number(resultItem.modelData.downloads).toLocaleString(Qt.locale(), 'f', 0))
                            onClicked: { page.selectedFile = 0; page.hub.openRepo(resultItem.modelData.repo || resultItem.modelData.id) }
                        }
                    }
                }
                // Right: the repository's GGUF files, each with its fit, and the downloads.
                ColumnLayout {
                    SplitView.fillWidth: true
                    Label {
                        font.bold: true
                        textFormat: Text.PlainText
                        text: page.hub.currentRepo ? page.hub.currentRepo : qsTr("Choose a model on the left")
                    }
                    BusyIndicator { visible: page.hub.listing; running: visible; Layout.preferredHeight: 24 }
                    // The Hub could not list the files (offline): why, what is shown instead.
                    RowLayout {
                        Layout.fillWidth: true
                        visible: page.hub.filesMessage.length > 0
                        Label {
                            objectName: "modelsFilesMessage"
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            color: "#b36b00"
                            textFormat: Text.PlainText
                            text: page.hub.filesMessage
                        }
                        Button {
                            objectName: "modelsRetryFiles"
                            text: qsTr("Try again")
                            onClicked: page.hub.openRepo(page.hub.currentRepo)
                        }
                    }
                    ListView {
                        id: fileList
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        clip: true
                        spacing: 4
                        model: page.hub.files
                        delegate: Frame {
                            id: fileRow
                            required property var modelData
                            required property int index
                            width: ListView.view.width
                            background: Rectangle {
                                color: fileRow.index === page.selectedFile ? Qt.rgba(0.19, 0.55, 0.78, 0.12) : "transparent"
                                border.color: Qt.rgba(0.5, 0.5, 0.5, 0.4)
                                radius: 4
                            }
                            TapHandler { onTapped: page.selectedFile = fileRow.index }
                            RowLayout {
                                width: parent.width
                                ColumnLayout {
                                    Layout.fillWidth: true
                                    Label {
                                        textFormat: Text.PlainText
                                        text: fileRow.modelData.path + "  ·  " + (fileRow.modelData.size_approx ? "≈ " : "")
                                              + page.hub.formatBytes(fileRow.modelData.size)
                                        font.bold: true
                                        elide: Label.ElideMiddle
                                        Layout.fillWidth: true
                                    }
                                    Label {
                                        Layout.fillWidth: true
                                        wrapMode: Text.Wrap
                                        visible: fileRow.modelData.fit_state === "done"
                                        opacity: 0.8
                                        textFormat: Text.PlainText
                                        text: fileRow.modelData.fit.architecture
                                            ? qsTr("%1, %2 layers, %3 KV heads × %4, trained on %5 tokens; tensors: %6")
                                                .arg(fileRow.modelData.fit.architecture).arg(Theme.num(fileRow.modelData.fit.n_layers))
                                                .arg(Theme.num(fileRow.modelData.fit.n_kv_heads)).arg(Theme.num(fileRow.modelData.fit.head_dim))
                                                .arg(Theme.num(fileRow.modelData.fit.n_ctx_train)).arg(fileRow.modelData.fit.tensor_types_text)
                                            : ""
                                    }
                                    Label {
                                        Layout.fillWidth: true
                                        wrapMode: Text.Wrap
                                        color: fileRow.modelData.fit_state === "done" && fileRow.modelData.fit.runnable && fileRow.modelData.fit.fits ? "#2e7d32" : "#b36b00"
                                        textFormat: Text.PlainText
                                        text: page.fitSummary(fileRow.modelData)
                                    }
                                }
                                Button {
                                    text: qsTr("Will it fit?")
                                    onClicked: page.hub.checkFit(fileRow.modelData.path)
                                }
                                Button {
                                    text: fileRow.modelData.downloaded ? qsTr("Downloaded") : qsTr("Download")
                                    enabled: !fileRow.modelData.downloaded && fileRow.modelData.sha256.length === 64
                                    onClicked: { page.selectedFile = fileRow.index; page.hub.download(fileRow.modelData.path) }
                                    ToolTip.visible: hovered
                                    ToolTip.text: qsTr("Ctrl+Shift+D downloads the selected file")
                                }
                            }
                        }
                    }
                    Label {
                        visible: page.hub.downloads.length > 0
                        font.bold: true
                        text: qsTr("Downloads")
                    }
                    Repeater {
                        id: downloadRows
                        model: page.hub.downloads
                        delegate: RowLayout {
                            id: downloadRow
                            required property var modelData
                            // What the bar shows (for downloadBars()).
                            readonly property var bar: downloadBar
                            Layout.fillWidth: true
                            Label {
                                Layout.preferredWidth: 260
                                elide: Label.ElideMiddle
                                textFormat: Text.PlainText
                                text: downloadRow.modelData.file || ""
                            }
                            // Filled in the accent colour (the window's highlight is the pale
                            // selection tint: a full bar in it looked empty); full once done.
                            ProgressBar {
                                id: downloadBar
                                objectName: "downloadBar"
                                palette.highlight: Theme.accent
                                Layout.fillWidth: true
                                from: 0; to: Math.max(1, downloadRow.modelData.total || 1)
                                value: downloadRow.modelData.status === "done" ? to : (downloadRow.modelData.done || 0)
                                Accessible.name: downloadRow.modelData.status === "done"
                                    ? qsTr("Download finished") : qsTr("Download progress")
                            }
                            Label {
                                Layout.preferredWidth: 320
                                elide: Label.ElideRight
                                textFormat: Text.PlainText
                                text: downloadRow.modelData.status === "running"
                                    ? qsTr("%1 of %2 · %3/s · %4 left").arg(page.hub.formatBytes(downloadRow.modelData.done || 0))
                                        .arg(page.hub.formatBytes(downloadRow.modelData.total || 0))
                                        .arg(downloadRow.modelData.speed > 0 ? page.hub.formatBytes(downloadRow.modelData.speed) : "–")
                                        .arg(page.duration(downloadRow.modelData.eta))
                                    : downloadRow.modelData.status === "done" ? qsTr("Downloaded, SHA-256 verified, opened")
                                    : (downloadRow.modelData.message || downloadRow.modelData.status)
                                // Not the attached ToolTip.text: its Text renders markup.
                                ToolTip {
                                    visible: hoverArea.hovered && (downloadRow.modelData.message || "").length > 0
                                    contentItem: Label {
                                        textFormat: Text.PlainText
                                        wrapMode: Text.Wrap
                                        text: downloadRow.modelData.message || ""
                                    }
                                }
                                HoverHandler { id: hoverArea }
                            }
                            Button {
                                visible: downloadRow.modelData.status === "running" || downloadRow.modelData.status === "waiting" || downloadRow.modelData.status === "verifying"
                                text: qsTr("Pause")
                                onClicked: page.hub.pause(downloadRow.modelData.id)
                            }
                            Button {
                                visible: downloadRow.modelData.status === "paused" || downloadRow.modelData.status === "failed"
                                text: qsTr("Resume")
                                onClicked: page.hub.resume(downloadRow.modelData.id)
                            }
                            Button {
                                visible: downloadRow.modelData.status !== "done"
                                text: qsTr("Cancel")
                                onClicked: page.hub.cancel(downloadRow.modelData.id)
                            }
                        }
                    }
                }
            }
            ModelLibrary {
                id: library
                objectName: "modelLibrary"
                page: page
            }
            RemoteModels { id: remoteModels }
        }
    }
}
