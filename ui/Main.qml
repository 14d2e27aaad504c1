// The main window: conversations | chat | KV memory panel.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs

ApplicationWindow {
    id: window
    width: 1280
    height: 800
    visible: true
    title: chat.modelInfo.name ? "kvchat — " + chat.modelInfo.name : "kvchat"

    // Light/dark: main.cpp resolves "system" from the platform palette.
    readonly property bool dark: themeName === "dark"
    palette.window: dark ? "#2b2d30" : (themeName === "light" ? "#efefef" : undefined)
    palette.windowText: dark ? "#e6e6e6" : (themeName === "light" ? "#1a1a1a" : undefined)
    palette.base: dark ? "#1f2022" : (themeName === "light" ? "#ffffff" : undefined)
    palette.alternateBase: dark ? "#333538" : (themeName === "light" ? "#f5f5f5" : undefined)
    palette.text: dark ? "#e6e6e6" : (themeName === "light" ? "#1a1a1a" : undefined)
    palette.button: dark ? "#3a3c40" : (themeName === "light" ? "#e8e8e8" : undefined)
    palette.buttonText: dark ? "#e6e6e6" : (themeName === "light" ? "#1a1a1a" : undefined)
    palette.highlight: dark ? "#3d7ad6" : (themeName === "light" ? "#308cc6" : undefined)
    palette.placeholderText: dark ? "#9a9a9a" : (themeName === "light" ? "#808080" : undefined)

    Shortcut { sequence: "Ctrl+N"; onActivated: chat.newConversation() }
    Shortcut { sequence: "Esc"; onActivated: chat.stop() }
    Shortcut { sequence: "Ctrl+F"; onActivated: sidebar.focusSearch() }
    Shortcut { sequence: "Ctrl+O"; onActivated: openDialog.open() }
    Shortcut { sequence: "Ctrl+D"; onActivated: documentDialog.open() }
    // The Models page: find, check the fit of, and download models (issue 15).
    Shortcut { sequence: "Ctrl+Shift+M"; onActivated: modelsPage.opened ? modelsPage.close() : modelsPage.open() }
    // Send the previewed document whole (when it fits) or summarize it; resume the job shown.
    Shortcut { sequence: "Ctrl+Shift+W"; onActivated: chat.documents.sendWhole() }
    Shortcut { sequence: "Ctrl+Shift+S"; onActivated: chat.documents.summarize() }
    Shortcut { sequence: "Ctrl+Shift+R"; onActivated: chat.documents.resume() }

    // Window geometry is remembered between runs.
    Component.onCompleted: {
        var g = chat.uiSetting("geometry", null)
        if (g) { x = g.x; y = g.y; width = g.width; height = g.height }
        var p = chat.uiSetting("panes", null)
        if (p) { sidebar.SplitView.preferredWidth = p.sidebar; memoryPanel.SplitView.preferredWidth = p.memory; panelToggle.checked = p.memoryVisible }
        if (!chat.uiSetting("welcome_seen", false)) welcome.open()
    }
    onClosing: {
        chat.setUiSetting("geometry", { "x": x, "y": y, "width": width, "height": height })
        chat.setUiSetting("panes", { "sidebar": sidebar.width, "memory": memoryPanel.width, "memoryVisible": panelToggle.checked })
    }

    FileDialog {
        id: openDialog
        title: qsTr("Open a GGUF model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: chat.loadModel(selectedFile)
    }
    FileDialog {
        id: documentDialog
        title: qsTr("Attach a document")
        nameFilters: [qsTr("Documents (*.txt *.md *.markdown *.pdf)"), qsTr("All files (*)")]
        onAccepted: chat.documents.attach(selectedFile)
    }
    SettingsDrawer { id: settings; height: window.height }
    ModelsPage { id: modelsPage }
    // First run: over the top of the chat, without taking the focus from the message box.
    Welcome {
        id: welcome
        parent: chatView
        x: Math.max(12, (chatView.width - width) / 2)
        y: 12
        width: Math.min(560, chatView.width - 24)
    }
    // The first message sent is as good as "Start": the welcome steps aside for the reply.
    Connections {
        target: chat
        function onGeneratingChanged() { if (chat.generating && welcome.opened) welcome.dismiss() }
    }

    // Errors the controller reports (a chat template that does not parse, a store error):
    // shown whole. A model that cannot be opened is shown by the chat view's banner.
    Dialog {
        id: errorDialog
        objectName: "errorDialog"
        title: qsTr("kvchat")
        standardButtons: Dialog.Ok
        anchors.centerIn: Overlay.overlay
        width: Math.min(window.width - 80, 640)
        property string message: ""
        Label {
            objectName: "errorDialogText"
            width: errorDialog.availableWidth
            wrapMode: Text.Wrap
            text: errorDialog.message
        }
    }
    Connections {
        target: chat
        function onErrorOccurred(message) { errorDialog.message = message; errorDialog.open() }
    }

    Dialog {
        id: infoDialog
        title: qsTr("Model")
        standardButtons: Dialog.Close
        anchors.centerIn: Overlay.overlay
        property var i: chat.modelInfo
        GridLayout {
            columns: 2
            columnSpacing: 12
            Label { text: qsTr("file") } Label { text: (infoDialog.i.path || "") + " (" + chat.formatBytes(infoDialog.i.file_bytes) + ")" }
            Label { text: qsTr("architecture") } Label { text: (infoDialog.i.architecture || "") + qsTr(", tokenizer ") + (infoDialog.i.tokenizer_model || "") }
            Label { text: qsTr("chat format") } Label { Layout.maximumWidth: 560; wrapMode: Text.Wrap; text: infoDialog.i.chat_format_description || "" }
            Label { text: qsTr("parameters") } Label { text: Number(infoDialog.i.n_params || 0).toLocaleString(Qt.locale(), 'f', 0) }
            Label { text: qsTr("shape") } Label { text: qsTr("%1 layers, dim %2, %3 heads / %4 KV heads × %5, FFN %6, vocab %7")
                .arg(infoDialog.i.n_layers).arg(infoDialog.i.n_embd).arg(infoDialog.i.n_heads).arg(infoDialog.i.n_kv_heads)
                .arg(infoDialog.i.head_dim).arg(infoDialog.i.n_ff).arg(infoDialog.i.n_vocab) }
            Label { text: qsTr("details") } Label { text: qsTr("RoPE %1 (scaling %2), FFN %3").arg(infoDialog.i.rope_style || "").arg(infoDialog.i.rope_scaling || "none").arg(infoDialog.i.ffn_activation || "")
                + (infoDialog.i.attn_softcap > 0 ? qsTr(", score soft-cap %1").arg(infoDialog.i.attn_softcap) : "")
                + (infoDialog.i.final_softcap > 0 ? qsTr(", logit soft-cap %1").arg(infoDialog.i.final_softcap) : "")
                + (infoDialog.i.n_windowed_layers > 0 ? qsTr(", %1 of %2 layers use a %3-token window").arg(infoDialog.i.n_windowed_layers).arg(infoDialog.i.n_layers).arg(infoDialog.i.sliding_window) : "") }
            Label { text: qsTr("context") } Label { text: qsTr("%1 tokens trained, %2 in use").arg(infoDialog.i.n_ctx_train).arg(infoDialog.i.n_ctx) }
            Label { text: qsTr("tensor types") } Label { text: JSON.stringify(infoDialog.i.tensor_count_by_type || {}) }
            Label { text: qsTr("weights") } Label { text: chat.formatBytes(infoDialog.i.weight_bytes) }
            Label { text: qsTr("engine") } Label { text: (infoDialog.i.backend || "") + ", KV " + (infoDialog.i.kv_type || "") + ", policy " + (infoDialog.i.context_policy || "") }
        }
    }

    // Drop a .gguf anywhere on the window to open it; any other file is attached as a
    // document (text, Markdown, PDF) and its cost previewed.
    DropArea {
        anchors.fill: parent
        keys: ["text/uri-list"]
        onDropped: (drop) => {
            if (!drop.hasUrls) return
            var url = drop.urls[0].toString()
            if (/\.gguf$/i.test(url)) chat.loadModel(url)
            else chat.documents.attach(url)
        }
    }

    SplitView {
        anchors.fill: parent
        orientation: Qt.Horizontal

        Sidebar {
            id: sidebar
            SplitView.preferredWidth: 240
            SplitView.minimumWidth: 160
        }
        ChatView {
            id: chatView
            onAttachRequested: documentDialog.open()
            SplitView.fillWidth: true
            SplitView.minimumWidth: 360
        }
        MemoryPanel {
            id: memoryPanel
            visible: panelToggle.checked
            SplitView.preferredWidth: 400
            SplitView.minimumWidth: 300
        }
    }

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 8
            anchors.rightMargin: 8
            Label {
                text: chat.modelLoading ? qsTr("Loading model… %1%").arg(Math.round(100 * chat.loadProgress))
                    : chat.modelInfo.name ? chat.modelInfo.name + "  ·  " + chat.formatBytes(chat.modelInfo.file_bytes)
                        + "  ·  " + (chat.modelInfo.backend || "cpu")
                    : qsTr("No model")
                elide: Label.ElideRight
                Layout.fillWidth: true
            }
            ProgressBar {
                visible: chat.modelLoading
                from: 0; to: 1; value: chat.loadProgress
                Layout.preferredWidth: 160
            }
            ToolButton {
                visible: chat.modelLoading
                text: qsTr("Cancel")
                onClicked: chat.cancelLoad()
            }
            Label {
                visible: chat.modelInfo.is_demo === true
                text: qsTr("Tiny demo model (2.8M parameters, King James Bible): it continues scripture, it does not answer. Open a real GGUF to chat.")
                color: "#b36b00"
                elide: Label.ElideRight
                Layout.maximumWidth: 520
            }
            ToolButton {
                text: qsTr("Model info")
                enabled: chat.modelInfo.name !== undefined
                onClicked: infoDialog.open()
            }
            ToolButton {
                text: qsTr("Open model…")
                onClicked: openDialog.open()
            }
            ToolButton {
                text: qsTr("Models…")
                onClicked: modelsPage.open()
            }
            ToolButton {
                text: qsTr("Recent")
                enabled: chat.recentModels.length > 0
                onClicked: recentMenu.open()
                Menu {
                    id: recentMenu
                    Repeater {
                        model: chat.recentModels
                        MenuItem { text: modelData; onTriggered: chat.loadModel(modelData) }
                    }
                }
            }
            ToolButton {
                text: qsTr("Settings")
                onClicked: settings.open()
            }
            ToolButton {
                id: panelToggle
                text: qsTr("Memory")
                checkable: true
                checked: true
            }
        }
    }

    footer: Label {
        padding: 4
        text: chat.modelError ? qsTr("Model error: ") + chat.modelError
            : storeError ? qsTr("Database error: ") + storeError
            : chat.saveError ? qsTr("Not saved: ") + chat.saveError
            : chat.lastEvent
        color: chat.modelError || storeError || chat.saveError ? "#c0392b" : palette.windowText
        elide: Label.ElideRight
    }
}
