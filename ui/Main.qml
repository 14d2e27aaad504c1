// The main window: conversations | chat | KV memory panel. The panes adapt to the width:
// the side panes give way (at most about a quarter / a third of the window each), and under
// Theme.dockedMemoryMinWindowWidth the memory panel leaves its column for a drawer on the
// right (Ctrl+M or the Memory button). Keyboard: every control is on the Tab order.
import QtQml
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import kvchat

ApplicationWindow {
    id: window
    // The loaded model's figures, a JS object (read as var: qmllint types a QVariantMap's
    // keys as missing).
    readonly property var modelInfo: Models.modelInfo
    width: 1280
    height: 800
    minimumWidth: 640
    minimumHeight: 480
    visible: true
    title: window.modelInfo.display_name ? "kvchat — " + window.modelInfo.display_name : "kvchat"

    // Light/dark: main.cpp resolves "system" from the platform palette; the colours, type
    // sizes and spacing are Theme's (ui/Theme.qml).
    Binding { target: Theme; property: "dark"; value: WindowTheme.name === "dark" }
    font.pixelSize: Theme.fontSize
    color: Theme.window
    palette.window: Theme.window
    palette.windowText: Theme.text
    palette.base: Theme.surface
    palette.alternateBase: Theme.surfaceAlt
    palette.text: Theme.text
    palette.button: Theme.raised
    palette.buttonText: Theme.text
    // Selections and the current list entry: a tint that keeps the text colour readable.
    palette.highlight: Theme.selection
    palette.highlightedText: Theme.text
    palette.placeholderText: Theme.placeholder
    palette.link: Theme.link
    palette.mid: Theme.border
    // The roles Qt Quick Dialogs' own file dialog draws with (its path field and rows are
    // palette.light): without them the platform's light ones show in the dark theme.
    palette.light: Theme.surface
    palette.midlight: Theme.surfaceAlt
    palette.dark: Theme.fieldBorder
    palette.toolTipBase: Theme.raised
    palette.toolTipText: Theme.text

    // The layout: narrow windows take the memory panel as a drawer; the header's buttons
    // keep their words only while there is room for them (at the zoomed type size).
    readonly property bool roomyHeader: width >= Theme.px(1000)
    readonly property bool narrow: width < Theme.dockedMemoryMinWindowWidth
    // The header's demo notice (issue 43 point 10): never cut. Whole, wrapped, where the
    // header has room for it in about two lines; else a short line (the whole notice in its
    // tooltip and atop the model picker's list).
    readonly property string demoNoticeText: qsTr("Tiny demo model (2.8M parameters, King James Bible): it continues scripture, it does not answer. Open a real GGUF to chat.")
    TextMetrics { id: demoNoticeMetrics; font: demoNotice.font; text: window.demoNoticeText }
    readonly property real demoNoticeMinRoom: Math.max(Theme.px(280), Math.ceil(demoNoticeMetrics.advanceWidth / 2) + Theme.px(24))
    readonly property bool demoNoticeCompact: headerRoomForNotice() < demoNoticeMinRoom
    // The header row's width less what its other items take (the notice gives way first).
    function headerRoomForNotice() {
        var used = 0
        var shown = 0
        for (var i = 0; i < headerRow.children.length; ++i) {
            var c = headerRow.children[i]
            if (c === demoNotice || !c.visible) continue
            used += c.implicitWidth
            ++shown
        }
        return headerRow.width - used - shown * headerRow.spacing
    }
    // The memory panel's column is shown (wide windows; saved with the panes).
    property bool memoryDocked: true
    function toggleMemory() {
        if (narrow) memoryDrawer.visible ? memoryDrawer.close() : memoryDrawer.open()
        else memoryDocked = !memoryDocked
    }

    // A new chat takes what is typed next: the focus goes to its message box.
    Shortcut { sequence: "Ctrl+N"; onActivated: { Chat.newConversation(); chatView.focusInput() } }
    Shortcut { sequence: "Ctrl+Q"; context: Qt.ApplicationShortcut; onActivated: window.close() }
    Shortcut { sequences: ["Ctrl+=", "Ctrl++"]; onActivated: Theme.zoomIn() }
    Shortcut { sequence: "Ctrl+-"; onActivated: Theme.zoomOut() }
    Shortcut { sequence: "Ctrl+0"; onActivated: Theme.zoomReset() }
    Shortcut { sequence: "Ctrl+,"; onActivated: settings.opened ? settings.close() : settings.open() }
    Shortcut { sequence: "Ctrl+M"; onActivated: window.toggleMemory() }
    // Esc: an open "?" popup, else the open drawer (Settings, then memory), else what is running (chat.stop: the reply being written, a
    // summary job), else the first run's welcome (out of the Tab order: it never takes the
    // focus from the message box).
    Shortcut {
        sequence: "Esc"
        onActivated: {
            if (Theme.helpPopupsOpen > 0) Theme.closeHelpPopups()
            else if (settings.opened) settings.close()
            else if (memoryDrawer.visible) memoryDrawer.close()
            else if (!Chat.stop() && welcome.visible) welcome.dismiss()
        }
    }
    Shortcut { sequence: "Ctrl+F"; onActivated: sidebar.focusSearch() }
    // The model picker, on "Open file…" (Enter opens the file dialog; ↑ ↓ the models).
    Shortcut { sequence: "Ctrl+O"; onActivated: modelPicker.openList(true) }
    Shortcut { sequence: "Ctrl+D"; onActivated: documentDialog.open() }
    Shortcut { sequence: "Ctrl+T"; onActivated: chatView.openToolChoice() }
    // The Models page: find, check the fit of, and download models (issue 15).
    Shortcut { sequence: "Ctrl+Shift+M"; onActivated: modelsPage.opened ? modelsPage.close() : modelsPage.open() }
    // Send the previewed document whole (when it fits) or summarize it; resume the job shown.
    Shortcut { sequence: "Ctrl+Shift+W"; onActivated: Chat.documents.sendWhole() }
    Shortcut { sequence: "Ctrl+Shift+S"; onActivated: Chat.documents.summarize() }
    Shortcut { sequence: "Ctrl+Shift+R"; onActivated: Chat.documents.resume() }

    // Window geometry, panes and zoom are remembered between runs.
    Component.onCompleted: {
        var g = Chat.uiSetting("geometry", null)
        if (g) { x = g.x; y = g.y; width = g.width; height = g.height }
        var p = Chat.uiSetting("panes", null)
        if (p) { sidebar.SplitView.preferredWidth = p.sidebar; memoryDock.SplitView.preferredWidth = p.memory; memoryDocked = p.memoryVisible }
        Theme.zoom = Chat.uiSetting("zoom", 1.0)
        if (!Chat.uiSetting("welcome_seen", false)) welcome.open()
    }
    Connections {
        target: Theme
        function onZoomChanged() { Chat.setUiSetting("zoom", Theme.zoom) }
    }
    onClosing: {
        Chat.setUiSetting("geometry", { "x": x, "y": y, "width": width, "height": height })
        Chat.setUiSetting("panes", { "sidebar": sidebar.SplitView.preferredWidth, "memory": memoryDock.SplitView.preferredWidth, "memoryVisible": memoryDocked })
    }

    FileDialog {
        id: openDialog
        title: qsTr("Open a GGUF model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        // Its load options first, in the model picker (issue 43).
        onAccepted: modelPicker.showOptions(selectedFile)
    }
    FileDialog {
        id: documentDialog
        title: qsTr("Attach a document")
        nameFilters: [qsTr("Documents (*.txt *.md *.markdown *.pdf)"), qsTr("All files (*)")]
        onAccepted: Chat.documents.attach(selectedFile)
    }
    // Under the header: its buttons stay seen and usable while Settings is open.
    SettingsDrawer { id: settings; y: window.header ? window.header.height : 0; height: window.height - y }
    // A banner action (a failed load, a full context) opens the settings of that model.
    Connections {
        target: Chat
        function onSettingsRequested() { settings.open() }
        function onOpenModelRequested() { openDialog.open() }
        function onModelsPageRequested() { modelsPage.open() }
    }
    ModelsPage { id: modelsPage }
    // First run: over the top of the chat, without taking the focus from the message box.
    Welcome {
        id: welcome
        memoryIsDrawer: window.narrow
        parent: chatView
        x: Math.max(12, (chatView.width - width) / 2)
        y: 12
        width: Math.min(Theme.px(560), chatView.width - 24)
        height: Math.min(implicitHeight, chatView.composerTop - y - Theme.spacingS)
    }
    // The first message sent is as good as "Start": the welcome steps aside for the reply.
    Connections {
        target: Chat
        function onGeneratingChanged() { if (Chat.generating && welcome.opened) welcome.dismiss() }
    }

    // Errors the controller reports (a chat template that does not parse, a store error) are
    // shown once, in the chat view's message banner (NoticeBanner: not modal, so typing goes
    // on in the message box, dismissed with its ✕), never also in a dialog.

    Dialog {
        id: infoDialog
        title: qsTr("Model")
        standardButtons: Dialog.Close
        anchors.centerIn: Overlay.overlay
        property var i: Models.modelInfo
        GridLayout {
            columns: 2
            columnSpacing: 12
            Label { text: qsTr("file") } Label { textFormat: Text.PlainText; text: (infoDialog.i.path || "") + " (" + Chat.formatBytes(infoDialog.i.file_bytes) + ")" }
            Label { text: qsTr("architecture") } Label { textFormat: Text.PlainText; text: (infoDialog.i.architecture || "") + qsTr(", tokenizer ") + (infoDialog.i.tokenizer_model || "") }
            Label { text: qsTr("chat format") } Label { Layout.maximumWidth: 560; wrapMode: Text.Wrap; textFormat: Text.PlainText; text: infoDialog.i.chat_format_description || "" }
            Label { text: qsTr("parameters") } Label { text: Number(infoDialog.i.n_params || 0).toLocaleString(Qt.locale(), 'f', 0) }
            Label { text: qsTr("shape") } Label { text: qsTr("%1 layers, dim %2, %3 heads / %4 KV heads × %5, FFN %6, vocab %7")
                .arg(Theme.num(infoDialog.i.n_layers)).arg(Theme.num(infoDialog.i.n_embd)).arg(Theme.num(infoDialog.i.n_heads)).arg(Theme.num(infoDialog.i.n_kv_heads))
                .arg(Theme.num(infoDialog.i.head_dim)).arg(Theme.num(infoDialog.i.n_ff)).arg(Theme.num(infoDialog.i.n_vocab)) }
            Label { text: qsTr("details") } Label { text: qsTr("RoPE %1 (scaling %2), FFN %3").arg(infoDialog.i.rope_style || "").arg(infoDialog.i.rope_scaling || "none").arg(infoDialog.i.ffn_activation || "")
                + (infoDialog.i.attn_softcap > 0 ? qsTr(", score soft-cap %1").arg(infoDialog.i.attn_softcap) : "")
                + (infoDialog.i.final_softcap > 0 ? qsTr(", logit soft-cap %1").arg(infoDialog.i.final_softcap) : "")
                + (infoDialog.i.n_windowed_layers > 0 ? qsTr(", %1 of %2 layers use a %3-token window").arg(Theme.num(infoDialog.i.n_windowed_layers)).arg(Theme.num(infoDialog.i.n_layers)).arg(Theme.num(infoDialog.i.sliding_window)) : "") }
            Label { text: qsTr("context") } Label { text: qsTr("%1 tokens trained, %2 in use").arg(Theme.num(infoDialog.i.n_ctx_train)).arg(Theme.num(infoDialog.i.n_ctx)) }
            Label { text: qsTr("tensor types") } Label { Layout.maximumWidth: 560; wrapMode: Text.Wrap; text: infoDialog.i.tensor_types_text || "" }
            Label { text: qsTr("weights") } Label { text: Chat.formatBytes(infoDialog.i.weight_bytes) }
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
            if (/\.gguf$/i.test(url)) Models.loadModel(url)
            else Chat.documents.attach(url)
        }
    }

    SplitView {
        id: panes
        anchors.fill: parent
        orientation: Qt.Horizontal

        // The side panes keep their chosen width only while the chat keeps room: at most
        // about a quarter (conversations) and a third (memory) of the window.
        Sidebar {
            id: sidebar
            SplitView.preferredWidth: 240
            SplitView.minimumWidth: 160
            SplitView.maximumWidth: Math.max(160, window.width * 0.22)
        }
        ChatView {
            id: chatView
            onAttachRequested: documentDialog.open()
            onToolSettingsRequested: settings.openToolsSection()
            SplitView.fillWidth: true
            SplitView.minimumWidth: 360
        }
        Item {
            id: memoryDock
            visible: window.memoryDocked && !window.narrow
            SplitView.preferredWidth: 400
            SplitView.minimumWidth: 300
            SplitView.maximumWidth: Math.max(300, window.width * 0.32)
        }
    }
    // Narrow windows: the memory panel slides in from the right over the chat.
    Drawer {
        id: memoryDrawer
        objectName: "memoryDrawer"
        edge: Qt.RightEdge
        y: window.header ? window.header.height : 0
        width: Math.min(Theme.px(420), window.width * 0.85)
        height: window.height - y
        interactive: window.narrow
        // Not modal, and Escape is the window's (below): a popup that closes on Escape
        // blocks the window's shortcuts, and Ctrl+M must close it again.
        modal: false
        closePolicy: Popup.CloseOnPressOutside
        background: Rectangle {
            color: Theme.window
            Rectangle { width: 1; height: parent.height; color: Theme.border }
        }
        Item { id: memorySlot; anchors.fill: parent }
    }
    onNarrowChanged: if (!narrow) memoryDrawer.close()
    // One panel, in the column or in the drawer.
    MemoryPanel {
        id: memoryPanel
        objectName: "memoryPanel"
        parent: window.narrow ? memorySlot : memoryDock
        anchors.fill: parent
    }

    // What a panel does not fit (for the end-to-end tests): its visible items that end past
    // its right edge, and its labels cut with "…", each named by its text (10 at most).
    function overflowOf(root) {
        var out = { "past_edge": [], "elided": [] }
        function name(item) { return String(item.text !== undefined ? item.text : (item.objectName || item)).slice(0, 60) }
        function walk(item) {
            for (var i = 0; i < item.children.length && out.past_edge.length + out.elided.length < 20; ++i) {
                var c = item.children[i]
                if (!c.visible || c.width <= 0 || c.opacity === 0) continue
                var right = c.mapToItem(root, c.width, 0).x
                if (right > root.width + 1 && out.past_edge.length < 10) out.past_edge.push(name(c) + " @" + Math.round(right - root.width))
                if (c.truncated === true && out.elided.length < 10) out.elided.push(name(c))
                walk(c)
            }
        }
        if (root && root.visible) walk(root)
        return out
    }

    // The header as shown (for the end-to-end tests): each visible item's name, text, right
    // edge, and whether it is cut (a label elided, or an item squeezed under its own width).
    function headerState() {
        var items = []
        for (var i = 0; i < headerRow.children.length; ++i) {
            var c = headerRow.children[i]
            if (!c.visible || c.width <= 0) continue
            var cut = c.truncated === true || window.overflowOf(c).elided.length > 0
                || (c !== demoNotice && c.width + 1 < c.implicitWidth)
            items.push({ "name": c.objectName || ("item " + i), "text": String(c.text !== undefined ? c.text : ""),
                         "right": c.mapToItem(null, c.width, 0).x, "cut": cut })
        }
        return { "items": items, "height": headerBar.height }
    }

    // What the end-to-end tests read (only when KVCHAT_TEST_STATE_FILE is set): the layout,
    // the zoom, the focus and the Tab order (main.cpp adds the last two).
    Timer {
        running: UiTestState.enabled
        interval: 200
        repeat: true
        onTriggered: {
            var chatX = chatView.mapToItem(null, 0, 0).x
            var memoryX = memoryPanel.visible ? memoryPanel.mapToItem(null, 0, 0).x : -1
            var edit = chatView.editState()
            UiTestState.report({
                "window_width": window.width, "window_height": window.height,
                "sidebar_width": sidebar.width,
                "chat_x": chatX, "chat_width": chatView.width,
                "message_column_width": chatView.messageListWidth,
                // Whether the open conversation shows its newest message (its end).
                "message_list_at_end": chatView.messageListView.atYEnd,
                "message_list_count": chatView.messageListView.count,
                "message_list_content_y": chatView.messageListView.contentY,
                "message_list_content_height": chatView.messageListView.contentHeight,
                "message_list_height": chatView.messageListView.height,
                "line_max_width": Theme.lineMaxWidth,
                "memory_mode": window.narrow ? "drawer" : (window.memoryDocked ? "docked" : "hidden"),
                "memory_visible": memoryPanel.visible && (!window.narrow || memoryDrawer.position > 0.99),
                "memory_x": memoryX, "memory_width": memoryPanel.width,
                "zoom": Theme.zoom, "font_size": Theme.fontSize,
                "help_popups_open": Theme.helpPopupsOpen, "help_popup_bottom": Theme.helpPopupBottom,
                "dark": Theme.dark,
                "input_text": chatView.inputText,
                // The user message edited in place (-1: none), its edit field's text and cursor,
                // and whether it can be resent (not empty, no reply being written).
                "editing_row": chatView.editingRow,
                "edit_text": edit.text, "edit_cursor": edit.cursor, "edit_can_resend": edit.can_resend,
                "settings_open": settings.opened,
                // Tools: the message box's choice open, the call blocks shown.
                "tools_popup_open": chatView.toolChoiceOpen,
                "tool_blocks_shown": chatView.toolBlocksShown(),
                // The model picker: its button's text, where its list is drawn, the files it
                // lists (by file name) and their sections, the load options shown.
                "model_picker": modelPicker.testState(),
                // The header: each item's right edge and whether it is cut.
                "header": window.headerState(),
                "welcome_text": welcome.visible ? welcome.paragraphs.join("\n") : "",
                "settings_width": settings.width,
                // Settings' drawer, dimming and Apply bar against the header's bottom (issue 43).
                "settings_layout": settings.layoutState(), "header_bottom": window.header.mapToItem(null, 0, window.header.height).y,
                "overflow": {
                    "settings": settings.opened ? window.overflowOf(settings.contentItem) : null,
                    "memory": window.overflowOf(memoryPanel),
                    "sidebar": window.overflowOf(sidebar),
                    "header": window.overflowOf(headerBar.contentItem),
                    "picker": modelPicker.popupOpened ? window.overflowOf(modelPicker.popupContent) : null
                },
                // The header's last button: its right edge is inside the window (not cut).
                "header_right": panelToggle.mapToItem(null, panelToggle.width, 0).x,
                "conversation": Chat.currentConversationId,
                // The sidebar's search field, as shown.
                "sidebar_search_text": sidebar.searchText,
                // What the last message's bubble offers ("continue", "regenerate", ...).
                "last_bubble_actions": chatView.lastBubbleActions(),
                // The header's demo notice: its text, whether it is cut, its hover text.
                "demo_notice_visible": demoNotice.visible,
                "demo_notice_text": demoNotice.text,
                "demo_notice_elided": demoNotice.truncated,
                "demo_notice_compact": window.demoNoticeCompact,
                "demo_notice_tooltip": demoNotice.ToolTip.text,
                // The Models page's download bars: status, filled fraction, fill colour.
                "download_bars": modelsPage.downloadBars(),
                // The Models page's tab and My models' confirmation (issue 26).
                "model_library": modelsPage.libraryState(),
                "remote_models": modelsPage.remoteState(),
                // The memory panel's bar under "Machine:": its caption and accessible name.
                "machine_bar": memoryPanel.machineBarState(),
                // The status lines (issue 26 point 8): the footer, Settings' chat format,
                // the panel's last reply and context lines, and every text the panel shows.
                "status_line": statusLine.text,
                // The server indicator's words and the server view's texts (issue 43 point 4).
                "server_indicator": serverIndicator.text,
                "server_view": { "open": serverIndicator.view.opened,
                                 "texts": serverIndicator.view.opened ? memoryPanel.visibleTexts(serverIndicator.view.contentItem, []) : [] },
                // The context meter beside the message box (issue 43 point 1).
                "context_meter": chatView.contextMeterState(),
                "chat_format_line": settings.chatFormatLine,
                "panel_status": memoryPanel.statusTexts()
            }, chatView.inputItem)
        }
    }

    header: ToolBar {
        id: headerBar
        topPadding: Theme.spacingXs
        bottomPadding: Theme.spacingXs
        background: Rectangle {
            color: Theme.surfaceAlt
            Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.border }
        }
        RowLayout {
            id: headerRow
            anchors.fill: parent
            anchors.leftMargin: Theme.spacingS
            anchors.rightMargin: Theme.spacingS
            spacing: Theme.spacingXs
            // The loaded model's name, opening the models to load with their load options
            // (issue 43): never cut at the window's sizes, its details dropped first.
            ModelPicker {
                id: modelPicker
                compact: !window.roomyHeader
                nameMaxWidth: Math.max(Theme.px(120), window.width * 0.3)
                notice: demoNotice.visible && window.demoNoticeCompact ? window.demoNoticeText : ""
                onOpenFileRequested: openDialog.open()
            }
            ProgressBar {
                objectName: "loadProgress"
                palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
                visible: Models.modelLoading
                from: 0; to: 1; value: Models.loadProgress
                Layout.preferredWidth: 160
            }
            ToolButton {
                objectName: "cancelLoadButton"
                visible: Models.modelLoading
                text: qsTr("Cancel")
                onClicked: Models.cancelLoad()
            }
            Label {
                id: demoNotice
                objectName: "demoNotice"
                visible: window.modelInfo.is_demo === true
                // Whole and wrapped where the header has room for it in about two lines; else
                // a short line, the whole notice in its tooltip and atop the picker's list.
                ToolTip.visible: demoNoticeHover.hovered
                ToolTip.text: window.demoNoticeText
                ToolTip.delay: 300
                HoverHandler { id: demoNoticeHover }
                text: window.demoNoticeCompact ? qsTr("Demo model: it does not chat") : window.demoNoticeText
                color: Theme.warning
                wrapMode: Text.Wrap
                verticalAlignment: Text.AlignVCenter
                Layout.fillWidth: true
                Layout.maximumWidth: window.demoNoticeMinRoom
            }
            Item { Layout.fillWidth: true }  // the buttons to the right
            IconButton {
                objectName: "modelInfoButton"
                iconName: "info"
                text: qsTr("Model info")
                enabled: window.modelInfo.name !== undefined
                onClicked: infoDialog.open()
            }
            IconButton {
                objectName: "modelsButton"
                iconName: "models"
                text: qsTr("Models…")
                toolTip: qsTr("Find and download models, with “will it fit?” (Ctrl+Shift+M)")
                showText: window.roomyHeader
                onClicked: modelsPage.open()
            }
            ServerIndicator {
                id: serverIndicator
                showText: window.roomyHeader
                onSettingsRequested: settings.openServerSection()
            }
            IconButton {
                objectName: "settingsButton"
                iconName: "settings"
                text: qsTr("Settings")
                toolTip: qsTr("Settings (Ctrl+,)")
                onClicked: settings.open()
            }
            IconButton {
                id: panelToggle
                objectName: "memoryButton"
                iconName: "memory"
                text: qsTr("Memory")
                toolTip: qsTr("Memory panel (Ctrl+M)")
                showText: window.roomyHeader
                checked: window.narrow ? memoryDrawer.visible : window.memoryDocked
                onClicked: window.toggleMemory()
            }
        }
    }

    footer: Label {
        id: statusLine
        objectName: "statusLine"
        leftPadding: Theme.spacingM
        rightPadding: Theme.spacingM
        topPadding: Theme.spacingXs
        bottomPadding: Theme.spacingXs
        font.pixelSize: Theme.smallSize
        background: Rectangle {
            color: Theme.surfaceAlt
            Rectangle { width: parent.width; height: 1; color: Theme.border }
        }
        textFormat: Text.PlainText
        text: Models.modelError ? qsTr("Model error: ") + Models.modelError
            : Chat.storeError ? qsTr("Database error: ") + Chat.storeError
            : Chat.saveError ? qsTr("Not saved: ") + Chat.saveError
            : Chat.lastEvent
        color: Models.modelError || Chat.storeError || Chat.saveError ? Theme.error : Theme.textMuted
        elide: Label.ElideRight
    }
}
