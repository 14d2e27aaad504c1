// The partial summaries behind a document's final summary, collapsed by default:
// "Show partial summaries (N)" lists them by level (0 = chunks of the document).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: root
    property var jobId: 0
    property int count: 0
    property bool expanded: false
    property var items: []
    spacing: 4

    ToolButton {
        text: (root.expanded ? qsTr("Hide partial summaries (%1)") : qsTr("Show partial summaries (%1)")).arg(Theme.num(root.count))
        font.pixelSize: Theme.smallSize
        onClicked: {
            root.expanded = !root.expanded
            if (root.expanded) root.items = Chat.documents.partials(root.jobId)
        }
    }
    Repeater {
        model: root.expanded ? root.items : []
        ColumnLayout {
            id: partial
            required property var modelData
            Layout.fillWidth: true
            Layout.leftMargin: 12 + 12 * modelData.level
            spacing: 1
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                font.bold: true
                color: Theme.textMuted  // secondary text, contrast-checked (was an opacity)
                text: partial.modelData.level === 0
                    ? qsTr("level 0 · chunk %1 · document tokens %2–%3").arg(Theme.num(partial.modelData.index + 1)).arg(Theme.num(partial.modelData.token_begin)).arg(Theme.num(partial.modelData.token_end))
                    : qsTr("level %1 · merge %2 · of summaries %3–%4").arg(Theme.num(partial.modelData.level)).arg(Theme.num(partial.modelData.index + 1)).arg(Theme.num(partial.modelData.source_begin + 1)).arg(Theme.num(partial.modelData.source_end))
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                textFormat: Text.PlainText  // written from a document: never markup
                text: partial.modelData.text
            }
        }
    }
}
