// The context meter beside the message box (issue 43 point 1): tokens in use against the
// context, what the message being typed will add, and what the context policy does when it
// is full. Its words are Chat.contextMeter's (app/memory/context_meter.h), the same the
// status line, the memory panel and the banners say.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: meter
    objectName: "contextMeter"
    readonly property bool shown: Chat.contextMeter.level !== "none"
    readonly property color tone: Chat.contextMeter.level === "full" || Chat.contextMeter.draftOverflows ? Theme.error
                                 : Chat.contextMeter.level === "almost" ? Theme.warning : Theme.textMuted
    // What the meter says, for the end-to-end tests and screen readers.
    // The meter's line as shown (for the end-to-end tests).
    readonly property string text: meterText.text
    readonly property string summary: Chat.contextMeter.sentence + (Chat.contextMeter.draftSentence.length > 0 ? " " + Chat.contextMeter.draftSentence : "")
    function policyShort(policy) {
        return policy === "shift" ? qsTr("when full: shift out the oldest half")
             : policy === "sink-window" ? qsTr("when full: keep the start and the latest")
             : policy === "stop" ? qsTr("when full: stop")
             : qsTr("when full: drop the oldest turns")
    }
    visible: meter.shown
    spacing: 2
    Accessible.role: Accessible.StaticText
    Accessible.name: qsTr("Context meter")
    Accessible.description: meter.summary

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.spacingS
        // The bar: in use, then (lighter) what the typed message adds.
        Rectangle {
            id: track
            Layout.preferredWidth: Theme.px(120)
            Layout.preferredHeight: Theme.px(6)
            radius: height / 2
            color: Theme.border
            readonly property real maxTokens: Math.max(1, Chat.contextMeter.maxTokens)
            Rectangle {
                id: used
                width: track.width * Math.min(1, Chat.contextMeter.tokens / track.maxTokens)
                height: parent.height
                radius: parent.radius
                color: Chat.contextMeter.level === "room" ? Theme.accent : meter.tone
            }
            Rectangle {
                x: used.width
                width: Math.max(0, Math.min(track.width - used.width, track.width * Math.max(0, Chat.contextMeter.draftTokens) / track.maxTokens))
                height: parent.height
                radius: parent.radius
                color: Chat.contextMeter.draftOverflows ? Theme.error : Theme.accent
                opacity: 0.45
            }
        }
        Label {
            id: meterText
            objectName: "contextMeterText"
            Layout.fillWidth: true
            font.pixelSize: Theme.smallSize
            color: meter.tone
            elide: Text.ElideRight
            textFormat: Text.PlainText
            text: qsTr("%1 / %2 tokens").arg(Theme.num(Chat.contextMeter.tokens)).arg(Theme.num(Chat.contextMeter.maxTokens))
                + (Chat.contextMeter.draftText.length > 0 ? " · " + qsTr("this message %1").arg(Chat.contextMeter.draftText) : "")
                + " · " + meter.policyShort(Chat.contextMeter.policy)
            ToolTip.visible: meterMouse.containsMouse
            ToolTip.text: meter.summary
            MouseArea { id: meterMouse; anchors.fill: parent; hoverEnabled: true; acceptedButtons: Qt.NoButton }
        }
    }
    // A message that will not fit says what sending it does.
    Label {
        objectName: "contextMeterWarning"
        visible: Chat.contextMeter.draftOverflows
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.error
        textFormat: Text.PlainText
        text: Chat.contextMeter.draftSentence
    }
}
