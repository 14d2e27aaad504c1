// One message: the user's text exactly as typed (plain text: "# x" stays "# x"); a reply's
// reasoning (<think>…</think>) in a "Thinking" block above it, open while the model thinks,
// folded once the answer starts (its tokens, time and KV said on its header), kept open
// when the reply ended with no answer ("No answer yet", how it ended, Continue); a reply
// as Markdown with its code blocks on their own background, with the fence's language and
// a copy button; its state (stopped, cut at the length limit, interrupted by the app's end —
// Continue; interrupted — Regenerate too), the seed it was
// sampled with (Regenerate with this seed), its branches (‹ 2/3 › under any message that
// has siblings: an edited message, a regenerated reply; it switches the branch that
// follows it), Regenerate on an earlier reply (a new branch), per-message stats,
// copy and edit actions. Edit (or Up in the empty message box) edits a user message in
// place: Enter resends, Shift+Enter is a newline, Esc cancels. A long message (or
// reasoning) is shown a page of at most 4,096 characters at a time (PageSwitch): the
// bubble never lays out more, so a 50 MiB message cannot hold up the window; Copy copies
// all of it, from the model (chat.messages), not through a text field: what the bubble shows
// (the answer; the reasoning of a reply that has no answer).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Item {
    id: bubble
    // The roles of ChatView's message list (required: qmllint sees them, and Qt sets them by
    // name). The row's state is read as model.state: a required "state" would hide Item's.
    required property var model
    required property int index
    required property string role
    required property var stats
    required property var saved
    required property int version
    required property int versionCount
    required property var segments
    required property string thinking  // the page shown of it
    required property int thinkingPage
    required property int thinkingPageCount
    required property real thinkingLength
    required property real answerLength
    required property int page
    required property int pageCount
    required property bool answerMissing  // finished with reasoning and no answer
    required property string shownText  // the page shown of the answer (a user's text)
    required property var toolSteps  // a reply's tool calls (app/tools/tool_steps.h)
    property bool isUser: bubble.role === "user"
    // A document sent whole: shown folded (its first lines) until expanded.
    readonly property bool isDocument: isUser && bubble.stats && bubble.stats.document_tokens !== undefined && !bubble.stats.summary_request
    readonly property bool isSummary: !isUser && bubble.stats && bubble.stats.summary_job_id !== undefined
    readonly property bool isLast: ListView.view ? bubble.index === ListView.view.count - 1 : false
    readonly property string stopReason: bubble.stats && bubble.stats.stop_reason !== undefined ? bubble.stats.stop_reason : ""
    readonly property bool wasStopped: !isUser && stopReason === "cancelled"
    readonly property bool wasCut: !isUser && stopReason === "max-tokens"
    readonly property bool hasSeed: !isUser && bubble.stats && bubble.stats.seed !== undefined
    // Cut off by the app's end (killed, or closed while it was written): stored as
    // "interrupted" with no stop reason (and no error) in its stats.
    readonly property bool wasInterrupted: !isUser && bubble.model.state === "interrupted" && stopReason === ""
                                           && !(bubble.stats && bubble.stats.error !== undefined)
    // (Not a reply stopped among its tool calls with no answer yet: the next message goes on.)
    readonly property bool canContinue: isLast && (wasCut || wasStopped || wasInterrupted) && !Chat.generating && bubble.model.state !== "streaming"
                                        && !(bubble.toolSteps.length > 0 && bubble.answerLength === 0)
    // A reply without a seed to regenerate with (an interrupted one) is offered a plain Regenerate.
    readonly property bool canRegenerate: isLast && wasInterrupted && !hasSeed && !Chat.generating
    // What the reply's buttons offer (the end-to-end tests read the last one's).
    function offeredActions() {
        var out = []
        // (qmllint 6.4 types this [] as void*)
        if (canContinue) out.push("continue")  // qmllint disable type
        if (canRegenerate) out.push("regenerate")
        if (hasSeed && isLast && !Chat.generating) out.push("regenerate_with_seed")
        return out
    }
    property bool documentExpanded: false
    // The Thinking block: open while only reasoning has come, folded once the answer starts,
    // open still when the reply ended with no answer (the reasoning is all it has),
    // unless the user opened or folded it (thinkingToggled: their choice stands).
    readonly property bool hasThinking: !isUser && bubble.thinking.length > 0
    readonly property bool thinkingNow: bubble.model.state === "streaming" && bubble.answerLength === 0
    property bool thinkingToggled: false
    property bool thinkingChoice: false
    readonly property bool thinkingOpen: thinkingToggled ? thinkingChoice : (thinkingNow || bubble.answerMissing)
    function toggleThinking() {
        bubble.thinkingChoice = !bubble.thinkingOpen
        bubble.thinkingToggled = true
    }
    function thinkingSummary() {
        if (bubble.thinkingNow) return qsTr("Thinking…")
        var s = bubble.stats
        if (!s || s.thinking_tokens === undefined) return qsTr("Thinking")
        var line = qsTr("Thought for %1 s · %2 tokens").arg(Number(s.thinking_seconds || 0).toLocaleString(Qt.locale(), 'f', 1))
                                                       .arg(Theme.num(s.thinking_tokens))
        if (s.thinking_kv_bytes !== undefined) line += qsTr(" · %1 of KV").arg(Chat.formatBytes(s.thinking_kv_bytes))
        if (s.thinking_closed === false) line += qsTr(" · not finished")
        return line
    }
    // A reply that ended while still reasoning: how it ended, in words true to its stop reason.
    function noAnswerText() {
        if (bubble.wasCut) return qsTr("No answer yet: the reply reached the length limit while still reasoning.")
        if (bubble.stopReason === "context-full") return qsTr("No answer yet: the context filled up while the model was still reasoning.")
        if (bubble.wasStopped) return qsTr("No answer yet: the reply was stopped while still reasoning.")
        if (bubble.wasInterrupted) return qsTr("No answer yet: the app closed while the model was still reasoning.")
        return qsTr("No answer yet: the reply ended while still reasoning.")
    }
    // Edited in place: the list holds which row (one at a time: ChatView's editingRow).
    // (index >= 0: a bubble the list let go of has index -1, the row of no edit.)
    readonly property bool editing: isUser && bubble.index >= 0 && !!ListView.view && ListView.view.editingRow === bubble.index  // qmllint disable type
    readonly property alias editText: editField.text
    readonly property alias editCursor: editField.cursorPosition
    readonly property bool canResend: editing && !Chat.generating && editField.text.trim().length > 0
    // Edited in place up to this length (a text field lays out all it holds).
    readonly property int editMaxChars: 65536
    readonly property bool tooLongToEdit: bubble.answerLength > bubble.editMaxChars
    property bool editRefused: false
    implicitHeight: column.implicitHeight + 16

    // The list starts, resends and cancels the edit (ChatView.qml): it outlives this bubble,
    // which a resend replaces, and gives the focus back to the message box.
    // (qmllint: ListView.view is ChatView's list, whose functions it does not see)
    function startEdit() { if (ListView.view) ListView.view.startEdit(bubble.index) }  // qmllint disable type
    function cancelEdit() { if (ListView.view) ListView.view.cancelEdit() }  // qmllint disable type
    function resend() { if (bubble.canResend && ListView.view) ListView.view.resendEdit(bubble.index, editField.text) }  // qmllint disable type
    // The edit field after a refused resend: the text as it was being edited.
    function restoreEdit(text) { editField.text = text; editField.cursorPosition = editField.length }
    function focusEditor() {
        if (!bubble.editing) return
        editField.forceActiveFocus(Qt.OtherFocusReason)
        editField.cursorPosition = editField.length
    }
    onEditingChanged: {
        if (!editing) return
        // Never a text field of a giant text (its layout would hold the window for minutes).
        if (bubble.tooLongToEdit) {
            bubble.editRefused = true
            if (ListView.view) ListView.view.cancelEdit()  // qmllint disable type
            return
        }
        // The text as stored, whole (a folded document, every page).
        editField.text = Chat.messages.textOf(bubble.index, "content")
        editField.cursorPosition = editField.length
        // Once the field is shown. (qmllint 6.4 takes Qt.callLater for a QJSValue property; it
        // is a method.)
        Qt.callLater(bubble.focusEditor)  // qmllint disable type
    }

    // Chat text keeps its line breaks: every newline becomes a Markdown hard break (a
    // single newline is otherwise a soft break). Code blocks are split off before this.
    function markdown(text) {
        return text.replace(/([^\n])\n(?!\n)/g, "$1  \n")
    }
    function reportShown() {
        if (UiTestState.enabled && bubble.isUser) UiTestState.noteShownText(bubble.index, userBody.getText(0, userBody.length))
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
                    ? qsTr("Document “%1” · %2 tokens, sent whole (its KV stays in the cache)").arg(bubble.stats.document_name).arg(Theme.num(bubble.stats.document_tokens))
                    : bubble.isSummary
                      ? qsTr("Summary from %1 partial summaries, %2 merge level(s)%3 · %4 tokens evaluated · %5 s")
                          .arg(Theme.num(bubble.stats.summary_partials)).arg(Theme.num(bubble.stats.summary_levels))
                          .arg(bubble.stats.summary_resumed > 0 ? qsTr(", resumed after %1").arg(Theme.num(bubble.stats.summary_resumed)) : "")
                          .arg(Theme.num(bubble.stats.tokens_evaluated)).arg(Number(bubble.stats.seconds || 0).toLocaleString(Qt.locale(), 'f', 1))
                      : ""
            }
            // The user's text, as typed.
            TextEdit {
                id: userBody
                visible: bubble.isUser && !bubble.editing
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                font.pixelSize: Theme.fontSize  // a TextEdit does not inherit the window's (zoomed) font
                textFormat: TextEdit.PlainText
                text: !bubble.isUser ? ""
                    : bubble.isDocument && !bubble.documentExpanded && bubble.answerLength > 600 ? bubble.shownText.substring(0, 600) + " …"
                    : bubble.shownText
                color: Theme.text
                Accessible.role: Accessible.StaticText
                Accessible.name: text
                onTextChanged: bubble.reportShown()
                Component.onCompleted: bubble.reportShown()
            }
            // The user's text being edited: Enter resends, Shift+Enter is a newline (as in
            // the message box), Esc cancels; Tab leaves for the buttons.
            Rectangle {
                visible: bubble.editing
                Layout.fillWidth: true
                implicitHeight: editField.implicitHeight
                radius: Theme.radiusS
                color: Theme.window
                border.color: editField.activeFocus ? Theme.focusRing : Theme.border
                border.width: editField.activeFocus ? 2 : 1
                TextArea {
                    id: editField
                    objectName: "editMessageField"
                    anchors.fill: parent
                    wrapMode: TextArea.Wrap
                    textFormat: TextEdit.PlainText
                    font.pixelSize: Theme.fontSize  // a TextArea does not inherit the window's (zoomed) font
                    background: null
                    Accessible.name: qsTr("Edited message")
                    Accessible.description: qsTr("Enter resends, Shift+Enter starts a new line, Esc cancels")
                    Keys.onReturnPressed: (event) => {
                        if (event.modifiers & Qt.ShiftModifier) { event.accepted = false; return }
                        bubble.resend()
                    }
                    Keys.onEnterPressed: (event) => bubble.resend()
                    // Esc is the field's while it has the focus, not the window's shortcut
                    // (that stops a reply or closes a drawer).
                    Keys.onShortcutOverride: (event) => { event.accepted = event.key === Qt.Key_Escape }
                    Keys.onEscapePressed: (event) => bubble.cancelEdit()
                    Keys.onTabPressed: (event) => {
                        if (event.modifiers & Qt.ControlModifier) { editField.insert(editField.cursorPosition, "\t"); return }
                        var next = editField.nextItemInFocusChain(true)
                        if (next) next.forceActiveFocus(Qt.TabFocusReason)
                    }
                    Keys.onBacktabPressed: (event) => {
                        var previous = editField.nextItemInFocusChain(false)
                        if (previous) previous.forceActiveFocus(Qt.BacktabFocusReason)
                    }
                }
            }
            RowLayout {
                visible: bubble.editing
                Layout.alignment: Qt.AlignRight
                spacing: Theme.spacingS
                Button {
                    objectName: "editResendButton"
                    text: qsTr("Save && resend")  // "&&": a literal "&", not a mnemonic
                    highlighted: true
                    enabled: bubble.canResend
                    font.pixelSize: Theme.smallSize
                    Accessible.name: qsTr("Save and resend the edited message")
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Resend the edited message; the replies after it are replaced (Enter)")
                    onClicked: bubble.resend()
                }
                Button {
                    objectName: "editCancelButton"
                    text: qsTr("Cancel")
                    font.pixelSize: Theme.smallSize
                    Accessible.name: qsTr("Cancel the edit")
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Keep the message as it was (Esc)")
                    onClicked: bubble.cancelEdit()
                }
            }
            // The reply's reasoning: a header that opens and folds it, its text in plain type.
            Rectangle {
                objectName: "thinkingBlock"
                visible: bubble.hasThinking
                Layout.fillWidth: true
                implicitHeight: thinkingColumn.implicitHeight
                radius: Theme.radiusS
                color: Theme.codeBackground
                border.color: Theme.border
                ColumnLayout {
                    id: thinkingColumn
                    anchors.left: parent.left
                    anchors.right: parent.right
                    spacing: 0
                    ToolButton {
                        objectName: "thinkingToggle"
                        Layout.fillWidth: true
                        contentItem: Label {
                            text: (bubble.thinkingOpen ? "▾ " : "▸ ") + bubble.thinkingSummary()
                            font.pixelSize: Theme.smallSize
                            color: Theme.textMuted
                            elide: Text.ElideRight
                            horizontalAlignment: Text.AlignLeft
                        }
                        Accessible.name: bubble.thinkingOpen ? qsTr("Fold the model's reasoning") : qsTr("Show the model's reasoning")
                        Accessible.description: bubble.thinkingSummary()
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("The model's reasoning before its answer (Ctrl+Shift+T opens or folds the last one's). Templates that leave it out of later turns (Qwen 3, DeepSeek-R1) free its KV at the next message.")
                        onClicked: bubble.toggleThinking()
                    }
                    TextEdit {
                        objectName: "thinkingText"
                        visible: bubble.thinkingOpen
                        Layout.fillWidth: true
                        Layout.margins: 8
                        Layout.topMargin: 0
                        readOnly: true
                        selectByMouse: true
                        wrapMode: TextEdit.Wrap
                        textFormat: TextEdit.PlainText
                        font.pixelSize: Theme.smallSize
                        font.italic: true
                        text: bubble.thinkingOpen ? bubble.thinking : ""
                        color: Theme.textMuted
                    }
                    PageSwitch {
                        visible: bubble.thinkingOpen && count > 1
                        Layout.leftMargin: 8
                        page: bubble.thinkingPage
                        count: bubble.thinkingPageCount
                        length: bubble.thinkingLength
                        onPageRequested: (page) => Chat.messages.showThinkingPage(bubble.index, page)
                    }
                }
            }
            // A reply's tool calls, each with its result (and the consent it waits for).
            ToolCallBlocks {
                steps: bubble.isUser ? [] : bubble.toolSteps
                isLast: bubble.isLast
            }
            // A reply: prose as Markdown, code blocks on their own.
            Label {
                visible: !bubble.isUser && bubble.answerLength === 0 && !bubble.hasThinking
                         && (bubble.toolSteps.length === 0 || bubble.model.state === "streaming")
                text: bubble.model.state === "streaming" ? "…" : ""
            }
            Repeater {
                model: bubble.isUser ? [] : bubble.segments
                delegate: ColumnLayout {
                    id: segment
                    required property var modelData
                    readonly property bool isCode: modelData.kind === "code"
                    Layout.fillWidth: true
                    spacing: 0
                    TextEdit {
                        visible: !segment.isCode
                        Layout.fillWidth: true
                        readOnly: true
                        selectByMouse: true
                        wrapMode: TextEdit.Wrap
                        font.pixelSize: Theme.fontSize
                        textFormat: TextEdit.MarkdownText
                        text: segment.isCode ? "" : bubble.markdown(segment.modelData.text)
                        color: Theme.text
                        onLinkActivated: (link) => Qt.openUrlExternally(link)
                    }
                    Rectangle {
                        visible: segment.isCode
                        Layout.fillWidth: true
                        Layout.topMargin: 4
                        Layout.bottomMargin: 4
                        implicitHeight: codeColumn.implicitHeight
                        radius: Theme.radiusS
                        color: Theme.codeBackground
                        border.color: Theme.border
                        ColumnLayout {
                            id: codeColumn
                            anchors.left: parent.left
                            anchors.right: parent.right
                            spacing: 0
                            RowLayout {
                                Layout.fillWidth: true
                                Layout.leftMargin: 8
                                Label {
                                    Layout.fillWidth: true
                                    text: (segment.modelData.language || qsTr("code")) + (segment.modelData.continued ? qsTr(" (continued)") : "")
                                    font.pixelSize: Theme.smallSize
                                    color: Theme.textMuted
                                }
                                ToolButton {
                                    text: qsTr("Copy code")
                                    font.pixelSize: Theme.smallSize
                                    Accessible.name: qsTr("Copy the %1 code").arg(segment.modelData.language || qsTr("code"))
                                    // The whole block, on every page it spans.
                                    onClicked: Chat.messages.copyCode(bubble.index, segment.modelData.index)
                                }
                            }
                            TextEdit {
                                Layout.fillWidth: true
                                Layout.margins: 8
                                Layout.topMargin: 0
                                readOnly: true
                                selectByMouse: true
                                wrapMode: TextEdit.WrapAtWordBoundaryOrAnywhere
                                textFormat: TextEdit.PlainText
                                font.family: Theme.monoFamily
                                font.pixelSize: Theme.fontSize
                                text: segment.isCode ? segment.modelData.text : ""
                                color: Theme.text
                            }
                        }
                    }
                }
            }
            // A message longer than a page: which page, the others a click away.
            PageSwitch {
                objectName: "messagePages"
                visible: count > 1 && (!bubble.isDocument || bubble.documentExpanded) && !bubble.editing
                page: bubble.page
                count: bubble.pageCount
                length: bubble.answerLength
                onPageRequested: (page) => Chat.messages.showPage(bubble.index, page)
            }
            Label {
                visible: bubble.editRefused && bubble.tooLongToEdit
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.warning
                text: qsTr("This message is too long to edit here (%1 characters; up to %2 can be). Copy it, shorten it, and send it as a new message.")
                          .arg(Theme.num(bubble.answerLength)).arg(Theme.num(bubble.editMaxChars))
            }
            PartialSummaries {
                visible: bubble.isSummary
                Layout.fillWidth: true
                jobId: bubble.isSummary ? bubble.stats.summary_job_id : 0
                count: bubble.isSummary ? bubble.stats.summary_partials : 0
            }
            // How the reply ended when it did not end by itself, or with no answer (then right
            // under its reasoning: there is no answer between them).
            RowLayout {
                visible: bubble.wasStopped || bubble.wasCut || bubble.wasInterrupted || bubble.answerMissing
                spacing: 8
                Layout.fillWidth: true
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pixelSize: Theme.smallSize
                    font.italic: true
                    color: Theme.warning
                    text: bubble.answerMissing ? bubble.noAnswerText()
                        : bubble.wasCut ? qsTr("cut at the length limit")
                        : bubble.wasStopped ? qsTr("stopped")
                        : qsTr("interrupted: the app closed while this reply was written")
                }
                Button {
                    visible: bubble.canContinue
                    text: qsTr("Continue")
                    font.pixelSize: Theme.smallSize
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Write more of this reply (Ctrl+Shift+E)")
                    onClicked: Chat.continueReply()
                }
                Button {
                    visible: bubble.canRegenerate
                    text: qsTr("Regenerate")
                    font.pixelSize: Theme.smallSize
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Write this reply again, as a new version (Ctrl+R)")
                    onClicked: Chat.regenerate()
                }
            }
            // Tokens, speed and the seed the reply was sampled with.
            Label {
                Layout.fillWidth: true
                visible: text.length > 0
                wrapMode: Text.Wrap
                font.pixelSize: Theme.smallSize
                color: Theme.textMuted
                text: (bubble.model.state === "interrupted" && !bubble.wasStopped && !bubble.wasInterrupted) ? qsTr("interrupted")
                    : (bubble.stats && bubble.stats.generated_tokens !== undefined)
                      ? qsTr("%1 tokens · first token %2 ms · %3 tok/s · %4 evaluated")
                          .arg(Theme.num(bubble.stats.generated_tokens)).arg(Theme.num(Math.round(bubble.stats.ttft_ms)))
                          .arg(Number(bubble.stats.tokens_per_second).toLocaleString(Qt.locale(), 'f', 1)).arg(Theme.num(bubble.stats.evaluated_tokens))
                        + (bubble.hasSeed ? qsTr(" · seed %1").arg(String(bubble.stats.seed)) : "")
                        + (bubble.stats.continue_seed !== undefined ? qsTr(", continued with seed %1").arg(String(bubble.stats.continue_seed)) : "")
                      : ""
                ToolTip.visible: statsHover.hovered && text.length > 0
                ToolTip.text: text + (bubble.hasSeed ? "\n" + qsTr("Sampled with seed %1: “Regenerate with this seed” writes the same text again (same settings and model).").arg(String(bubble.stats.seed)) : "")
                HoverHandler { id: statsHover }
            }
            RowLayout {
                spacing: 8
                Layout.fillWidth: true
                ToolButton {
                    visible: bubble.isDocument && bubble.answerLength > 600
                    text: bubble.documentExpanded ? qsTr("Fold") : qsTr("Show all %1 characters").arg(Theme.num(bubble.answerLength))
                    font.pixelSize: Theme.smallSize
                    onClicked: bubble.documentExpanded = !bubble.documentExpanded
                }
                // The message's branches: ‹ 2/3 › switches it and what follows it.
                RowLayout {
                    objectName: "branchSwitch"
                    visible: bubble.versionCount > 1
                    spacing: 0
                    ToolButton {
                        text: "‹"
                        enabled: !Chat.generating && bubble.version > 0
                        Accessible.name: qsTr("Previous branch")
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("Previous branch (Alt+Left switches the last message that has branches)")
                        onClicked: Chat.selectVersion(bubble.index, bubble.version - 1)
                    }
                    Label {
                        objectName: "versionLabel"
                        font.pixelSize: Theme.smallSize
                        text: qsTr("%1/%2").arg(bubble.version + 1).arg(bubble.versionCount)
                        Accessible.name: qsTr("Branch %1 of %2").arg(bubble.version + 1).arg(bubble.versionCount)
                    }
                    ToolButton {
                        text: "›"
                        enabled: !Chat.generating && bubble.version < bubble.versionCount - 1
                        Accessible.name: qsTr("Next branch")
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("Next branch (Alt+Right switches the last message that has branches)")
                        onClicked: Chat.selectVersion(bubble.index, bubble.version + 1)
                    }
                }
                Label {
                    // The store refused it (disk full, I/O error): kept here, saved with the next change.
                    visible: bubble.saved === false
                    font.pixelSize: Theme.smallSize
                    color: Theme.error
                    text: qsTr("not saved")
                }
                Item { Layout.fillWidth: true }
                ToolButton {
                    objectName: "regenerateBranchButton"
                    visible: !bubble.isUser && !bubble.isLast && !Chat.generating && !bubble.isSummary
                    text: qsTr("Regenerate")
                    font.pixelSize: Theme.smallSize
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Write this reply again as a new branch: the messages after it stay on the other branch (‹ ›)")
                    onClicked: Chat.regenerateMessage(bubble.index)
                }
                ToolButton {
                    visible: bubble.hasSeed && bubble.isLast && !Chat.generating
                    text: qsTr("Regenerate with this seed")
                    font.pixelSize: Theme.smallSize
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("A new version sampled with seed %1").arg(bubble.hasSeed ? String(bubble.stats.seed) : "")
                    onClicked: Chat.regenerateWithSeed(bubble.stats.seed)
                }
                ToolButton {
                    text: qsTr("Copy")
                    font.pixelSize: Theme.smallSize
                    ToolTip.visible: hovered && bubble.hasThinking
                    ToolTip.text: bubble.answerMissing || bubble.thinkingNow ? qsTr("Copies the reasoning (there is no answer yet)")
                                                                              : qsTr("Copies the answer (not the reasoning)")
                    // What the bubble shows: the answer, or the reasoning of a reply with none.
                    onClicked: Chat.messages.copy(bubble.index, "shown")
                }
                ToolButton {
                    objectName: "editButton"
                    visible: bubble.isUser && !Chat.generating && !bubble.editing
                    text: qsTr("Edit")
                    font.pixelSize: Theme.smallSize
                    Accessible.name: qsTr("Edit your message")
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Edit here and resend (Up in the empty message box edits the last one)")
                    onClicked: bubble.startEdit()
                }
            }
        }
    }
}
