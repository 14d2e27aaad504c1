// One message: Markdown text, its state, per-message stats, copy and edit actions.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Item {
    id: bubble
    property bool isUser: role === "user"
    // A document sent whole: shown folded (its first lines) until expanded.
    readonly property bool isDocument: isUser && stats && stats.document_tokens !== undefined && !stats.summary_request
    readonly property bool isSummary: !isUser && stats && stats.summary_job_id !== undefined
    property bool documentExpanded: false
    implicitHeight: column.implicitHeight + 16

    // Chat text keeps its line breaks: outside code fences every newline becomes a
    // Markdown hard break (a single newline is otherwise a soft break).
    function markdown(text) {
        var parts = text.split("```")
        for (var i = 0; i < parts.length; i += 2) parts[i] = parts[i].replace(/([^\n])\n(?!\n)/g, "$1  \n")
        return parts.join("```")
    }

    Rectangle {
        anchors.fill: parent
        anchors.leftMargin: bubble.isUser ? 60 : 8
        anchors.rightMargin: bubble.isUser ? 8 : 60
        radius: 8
        color: bubble.isUser ? Theme.userBubble : Theme.assistantBubble

        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 8
            spacing: 4
            Label {
                visible: bubble.isDocument || bubble.isSummary
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                font.bold: true
                color: Theme.textMuted  // secondary text, contrast-checked (was an opacity)
                text: bubble.isDocument
                    ? qsTr("Document “%1” · %2 tokens, sent whole (its KV stays in the cache)").arg(stats.document_name).arg(stats.document_tokens)
                    : bubble.isSummary
                      ? qsTr("Summary from %1 partial summaries, %2 merge level(s)%3 · %4 tokens evaluated · %5 s")
                          .arg(stats.summary_partials).arg(stats.summary_levels)
                          .arg(stats.summary_resumed > 0 ? qsTr(", resumed after %1").arg(stats.summary_resumed) : "")
                          .arg(stats.tokens_evaluated).arg(Number(stats.seconds || 0).toFixed(1))
                      : ""
            }
            TextEdit {
                id: body
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                font.pixelSize: Theme.fontSize  // a TextEdit does not inherit the window's (zoomed) font
                textFormat: bubble.isDocument ? TextEdit.PlainText : TextEdit.MarkdownText
                text: bubble.isDocument
                      ? (bubble.documentExpanded || content.length <= 600 ? content : content.substring(0, 600) + " …")
                      : content.length > 0 ? bubble.markdown(content) : (state === "streaming" ? "…" : "")
                color: palette.text
            }
            PartialSummaries {
                visible: bubble.isSummary
                Layout.fillWidth: true
                jobId: bubble.isSummary ? stats.summary_job_id : 0
                count: bubble.isSummary ? stats.summary_partials : 0
            }
            RowLayout {
                spacing: 8
                Layout.fillWidth: true  // the stats wrap instead of pushing the row past the bubble
                ToolButton {
                    visible: bubble.isDocument && content.length > 600
                    text: bubble.documentExpanded ? qsTr("Fold") : qsTr("Show all %1 characters").arg(content.length)
                    font.pixelSize: Theme.smallSize
                    onClicked: bubble.documentExpanded = !bubble.documentExpanded
                }
                Label {
                    // The store refused it (disk full, I/O error): kept here, saved with the next change.
                    visible: saved === false
                    font.pixelSize: Theme.smallSize
                    color: Theme.error
                    text: qsTr("not saved")
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted  // secondary text, contrast-checked (was an opacity)
                    text: state === "interrupted" ? qsTr("interrupted")
                        : (stats && stats.generated_tokens !== undefined)
                          ? qsTr("%1 tokens · first token %2 ms · %3 tok/s · %4 evaluated")
                              .arg(stats.generated_tokens).arg(Math.round(stats.ttft_ms))
                              .arg(Number(stats.tokens_per_second).toFixed(1)).arg(stats.evaluated_tokens)
                          : ""
                }
                ToolButton {
                    text: qsTr("Copy")
                    font.pixelSize: Theme.smallSize
                    onClicked: { body.selectAll(); body.copy(); body.deselect() }
                }
                ToolButton {
                    visible: bubble.isUser && !chat.generating
                    text: qsTr("Edit")
                    font.pixelSize: Theme.smallSize
                    onClicked: { editField.text = content; editDialog.open() }
                }
            }
        }
    }

    Dialog {
        id: editDialog
        title: qsTr("Edit and resend")
        standardButtons: Dialog.Ok | Dialog.Cancel
        anchors.centerIn: Overlay.overlay
        TextArea { id: editField; width: 420; wrapMode: TextArea.Wrap }
        onAccepted: chat.editMessage(index, editField.text)
    }
}
