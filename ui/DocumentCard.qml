// A loaded document before anything is sent: what it will cost (tokens, KV bytes at the
// current KV type, context and free memory) and the summary plan; "Send whole" only when
// it fits (drawn off otherwise, its tooltip saying why), "Summarize" (Ctrl+Shift+S)
// otherwise, after a warning with a model not trained to follow instructions. While the
// file is read: its progress.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Frame {
    id: card
    property var docs: Chat.documents
    property var p: docs.preview
    visible: docs.loading || (p.id !== undefined)
    function fmt(b) { return Chat.formatBytes(b || 0) }
    function num(n) { return Number(n || 0).toLocaleString(Qt.locale(), 'f', 0) }
    readonly property color good: Theme.success
    readonly property color bad: Theme.error

    background: Rectangle {
        radius: Theme.radiusM
        color: Theme.infoBackground
        border.color: Theme.border
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacingXs

        // Loading: the file is read (and its tokens counted) off the GUI thread.
        RowLayout {
            visible: card.docs.loading
            Layout.fillWidth: true
            Label { text: qsTr("Loading document: %1 %2%").arg(card.docs.loadStage).arg(Math.round(100 * card.docs.loadProgress)) }
            ProgressBar { Layout.fillWidth: true; palette.highlight: Theme.accent; from: 0; to: 1; value: card.docs.loadProgress }
            Button { text: qsTr("Cancel"); Accessible.name: qsTr("Cancel loading the document"); onClicked: card.docs.cancelLoad() }
        }

        ColumnLayout {
            visible: !card.docs.loading && card.p.id !== undefined
            Layout.fillWidth: true
            spacing: 3
            RowLayout {
                Layout.fillWidth: true
                Label {
                    objectName: "documentName"
                    textFormat: Text.PlainText  // a file name
                    text: qsTr("Document “%1”").arg(card.p.name || "")
                    font.bold: true
                    elide: Label.ElideMiddle
                    Layout.fillWidth: true
                }
                Label {
                    visible: card.p.inserted === false
                    text: qsTr("already stored (same content)")
                    font.pixelSize: Theme.smallSize
                    color: Theme.textMuted
                }
                IconButton { iconName: "close"; text: qsTr("Close the document preview"); onClicked: card.docs.dismissPreview() }
            }
            Label {
                text: qsTr("%1 · %2 · %3").arg(card.fmt(card.p.bytes)).arg(card.p.mime || "").arg(card.p.encoding || "")
                font.pixelSize: Theme.smallSize
            }
            Label {
                visible: (card.p.notice || "").length > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: Theme.warning
                textFormat: Text.PlainText
                text: qsTr("Encoding: %1").arg(card.p.notice || "")
            }
            GridLayout {
                columns: 2
                columnSpacing: 12
                rowSpacing: 2
                Label { text: qsTr("tokens") }
                Label {
                    objectName: "documentTokens"
                    text: card.p.counted ? qsTr("%1 (this model's tokenizer)").arg(card.num(card.p.n_tokens)) : qsTr("not counted yet")
                }
                Label { text: qsTr("KV cache") }
                Label {
                    text: qsTr("%1 tokens × %2 per token (%3) = %4")
                        .arg(card.num(card.p.n_tokens)).arg(card.fmt(card.p.kv_bytes_per_token))
                        .arg(card.p.kv_type || "").arg(card.fmt(card.p.kv_bytes))
                }
                Label { text: qsTr("context") }
                Label {
                    color: card.p.fits_context ? card.good : card.bad
                    text: card.p.counted
                        ? qsTr("needs %1 of %2 tokens with this conversation: %3")
                            .arg(card.num(card.p.context_needed)).arg(card.num(card.p.n_ctx))
                            .arg(card.p.fits_context ? qsTr("fits") : qsTr("does not fit"))
                        : ""
                }
                Label { text: qsTr("memory") }
                Label {
                    color: card.p.fits_memory ? card.good : card.bad
                    text: qsTr("%1 free (%2): %3").arg(card.fmt(card.p.free_bytes))
                        .arg(card.p.free_is_device ? qsTr("device") : qsTr("RAM"))
                        .arg(card.p.fits_memory ? qsTr("fits") : qsTr("does not fit"))
                }
                Label { text: qsTr("plan") }
                Label {
                    objectName: "documentPlan"
                    Layout.fillWidth: true
                    Layout.maximumWidth: card.width - 120
                    wrapMode: Text.Wrap
                    text: (card.p.plan_text || "")
                        + ((card.p.counted && !(card.p.prefill_tps > 0)) ? qsTr(" (no time estimate before a reply has measured the speed)") : "")
                }
            }
            // A model that continues text rather than following it (the KJV demo, a base
            // model): Summarize asks first (DocumentController::summarize).
            ColumnLayout {
                objectName: "documentSummaryWarning"
                visible: card.p.summary_confirm === true
                Layout.fillWidth: true
                spacing: Theme.spacingXs
                Label {
                    Layout.fillWidth: true
                    Layout.maximumWidth: card.width - 24
                    wrapMode: Text.Wrap
                    color: Theme.warning
                    text: card.p.summary_warning || ""
                }
                RowLayout {
                    Button {
                        text: qsTr("Summarize anyway")
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("Or Ctrl+Shift+S again")
                        Accessible.description: ToolTip.text
                        onClicked: card.docs.summarizeAnyway()
                    }
                    Button {
                        text: qsTr("Cancel")
                        Accessible.name: qsTr("Do not summarize")
                        onClicked: card.docs.cancelSummaryWarning()
                    }
                }
            }
            RowLayout {
                // A disabled button gets no hover: the box around it shows why it is off.
                Item {
                    id: sendWholeBox
                    implicitWidth: sendWholeButton.implicitWidth
                    implicitHeight: sendWholeButton.implicitHeight
                    HoverHandler { id: sendWholeHover }
                    ToolTip.visible: sendWholeHover.hovered
                    ToolTip.text: sendWholeButton.enabled
                        ? qsTr("The text becomes your message; its KV stays in the cache for follow-up questions (Ctrl+Shift+W).")
                        : card.p.can_send_whole === true ? qsTr("Once the reply is written.")
                        : (card.p.send_whole_why_not || qsTr("Only when it fits the context window and the free memory."))
                    Button {
                        id: sendWholeButton
                        objectName: "documentSendWhole"
                        anchors.fill: parent
                        text: qsTr("Send whole")
                        enabled: card.p.can_send_whole === true && !Chat.generating
                        // Plainly off when it does not fit: Fusion's disabled button still
                        // looks like one to press.
                        opacity: enabled ? 1 : 0.4
                        Accessible.description: sendWholeBox.ToolTip.text
                        onClicked: card.docs.sendWhole()
                    }
                }
                Button {
                    text: qsTr("Summarize")
                    highlighted: card.p.can_send_whole !== true
                    enabled: card.p.can_summarize === true && !card.docs.summarizing
                    ToolTip.visible: hovered
                    ToolTip.text: (card.p.summary_warning ? card.p.summary_warning + "\n" : "")
                        + qsTr("Chunk, summarize, merge (Ctrl+Shift+S). Cancel at any point; it resumes where it stopped.")
                    Accessible.description: ToolTip.text
                    onClicked: card.docs.summarize()
                }
            }
        }
    }
}
