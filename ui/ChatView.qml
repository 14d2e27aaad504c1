// The open conversation: messages rendered as Markdown, streaming in place, and the
// message box (Enter sends, Shift+Enter is a newline). Above it: the message banner, a
// summary job, a loaded document's cost preview, and the offer to treat a long paste as
// a document.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: root
    padding: 0
    signal attachRequested()
    // A paste (or drop of text) longer than this is offered as a document.
    readonly property int longPasteChars: 2000

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        ListView {
            id: messageList
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 8
            model: chat.messages
            // Follow the streaming reply (deferred: never reposition during a layout pass).
            onCountChanged: Qt.callLater(positionViewAtEnd)
            onContentHeightChanged: if (atYEnd || chat.generating) Qt.callLater(positionViewAtEnd)
            delegate: MessageBubble {
                width: ListView.view.width
            }
            // A conversation opens at its newest message (twice: once laid out, once the
            // delegates' real heights are known).
            Connections {
                target: chat
                function onCurrentConversationChanged() {
                    Qt.callLater(messageList.positionViewAtEnd)
                    scrollAgain.restart()
                }
            }
            Timer { id: scrollAgain; interval: 50; onTriggered: messageList.positionViewAtEnd() }
        }

        NoticeBanner { Layout.fillWidth: true; Layout.margins: 4 }
        SummaryJobView { Layout.fillWidth: true; Layout.margins: 4 }
        DocumentCard { Layout.fillWidth: true; Layout.margins: 4 }
        Frame {
            id: pasteOffer
            visible: false
            Layout.fillWidth: true
            Layout.margins: 4
            RowLayout {
                anchors.fill: parent
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("Long text pasted (%1 characters). Treat it as a document, with its cost shown before anything is sent?").arg(input.text.length)
                }
                Button {
                    text: qsTr("Treat as document")
                    highlighted: true
                    onClicked: { chat.documents.attachText(input.text); input.text = ""; pasteOffer.visible = false }
                }
                Button { text: qsTr("Keep as message"); onClicked: pasteOffer.visible = false }
            }
        }

        Frame {
            Layout.fillWidth: true
            RowLayout {
                anchors.fill: parent
                Button {
                    text: qsTr("Attach document")
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Text, Markdown or PDF (Ctrl+D), or drop a file on the window")
                    enabled: !chat.documents.loading
                    onClicked: root.attachRequested()
                }
                ScrollView {
                    Layout.fillWidth: true
                    Layout.preferredHeight: Math.min(140, Math.max(44, input.implicitHeight))
                    TextArea {
                        id: input
                        objectName: "messageInput"
                        focus: true
                        wrapMode: TextArea.Wrap
                        placeholderText: chat.modelInfo.is_demo
                            ? qsTr("Start a verse, e.g. “Genesis 1⏎1 In the beginning” — Enter sends, Shift+Enter newline")
                            : qsTr("Message — Enter sends, Shift+Enter newline")
                        Keys.onReturnPressed: (event) => {
                            if (event.modifiers & Qt.ShiftModifier) { event.accepted = false; return }
                            root.sendInput()
                        }
                        Keys.onEnterPressed: (event) => root.sendInput()
                        property int previousLength: 0
                        onTextChanged: {
                            if (text.length - previousLength > root.longPasteChars) pasteOffer.visible = true
                            else if (text.length === 0) pasteOffer.visible = false
                            previousLength = text.length
                        }
                    }
                }
                Button {
                    text: chat.generating ? qsTr("Stop") : qsTr("Send")
                    onClicked: chat.generating ? chat.stop() : root.sendInput()
                }
                Button {
                    text: qsTr("Regenerate")
                    enabled: !chat.generating && messageList.count > 0
                    onClicked: chat.regenerate()
                }
            }
        }
    }

    function sendInput() {
        if (chat.generating || input.text.trim().length === 0) return
        pasteOffer.visible = false
        // Cleared only once the message is taken: a refused one stays, with the reason shown.
        if (chat.send(input.text)) input.text = ""
    }
    Component.onCompleted: input.forceActiveFocus()
}
