// The open conversation: messages rendered as Markdown, streaming in place, and the
// message box (Enter sends, Shift+Enter is a newline).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: root
    padding: 0

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
        }

        Frame {
            Layout.fillWidth: true
            RowLayout {
                anchors.fill: parent
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
        chat.send(input.text)
        input.text = ""
    }
    Component.onCompleted: input.forceActiveFocus()
}
