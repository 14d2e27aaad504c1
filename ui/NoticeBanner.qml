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
    color: docs.messageIsError ? Theme.errorBackground : Theme.warningBackground
    border.color: docs.messageIsError ? Theme.error : Theme.warning
    radius: 4
    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 6
        Label {
            objectName: "noticeText"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: banner.docs.messageIsError ? Theme.error : Theme.text
            text: banner.docs.message
        }
        ToolButton { text: "✕"; Accessible.name: qsTr("Dismiss the message"); onClicked: banner.docs.dismissMessage() }
    }
}
