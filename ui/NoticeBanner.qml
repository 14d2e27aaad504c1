// The window's message lines above the message box: the chat's banner with its actions
// (a failed model load: Retry, the previous model, the demo model, its settings; a full
// context: New chat, Summarize and continue, another policy; a reply that wrote nothing:
// Try again), then the documents' and chat actions' error (red) or notice, each with a
// close button. Nothing in the conversation changes when they appear.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: banner
    // Every banner is NoticeCenter's (`notices`): the action banner and the message banner.
    property var notice: Notices.notice
    // (Not the children's `visible`: a child of a hidden item reads as hidden.)
    readonly property bool hasNotice: !!notice.text
    readonly property bool hasMessage: Notices.message.length > 0
    visible: hasNotice || hasMessage
    spacing: 4

    Rectangle {
        id: actionBanner
        objectName: "actionBanner"
        visible: banner.hasNotice
        Layout.fillWidth: true
        implicitHeight: actionColumn.implicitHeight + 12
        readonly property bool isError: banner.notice.kind === "load-failed" || banner.notice.kind === "context-full"
        color: isError ? Theme.errorBackground : Theme.warningBackground
        border.color: isError ? Theme.error : Theme.warning
        radius: 4
        Accessible.role: Accessible.AlertMessage
        Accessible.name: banner.notice.text || ""
        ColumnLayout {
            id: actionColumn
            anchors.fill: parent
            anchors.margins: 6
            RowLayout {
                Layout.fillWidth: true
                Label {
                    objectName: "actionNoticeText"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    color: Theme.text
                    textFormat: Text.PlainText  // notices quote template errors and file names
                    text: banner.notice.text || ""
                }
                ToolButton {
                    text: "✕"
                    visible: banner.notice.kind !== "summarizing"
                    Accessible.name: qsTr("Dismiss")
                    onClicked: Notices.dismissNotice()
                }
            }
            Flow {
                Layout.fillWidth: true
                spacing: 6
                visible: actionRepeater.count > 0
                Repeater {
                    id: actionRepeater
                    model: banner.notice.actions || []
                    Button {
                        id: actionButton
                        required property var modelData
                        required property int index
                        objectName: "noticeAction_" + modelData.id
                        // Alt+1, Alt+2, ... reach the actions from the keyboard as well.
                        text: modelData.label
                        highlighted: index === 0
                        Accessible.name: modelData.label
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("Alt+%1").arg(index + 1)
                        onClicked: Notices.noticeAction(modelData.id)
                        Shortcut {
                            sequence: "Alt+" + (actionButton.index + 1)
                            enabled: banner.hasNotice
                            onActivated: Notices.noticeAction(actionButton.modelData.id)
                        }
                    }
                }
            }
        }
    }

    Rectangle {
        id: messageBanner
        visible: banner.hasMessage
        Layout.fillWidth: true
        implicitHeight: row.implicitHeight + 12
        color: Notices.messageIsError ? Theme.errorBackground : Theme.warningBackground
        border.color: Notices.messageIsError ? Theme.error : Theme.warning
        radius: 4
        RowLayout {
            id: row
            anchors.fill: parent
            anchors.margins: 6
            Label {
                objectName: "noticeText"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: Notices.messageIsError ? Theme.error : Theme.text
                textFormat: Text.PlainText
                text: Notices.message
            }
            ToolButton { text: "✕"; Accessible.name: qsTr("Dismiss the message"); onClicked: Notices.dismissMessage() }
        }
    }
}
