// Conversations: new, search, select, rename, delete.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: root
    padding: 6
    function focusSearch() { searchField.forceActiveFocus() }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Button {
            text: qsTr("New chat")
            Accessible.name: text
            icon.source: "qrc:/icons/new-chat.png"
            icon.width: Theme.iconSize
            icon.height: Theme.iconSize
            icon.color: Theme.text
            Layout.fillWidth: true
            onClicked: chat.newConversation()
        }
        TextField {
            id: searchField
            placeholderText: qsTr("Search (Ctrl+F)")
            Accessible.name: qsTr("Search conversations")
            Layout.fillWidth: true
            onTextChanged: chat.search(text)
        }
        ListView {
            id: list
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: chat.conversations
            delegate: ItemDelegate {
                width: ListView.view.width
                text: title
                Accessible.name: title
                focusPolicy: Qt.StrongFocus  // on the Tab order; Space opens it
                rightPadding: Theme.px(36)  // the title ends (elided) before the delete button
                highlighted: conversationId === chat.currentConversationId
                onClicked: chat.selectConversation(conversationId)
                onDoubleClicked: { renameField.text = title; renameDialog.conversation = conversationId; renameDialog.open() }
                ToolButton {
                    anchors.right: parent.right
                    anchors.verticalCenter: parent.verticalCenter
                    text: "✕"
                    Accessible.name: qsTr("Delete conversation “%1”").arg(title)
                    onClicked: chat.deleteConversation(conversationId)
                }
            }
        }
    }

    Dialog {
        id: renameDialog
        property var conversation: 0
        title: qsTr("Rename conversation")
        standardButtons: Dialog.Ok | Dialog.Cancel
        anchors.centerIn: Overlay.overlay
        TextField { id: renameField; width: 260 }
        onAccepted: chat.renameConversation(conversation, renameField.text)
    }
}
