// One message: Markdown text, its state, per-message stats, copy and edit actions.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Item {
    id: bubble
    property bool isUser: role === "user"
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
        color: bubble.isUser ? Qt.rgba(0.25, 0.5, 0.9, 0.15) : Qt.rgba(0.5, 0.5, 0.5, 0.10)

        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 8
            spacing: 4
            TextEdit {
                id: body
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                textFormat: TextEdit.MarkdownText
                text: content.length > 0 ? bubble.markdown(content) : (state === "streaming" ? "…" : "")
                color: palette.text
            }
            RowLayout {
                spacing: 8
                Label {
                    font.pixelSize: 11
                    opacity: 0.7
                    text: state === "interrupted" ? qsTr("interrupted")
                        : (stats && stats.generated_tokens !== undefined)
                          ? qsTr("%1 tokens · first token %2 ms · %3 tok/s · %4 evaluated")
                              .arg(stats.generated_tokens).arg(Math.round(stats.ttft_ms))
                              .arg(Number(stats.tokens_per_second).toFixed(1)).arg(stats.evaluated_tokens)
                          : ""
                }
                ToolButton {
                    text: qsTr("Copy")
                    font.pixelSize: 11
                    onClicked: { body.selectAll(); body.copy(); body.deselect() }
                }
                ToolButton {
                    visible: bubble.isUser && !chat.generating
                    text: qsTr("Edit")
                    font.pixelSize: 11
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
