// The open conversation: messages streaming in place, in a column capped at about 80
// characters (Theme.lineMaxWidth) and centred, and the message box: Enter sends,
// Shift+Enter is a newline, Tab / Shift+Tab leave the box (Ctrl+Tab types a tab), Up in
// the empty box edits the last user message (in place, in its bubble). Above
// the box: the message banner, a summary job, a loaded document's cost preview, and the
// offer to treat a long paste as a document.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Pane {
    id: root
    // The loaded model's figures, a JS object (read as var: qmllint types a QVariantMap's
    // keys as missing).
    readonly property var modelInfo: Models.modelInfo
    padding: 0
    signal attachRequested()
    signal toolSettingsRequested()  // the Tools button's "Settings → Tools…"
    function openToolChoice() { toolsButton.openChoice() }
    readonly property bool toolChoiceOpen: toolsButton.checked
    // The end-to-end tests: how many items named `name` are shown under `item`.
    function countShown(item, name) {
        var n = item.objectName === name && item.visible ? 1 : 0
        for (var i = 0; i < item.children.length; ++i) n += countShown(item.children[i], name)
        return n
    }
    function toolBlocksShown() { return countShown(messageList.contentItem, "toolCallBlock") }
    ReplyShortcuts {}
    // A paste (or drop of text) longer than this is offered as a document.
    readonly property int longPasteChars: 2000
    // The message column: the lines' cap plus the bubbles' own margins.
    readonly property int columnWidth: Math.min(width - 2 * Theme.spacingM, Theme.lineMaxWidth + 100)
    readonly property alias messageListWidth: messageList.width
    readonly property alias messageListView: messageList  // for the end-to-end tests' ui.json
    readonly property alias inputText: input.text
    // The context meter as shown: its line, its whole sentence, whether it is visible.
    function contextMeterState() {
        return { "text": contextMeterBar.text, "summary": contextMeterBar.summary,
                 "visible": contextMeterBar.visible, "level": Chat.contextMeter.level,
                 "sentence": Chat.contextMeter.sentence }
    }
    readonly property alias inputItem: input
    // The user message being edited in place (-1: none) and its edit field's text, cursor and
    // whether it can be resent, for the end-to-end tests' ui.json.
    readonly property alias editingRow: messageList.editingRow
    function editState() {
        var b = messageList.editingRow >= 0 ? messageList.itemAtIndex(messageList.editingRow) : null
        // (qmllint: itemAtIndex() gives an Item; the delegates are MessageBubbles)
        return b ? { "text": b.editText, "cursor": b.editCursor, "can_resend": b.canResend }  // qmllint disable type
                 : { "text": null, "cursor": null, "can_resend": null }
    }
    // Where the message box starts: what sits over the chat (the welcome) ends above it.
    readonly property real composerTop: composer.y
    function focusInput() { input.forceActiveFocus(Qt.ShortcutFocusReason) }
    function lastBubbleActions() {
        var bubble = messageList.count > 0 ? messageList.itemAtIndex(messageList.count - 1) : null
        return bubble ? bubble.offeredActions() : []  // qmllint disable type
    }

    background: Rectangle { color: Theme.surface }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        ListView {
            id: messageList
            objectName: "messageList"
            Layout.fillHeight: true
            Layout.preferredWidth: root.columnWidth
            Layout.alignment: Qt.AlignHCenter
            Layout.topMargin: Theme.spacingS
            clip: true
            spacing: Theme.spacingS
            model: Chat.messages
            activeFocusOnTab: true
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Messages")
            // Keyboard: Up/Down/PageUp/PageDown scroll the conversation when it has the focus.
            Keys.onUpPressed: flick(0, 800)
            Keys.onDownPressed: flick(0, -800)
            Keys.onPressed: (event) => {
                if (event.key === Qt.Key_PageUp) { contentY = Math.max(originY, contentY - height * 0.9); event.accepted = true }
                else if (event.key === Qt.Key_PageDown) { contentY = Math.min(originY + contentHeight - height, contentY + height * 0.9); event.accepted = true }
            }
            ScrollBar.vertical: ScrollBar {}
            // The user message edited in place (its row; -1: none): one at a time.
            property int editingRow: -1
            function startEdit(row) {
                if (row < 0 || row >= count || Chat.generating) return
                if (!itemAtIndex(row)) positionViewAtIndex(row, ListView.Contain)  // its bubble exists
                // Too long for a text field: the bubble says so instead (and how to go on).
                var bubble = itemAtIndex(row)
                if (!bubble) return  // not laid out (the list is moving): nothing to edit in
                if (bubble.tooLongToEdit) { bubble.editRefused = true; return }  // qmllint disable type
                editingRow = row
            }
            function cancelEdit() {
                editingRow = -1
                root.focusInput()
            }
            // Closed before the resend (it replaces the bubbles); opened again with its text
            // when the controller refused it (a store error, said in a dialog).
            function resendEdit(row, text) {
                if (Chat.generating || text.trim().length === 0) return
                editingRow = -1
                if (Chat.editMessage(row, text)) { root.focusInput(); return }
                editingRow = row
                var bubble = itemAtIndex(row)
                if (bubble) bubble.restoreEdit(text)
            }
            // Follow the streaming reply (deferred: never reposition during a layout pass).
            onCountChanged: {
                if (editingRow >= count) editingRow = -1
                // (qmllint 6.4 takes Qt.callLater for a QJSValue property; it is a method)
                Qt.callLater(positionViewAtEnd)  // qmllint disable type
            }
            // Just opened: the delegates' heights keep arriving (later on a loaded machine),
            // so the list stays at its end until they settle or the user scrolls.
            property bool settling: false
            onMovementStarted: settling = false
            onContentHeightChanged: if (atYEnd || Chat.generating || settling) Qt.callLater(positionViewAtEnd)  // qmllint disable type
            delegate: MessageBubble {
                width: ListView.view.width
            }
            // A conversation opens at its newest message (twice: once laid out, once the
            // delegates' real heights are known).
            Connections {
                target: Chat
                function onCurrentConversationChanged() {
                    messageList.editingRow = -1
                    messageList.openAtEnd()
                }
                // Long messages read on the loader's thread have arrived.
                function onConversationOpened() { messageList.openAtEnd() }
            }
            function openAtEnd() {
                Qt.callLater(positionViewAtEnd)  // qmllint disable type
                settling = true
                scrollAgain.restart()
                settled.restart()
            }
            Timer { id: scrollAgain; interval: 50; onTriggered: messageList.positionViewAtEnd() }
            // Its messages are long and still being read (on the loader's thread).
            BusyIndicator {
                anchors.centerIn: parent
                running: Chat.opening
                visible: running
                Accessible.name: qsTr("Opening the conversation: its messages are long")
            }
            Timer { id: settled; interval: 2000; onTriggered: messageList.settling = false }
            // Ctrl+Shift+T opens or folds the last reply's reasoning (its Thinking block).
            Shortcut {
                sequence: "Ctrl+Shift+T"
                onActivated: {
                    // (qmllint: itemAtIndex() gives an Item; the delegates are MessageBubbles)
                    var last = messageList.count > 0 ? messageList.itemAtIndex(messageList.count - 1) : null
                    if (last && last.hasThinking) last.toggleThinking()  // qmllint disable type
                }
            }
            // A focus ring when the list itself has the keyboard focus.
            Rectangle {
                anchors.fill: parent
                color: "transparent"
                border.color: Theme.focusRing
                border.width: 2
                radius: Theme.radiusS
                visible: messageList.activeFocus
            }
        }

        ColumnLayout {
            Layout.preferredWidth: root.columnWidth
            Layout.alignment: Qt.AlignHCenter
            spacing: Theme.spacingXs
            NoticeBanner { Layout.fillWidth: true }
            SummaryJobView { Layout.fillWidth: true }
            DocumentCard { Layout.fillWidth: true }
            Frame {
                id: pasteOffer
                visible: false
                Layout.fillWidth: true
                background: Rectangle { radius: Theme.radiusM; color: Theme.infoBackground; border.color: Theme.border }
                RowLayout {
                    anchors.fill: parent
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: qsTr("Long text pasted (%1 characters). Treat it as a document, with its cost shown before anything is sent?").arg(Theme.num(input.text.length))
                    }
                    Button {
                        text: qsTr("Treat as document")
                        highlighted: true
                        onClicked: { Chat.documents.attachText(input.text); input.text = ""; pasteOffer.visible = false }
                    }
                    Button { text: qsTr("Keep as message"); onClicked: pasteOffer.visible = false }
                }
            }
        }

        // The message box: a rounded card with the text and its actions.
        Rectangle {
            id: composer
            Layout.preferredWidth: root.columnWidth
            Layout.alignment: Qt.AlignHCenter
            Layout.topMargin: Theme.spacingS
            implicitHeight: composerRow.implicitHeight + 2 * Theme.spacingS
            radius: Theme.radiusL
            color: Theme.window
            border.color: input.activeFocus ? Theme.focusRing : Theme.border
            border.width: input.activeFocus ? 2 : 1

            RowLayout {
                id: composerRow
                anchors.fill: parent
                anchors.margins: Theme.spacingS
                spacing: Theme.spacingXs
                IconButton {
                    objectName: "attachButton"
                    iconName: "attach"
                    text: qsTr("Attach document")
                    toolTip: qsTr("Text, Markdown or PDF (Ctrl+D), or drop a file on the window")
                    enabled: !Chat.documents.loading
                    onClicked: root.attachRequested()
                    Layout.alignment: Qt.AlignBottom
                }
                ToolsButton {
                    id: toolsButton
                    Layout.alignment: Qt.AlignBottom
                    onSettingsRequested: root.toolSettingsRequested()
                    onChoiceClosed: root.focusInput()
                }
                ScrollView {
                    Layout.fillWidth: true
                    Layout.preferredHeight: Math.min(Theme.px(160), Math.max(Theme.px(40), input.implicitHeight))
                    TextArea {
                        id: input
                        objectName: "messageInput"
                        focus: true
                        wrapMode: TextArea.Wrap
                        background: null
                        Accessible.name: qsTr("Message")
                        Accessible.description: qsTr("Enter sends, Shift+Enter starts a new line, Tab leaves the box")
                        placeholderText: root.modelInfo.is_demo
                            ? qsTr("Start a verse, e.g. “Genesis 1⏎1 In the beginning” — Enter sends, Shift+Enter newline")
                            : qsTr("Message — Enter sends, Shift+Enter newline")
                        Keys.onReturnPressed: (event) => {
                            if (event.modifiers & Qt.ShiftModifier) { event.accepted = false; return }
                            root.sendInput()
                        }
                        Keys.onEnterPressed: (event) => root.sendInput()
                        // Up in the empty box edits the last user message (as in Slack or
                        // ChatGPT); elsewhere Up moves the cursor.
                        Keys.onUpPressed: (event) => {
                            if (input.length > 0 || event.modifiers !== Qt.NoModifier || Chat.generating) { event.accepted = false; return }
                            var row = Chat.lastUserRow()
                            if (row < 0) { event.accepted = false; return }
                            messageList.startEdit(row)
                        }
                        // Tab and Shift+Tab move the focus on (the keyboard is never trapped
                        // here); Ctrl+Tab types a tab.
                        Keys.onTabPressed: (event) => {
                            if (event.modifiers & Qt.ControlModifier) { input.insert(input.cursorPosition, "\t"); return }
                            var next = input.nextItemInFocusChain(true)
                            if (next) next.forceActiveFocus(Qt.TabFocusReason)
                        }
                        Keys.onBacktabPressed: (event) => {
                            var previous = input.nextItemInFocusChain(false)
                            if (previous) previous.forceActiveFocus(Qt.BacktabFocusReason)
                        }
                        property int previousLength: 0
                        onTextChanged: {
                            Chat.contextMeter.setDraft(text)
                            if (text.length - previousLength > root.longPasteChars) pasteOffer.visible = true
                            else if (text.length === 0) pasteOffer.visible = false
                            previousLength = text.length
                        }
                    }
                }
                IconButton {
                    objectName: "regenerateButton"
                    iconName: "regenerate"
                    text: qsTr("Regenerate")
                    toolTip: qsTr("Regenerate the last reply")
                    enabled: !Chat.generating && messageList.count > 0
                    onClicked: Chat.regenerate()
                    Layout.alignment: Qt.AlignBottom
                }
                IconButton {
                    objectName: "sendButton"
                    iconName: Chat.generating ? "stop" : "send"
                    text: Chat.generating ? qsTr("Stop") : qsTr("Send")
                    toolTip: Chat.generating ? qsTr("Stop the reply (Esc)") : qsTr("Send (Enter)")
                    accent: true
                    onClicked: Chat.generating ? Chat.stop() : root.sendInput()
                    Layout.alignment: Qt.AlignBottom
                }
            }
        }
        ContextMeterBar {
            id: contextMeterBar
            // The message box's width, under it (a layout holding a filling row would fill).
            Layout.fillWidth: false
            Layout.preferredWidth: root.columnWidth
            Layout.maximumWidth: root.columnWidth
            Layout.alignment: Qt.AlignHCenter
            Layout.bottomMargin: Theme.spacingS
        }
    }

    function sendInput() {
        if (Chat.generating || input.text.trim().length === 0) return
        pasteOffer.visible = false
        // Cleared only once the message is taken: a refused one stays, with the reason shown.
        if (Chat.send(input.text)) input.text = ""
    }
    Component.onCompleted: input.forceActiveFocus()
}
