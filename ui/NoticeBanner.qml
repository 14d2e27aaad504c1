// The window's message line for documents and chat actions: an error (red) or a notice,
// with a close button. Nothing in the conversation changes when it appears.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Rectangle {
    id: banner
    property var docs: chat.documents
    visible: docs.message.length > 0
    implicitHeight: row.implicitHeight + 12
    color: docs.messageIsError ? Qt.rgba(0.75, 0.22, 0.17, 0.15) : Qt.rgba(0.70, 0.42, 0.0, 0.12)
    border.color: docs.messageIsError ? "#c0392b" : "#b36b00"
    radius: 4
    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 6
        Label {
            objectName: "noticeText"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: banner.docs.messageIsError ? "#c0392b" : palette.windowText
            text: banner.docs.message
        }
        ToolButton { text: "✕"; Accessible.name: qsTr("Dismiss the message"); onClicked: banner.docs.dismissMessage() }
    }
}
