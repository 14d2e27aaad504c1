// Conversations: new, search, open, rename, export, delete (with a few seconds to undo).
// Keyboard: Down from the search field (or Tab) enters the list; Up/Down move, Enter or
// Space opens, F2 renames, Delete deletes, the Menu key or Shift+F10 opens the context
// menu; Ctrl+Z brings back the conversation just deleted.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import kvchat

Pane {
    id: root
    // The conversation whose deletion can still be undone ({} when none), as a JS object.
    readonly property var pendingDelete: ConversationList.pendingDelete
    padding: 6
    function focusSearch() { searchField.forceActiveFocus() }
    readonly property string searchText: searchField.text
    function focusList() {
        var row = ConversationList.model.rowOf(Chat.currentConversationId)
        list.currentIndex = row >= 0 ? row : 0
        list.forceActiveFocus()
    }
    // The conversation an action is for: the one under the keyboard cursor when the list
    // has the focus, else the open one.
    function targetId() {
        if (list.activeFocus && list.currentIndex >= 0) return ConversationList.model.idAt(list.currentIndex)
        return Chat.currentConversationId
    }
    function rename(id) {
        if (!id) return
        renameDialog.conversation = id
        renameField.text = ConversationList.conversationTitle(id)
        renameDialog.open()
    }
    function remove(id) {
        if (!id) return
        var row = list.currentIndex
        ConversationList.deleteConversation(id)
        list.currentIndex = Math.min(row, list.count - 1)
    }
    function exportAs(id, format) {
        if (!id) return
        exportDialog.conversation = id
        exportDialog.format = format
        pathField.text = ConversationList.defaultExportPath(id, format)
        exportDialog.open()
    }

    Shortcut { sequence: "F2"; onActivated: root.rename(root.targetId()) }
    Shortcut {
        // StandardKey.Undo as its number (QKeySequence::Undo): in JavaScript an enum is
        // that number, so Shortcut reads the platform's Undo keys all the same; qmllint 6.4
        // cannot resolve the StandardKey type (it reports it as an unqualified access).
        sequences: [11]  // StandardKey.Undo
        enabled: root.pendingDelete.id !== undefined
        onActivated: ConversationList.undoDelete()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Button {
            text: qsTr("New chat")
            icon.source: "qrc:/icons/new-chat.png"
            icon.width: Theme.iconSize
            icon.height: Theme.iconSize
            icon.color: Theme.text
            Layout.fillWidth: true
            Accessible.name: qsTr("New chat (Ctrl+N)")
            onClicked: Chat.newConversation()
        }
        TextField {
            id: searchField
            placeholderText: qsTr("Search (Ctrl+F)")
            Accessible.name: qsTr("Search conversations")
            Layout.fillWidth: true
            onTextChanged: ConversationList.search(text)
            Keys.onDownPressed: root.focusList()
            // New chat clears the search (the new conversation matches none): the field follows.
            Connections {
                target: ConversationList
                function onSearchTextChanged() { if (searchField.text !== ConversationList.searchText) searchField.text = ConversationList.searchText }
            }
        }
        ListView {
            id: list
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            activeFocusOnTab: true
            keyNavigationEnabled: true
            highlightMoveDuration: 0
            model: ConversationList.model
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Conversations")
            onActiveFocusChanged: if (activeFocus && currentIndex < 0 && count > 0) root.focusList()
            Keys.onReturnPressed: Chat.selectConversation(ConversationList.model.idAt(currentIndex))
            Keys.onEnterPressed: Chat.selectConversation(ConversationList.model.idAt(currentIndex))
            Keys.onSpacePressed: Chat.selectConversation(ConversationList.model.idAt(currentIndex))
            Keys.onDeletePressed: root.remove(ConversationList.model.idAt(currentIndex))
            Keys.onUpPressed: (event) => { if (currentIndex <= 0) searchField.forceActiveFocus(); else decrementCurrentIndex() }
            Keys.onPressed: (event) => {
                if (event.key === Qt.Key_Menu || (event.key === Qt.Key_F10 && (event.modifiers & Qt.ShiftModifier))) {
                    var item = list.currentItem
                    if (item) contextMenu.openFor(ConversationList.model.idAt(currentIndex), item, 12, item.height / 2)
                    event.accepted = true
                }
            }
            ScrollBar.vertical: ScrollBar {}
            delegate: ItemDelegate {
                id: entry
                required property var conversationId
                required property string title
                required property int index
                width: ListView.view.width
                highlighted: entry.conversationId === Chat.currentConversationId
                rightPadding: removeButton.width + 8
                // Where its KV is and what coming back costs (MemoryState.kvPlace).
                readonly property var kv: { MemoryState.kvPlacesRevision; MemoryState.snapshotDisk; return MemoryState.kvPlace(entry.conversationId) }
                contentItem: ColumnLayout {
                    spacing: 0
                    Label {
                        Layout.fillWidth: true
                        text: entry.title
                        elide: Text.ElideRight
                        verticalAlignment: Text.AlignVCenter
                        font.bold: entry.highlighted
                    }
                    Label {
                        objectName: "kvPlace"
                        Layout.fillWidth: true
                        visible: (entry.kv.text || "").length > 0
                        text: entry.kv.text || ""
                        wrapMode: Text.Wrap  // said whole: never cut with "…"
                        font.pixelSize: Theme.smallSize
                        color: Theme.textMuted
                    }
                }
                Accessible.name: entry.title
                Accessible.description: entry.kv.text || ""
                // The keyboard cursor of the list (not the open conversation).
                Rectangle {
                    anchors.fill: parent
                    color: "transparent"
                    border.color: Theme.focusRing
                    border.width: 2
                    radius: Theme.radiusS
                    visible: entry.ListView.isCurrentItem && list.activeFocus
                }
                onClicked: { list.currentIndex = entry.index; Chat.selectConversation(entry.conversationId) }
                onDoubleClicked: root.rename(entry.conversationId)
                TapHandler {
                    acceptedButtons: Qt.RightButton
                    onTapped: (point) => contextMenu.openFor(entry.conversationId, entry, point.position.x, point.position.y)
                }
                ToolButton {
                    id: removeButton
                    anchors.right: parent.right
                    anchors.verticalCenter: parent.verticalCenter
                    text: "✕"
                    focusPolicy: Qt.NoFocus  // the list's Delete key does this for keyboard users
                    Accessible.name: qsTr("Delete “%1”").arg(entry.title)
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Delete (Del) — can be undone for a few seconds")
                    onClicked: root.remove(entry.conversationId)
                }
            }
        }

        // The conversation just deleted: a few seconds to take it back.
        Frame {
            id: undoBar
            objectName: "undoDelete"
            visible: root.pendingDelete.id !== undefined
            Layout.fillWidth: true
            padding: 6
            background: Rectangle {  // qmllint disable deferred-property-id
                radius: Theme.radiusS
                color: Theme.infoBackground
                border.color: Theme.border
                Rectangle {  // the time left
                    id: timeLeft
                    anchors.bottom: parent.bottom
                    anchors.left: parent.left
                    height: 3
                    color: Theme.accent
                    NumberAnimation on width {
                        id: countdown
                        from: undoBar.width; to: 0; duration: ConversationList.undoDeleteMs
                        running: false
                    }
                }
            }
            Connections {
                target: ConversationList
                function onPendingDeleteChanged() { if (root.pendingDelete.id !== undefined) countdown.restart() }
            }
            RowLayout {
                anchors.fill: parent
                Label {
                    Layout.fillWidth: true
                    elide: Text.ElideRight
                    text: qsTr("Deleted “%1”").arg(root.pendingDelete.title || "")
                    ToolTip.visible: deletedMouse.containsMouse && truncated
                    ToolTip.text: text
                    MouseArea { id: deletedMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
                }
                Button {
                    text: qsTr("Undo")
                    Accessible.name: qsTr("Undo delete (Ctrl+Z)")
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Bring it back with its messages (Ctrl+Z)")
                    onClicked: ConversationList.undoDelete()
                }
            }
        }
    }

    Menu {
        id: contextMenu
        property var conversation: 0
        function openFor(id, item, x, y) {
            conversation = id
            popup(item, x, y)
        }
        MenuItem { text: qsTr("Rename…  (F2)"); onTriggered: root.rename(contextMenu.conversation) }
        MenuItem { text: qsTr("Export as Markdown…"); onTriggered: root.exportAs(contextMenu.conversation, "md") }
        MenuItem { text: qsTr("Export as JSON…"); onTriggered: root.exportAs(contextMenu.conversation, "json") }
        MenuSeparator {}
        MenuItem { text: qsTr("Delete  (Del)"); onTriggered: root.remove(contextMenu.conversation) }
    }

    // Export: the file's place and name proposed and focused (Enter writes it, Esc
    // cancels); Markdown or JSON; "Browse…" for the system's file dialog.
    Dialog {
        id: exportDialog
        objectName: "exportDialog"
        property var conversation: 0
        property string format: "md"
        title: qsTr("Export the conversation")
        modal: true
        focus: true
        anchors.centerIn: Overlay.overlay
        width: Math.min(560, (Overlay.overlay ? Overlay.overlay.width : 560) - 40)
        function setFormat(f) {
            format = f
            var path = pathField.text.replace(/\.(md|markdown|json)$/i, "")
            pathField.text = path + (f === "json" ? ".json" : ".md")
        }
        onOpened: { pathField.forceActiveFocus(); pathField.cursorPosition = pathField.text.length }
        onAccepted: {
            var path = pathField.text.trim()
            if (path.length === 0) return
            if (!/\.(md|markdown|json)$/i.test(path)) path += format === "json" ? ".json" : ".md"
            ConversationList.exportConversation(conversation, path)
        }
        onClosed: list.forceActiveFocus()
        footer: DialogButtonBox {
            // (qmllint 6.4's DialogButtonBox lacks the ButtonRole enum it has at run time)
            Button { text: qsTr("Export"); DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole }  // qmllint disable type
            Button { text: qsTr("Cancel"); DialogButtonBox.buttonRole: DialogButtonBox.RejectRole }  // qmllint disable type
        }
        ColumnLayout {
            width: exportDialog.availableWidth
            spacing: 6
            RowLayout {
                RadioButton {
                    text: qsTr("Markdown, to read")
                    checked: exportDialog.format === "md"
                    onClicked: exportDialog.setFormat("md")
                }
                RadioButton {
                    text: qsTr("JSON, every stored field")
                    checked: exportDialog.format === "json"
                    onClicked: exportDialog.setFormat("json")
                }
            }
            Label { text: qsTr("Save as") }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: pathField
                    objectName: "exportPath"
                    Layout.fillWidth: true
                    Accessible.name: qsTr("File to write")
                    onAccepted: exportDialog.accept()
                    Keys.onEscapePressed: exportDialog.reject()
                }
                Button {
                    text: qsTr("Browse…")
                    onClicked: {
                        var slash = pathField.text.lastIndexOf("/")
                        if (slash > 0) browseDialog.currentFolder = "file://" + pathField.text.substring(0, slash)
                        browseDialog.open()
                    }
                }
            }
        }
    }
    FileDialog {
        id: browseDialog
        title: qsTr("Export the conversation")
        fileMode: FileDialog.SaveFile
        acceptLabel: qsTr("Choose")
        nameFilters: exportDialog.format === "json" ? [qsTr("JSON (*.json)")] : [qsTr("Markdown (*.md)")]
        onAccepted: {
            var file = decodeURIComponent(String(selectedFile).replace(/^file:\/\//, ""))
            pathField.text = file
            pathField.forceActiveFocus()
        }
    }

    // Rename: the name selected and focused; Enter keeps it, Esc leaves it as it was.
    Dialog {
        id: renameDialog
        objectName: "renameDialog"
        property var conversation: 0
        title: qsTr("Rename conversation")
        modal: true
        focus: true
        standardButtons: Dialog.Ok | Dialog.Cancel
        anchors.centerIn: Overlay.overlay
        width: Math.min(420, (Overlay.overlay ? Overlay.overlay.width : 420) - 40)
        onOpened: { renameField.forceActiveFocus(); renameField.selectAll() }
        onAccepted: {
            var name = renameField.text.trim()
            if (name.length > 0) ConversationList.renameConversation(conversation, name)
        }
        onClosed: if (list.activeFocus === false) list.forceActiveFocus()
        TextField {
            id: renameField
            objectName: "renameField"
            width: renameDialog.availableWidth
            Accessible.name: qsTr("New name")
            onAccepted: renameDialog.accept()
            Keys.onEscapePressed: renameDialog.reject()
        }
    }
}
