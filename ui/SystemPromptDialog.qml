// The system prompt library's dialog (opened from Settings, beside the system prompt):
// "save" a text as a new named prompt (the open conversation then uses it), "edit" a saved
// prompt's name and text (and choose which conversations get the new text), or "delete"
// one (the conversations that use it keep their text). A name that is empty or taken is
// said under the field as it is typed, and Save is refused. Keyboard: the name field has
// the focus, Tab moves on (out of the text too), Enter in the name saves, Esc cancels.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Dialog {
    id: dialog
    objectName: "systemPromptDialog"
    // "save", "edit" or "delete".
    property string mode: "save"
    property var promptId: 0
    // Said when the store refused (the controller's lastError), until the next change.
    property string refusal: ""
    readonly property int usedBy: (SystemPrompts.prompts, SystemPrompts.usedBy(dialog.promptId))
    readonly property bool openUsesIt: SystemPrompts.currentPromptId === dialog.promptId && dialog.promptId > 0
    readonly property string problem: mode === "delete" ? ""
        : (SystemPrompts.prompts, SystemPrompts.nameProblem(nameField.text, mode === "edit" ? promptId : 0))
    // "all", "current" or "none": what an edit's new text goes to.
    readonly property string applyTo: applyAll.checked ? "all" : (applyCurrent.checked ? "current" : "none")

    title: mode === "save" ? qsTr("Save as a new system prompt")
         : mode === "edit" ? qsTr("Edit the saved system prompt")
         : qsTr("Delete the saved system prompt")
    modal: true
    focus: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(Theme.px(520), (Overlay.overlay ? Overlay.overlay.width : Theme.px(520)) - 40)

    // Opens the dialog: "save" with `text` (the box's), "edit" / "delete" for prompt `id`.
    function openFor(kind, id, text) {
        mode = kind
        promptId = id
        refusal = ""
        var p = Array.from(SystemPrompts.prompts).find(x => x.id === id)
        nameField.text = kind === "save" ? "" : (p ? p.name : "")
        textField.text = kind === "save" ? text : (p ? p.text : "")
        // An edit goes to every conversation that uses it when one does, else to none.
        applyAll.checked = true
        open()
    }
    function save() {
        if (mode === "delete") {
            if (SystemPrompts.remove(promptId)) close()
            else refusal = SystemPrompts.lastError
            return
        }
        if (problem.length > 0) { nameField.forceActiveFocus(); return }
        var ok = mode === "save" ? SystemPrompts.saveAs(nameField.text, textField.text) > 0
                                 : SystemPrompts.edit(promptId, nameField.text, textField.text, applyTo)
        if (ok) close()
        else refusal = SystemPrompts.lastError
    }
    onOpened: {
        if (mode === "delete") deleteButton.forceActiveFocus()
        else { nameField.forceActiveFocus(); nameField.selectAll() }
    }

    footer: DialogButtonBox {
        Button {
            id: deleteButton
            objectName: "systemPromptDialogAccept"
            text: dialog.mode === "delete" ? qsTr("Delete") : qsTr("Save")
            Accessible.name: dialog.mode === "delete" ? qsTr("Delete the saved prompt") : qsTr("Save the prompt")
            enabled: dialog.problem.length === 0
            onClicked: dialog.save()
            Keys.onReturnPressed: dialog.save()
            Keys.onEnterPressed: dialog.save()
        }
        Button {
            text: qsTr("Cancel")
            Accessible.name: qsTr("Cancel")
            onClicked: dialog.close()
            Keys.onReturnPressed: dialog.close()
            Keys.onEnterPressed: dialog.close()
        }
    }

    ColumnLayout {
        width: dialog.availableWidth
        spacing: Theme.spacingS

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: dialog.mode === "delete"
            color: Theme.text
            text: {
                var p = Array.from(SystemPrompts.prompts).find(x => x.id === dialog.promptId)
                var name = p ? p.name : ""
                return dialog.usedBy > 0
                    ? qsTr("Delete “%1”? The %n conversation(s) that use it keep their text.", "", dialog.usedBy).arg(name)
                    : qsTr("Delete “%1”? No conversation uses it.").arg(name)
            }
        }

        Label { visible: dialog.mode !== "delete"; text: qsTr("Name"); color: Theme.text }
        TextField {
            id: nameField
            objectName: "systemPromptName"
            visible: dialog.mode !== "delete"
            Layout.fillWidth: true
            Accessible.name: qsTr("Prompt name")
            placeholderText: qsTr("For example: Code reviewer")
            onTextChanged: dialog.refusal = ""
            onAccepted: dialog.save()
        }
        Label {
            objectName: "systemPromptProblem"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            color: Theme.error
            // An empty name is said only once something was typed (the Save button waits).
            text: dialog.refusal.length > 0 ? dialog.refusal
                : (nameField.text.length > 0 || dialog.mode === "edit" ? dialog.problem : "")
            visible: text.length > 0
        }

        Label { visible: dialog.mode !== "delete"; text: qsTr("Text"); color: Theme.text }
        ScrollView {
            visible: dialog.mode !== "delete"
            Layout.fillWidth: true
            Layout.preferredHeight: Theme.px(140)
            TextArea {
                id: textField
                objectName: "systemPromptText"
                Accessible.name: qsTr("Prompt text")
                wrapMode: TextArea.Wrap
                placeholderText: qsTr("Instructions the model reads before every conversation that uses this prompt")
                onTextChanged: dialog.refusal = ""
                // Tab moves on (a keyboard user is not trapped in the text).
                Keys.onTabPressed: (event) => nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                Keys.onBacktabPressed: (event) => nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
            }
        }

        // An edit: which conversations get the new text.
        Label {
            visible: dialog.mode === "edit"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.text
            text: qsTr("Apply the new text to")
        }
        ButtonGroup { id: applyGroup }
        RadioButton {
            id: applyAll
            objectName: "applyToAll"
            visible: dialog.mode === "edit"
            Layout.fillWidth: true
            ButtonGroup.group: applyGroup
            text: qsTr("Every conversation that uses it (%n)", "", dialog.usedBy)
            Accessible.name: text
        }
        RadioButton {
            id: applyCurrent
            objectName: "applyToCurrent"
            visible: dialog.mode === "edit"
            Layout.fillWidth: true
            ButtonGroup.group: applyGroup
            text: dialog.openUsesIt ? qsTr("Only this conversation") : qsTr("Only this conversation (it then uses this prompt)")
            Accessible.name: text
        }
        RadioButton {
            id: applyNone
            objectName: "applyToNone"
            visible: dialog.mode === "edit"
            Layout.fillWidth: true
            ButtonGroup.group: applyGroup
            text: qsTr("No conversation: they keep their text")
            Accessible.name: text
        }
    }
}
