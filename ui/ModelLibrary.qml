// My models (issue 26), a tab of the Models page: every model file on this computer that
// kvchat knows of (the data directory's models/ and the models opened before), each with
// its name, architecture, quantization, size, trained context, when it was last used and
// "will it fit?" at the page's context and KV type (ModelsPage.fitSummary); a file that
// cannot be read says why instead. Up / Down choose a row, Enter opens it (like Ctrl+O),
// Delete removes it from disk after a confirmation naming the file and its size (refused
// for the loaded model); each row also has Open, Show in folder and Remove buttons.
// kvchat deletes only its own files, those in its models folder (issue 43): a file kept
// elsewhere, or the demo model, is offered Forget instead (off the recent list, left on
// disk), and Delete on it asks whether to forget it, saying why it is not deleted.
// File names, model names and reasons are shown as plain text.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: lib
    property var page          // the ModelsPage (its fitSummary, close)
    property var library: Library
    spacing: Theme.spacingS

    function focusList() { list.forceActiveFocus() }
    function currentEntry() {
        var e = library.entries
        return list.currentIndex >= 0 && list.currentIndex < e.length ? e[list.currentIndex] : null
    }
    function openEntry(entry) {
        if (!entry || entry.error) return
        library.open(entry.path)
        page.close()
    }
    // Off the recent list is all that can be done to a file not kvchat's, listed because it
    // was opened (one in the models folder, even through a link, stays listed).
    function forgettable(entry) {
        return !entry.owned && !entry.in_models_dir && entry.recent_rank >= 0
    }
    function askRemove(entry) {
        if (!entry) return
        var problem = library.removalProblem(entry.path)
        confirm.forgetting = lib.forgettable(entry)
        if (problem.length > 0 && !confirm.forgetting) { refusal.text = problem; refusal.visible = true; return }
        refusal.visible = false
        confirm.reason = problem
        confirm.path = entry.path
        confirm.fileName = entry.file_name
        confirm.sizeText = entry.size_text
        confirm.open()
    }
    // For the UI state file (e2e): the confirmation as shown.
    function confirmState() {
        return { "visible": confirm.visible, "text": confirmText.text, "focus_on_remove": removeButton.activeFocus,
                 "forgetting": confirm.forgetting,
                 "current_index": list.currentIndex, "list_focus": list.activeFocus,
                 "refusal": refusal.visible ? refusal.text : "" }
    }
    function factsText(e) {
        if (e.error) return qsTr("Cannot be read: %1").arg(e.error)
        return qsTr("%1 · %2 · %3 · trained on %4 tokens")
            .arg(e.architecture || qsTr("unknown architecture"))
            .arg(e.quantization || "–")
            .arg(e.size_text)
            .arg(e.n_ctx_train > 0 ? Number(e.n_ctx_train).toLocaleString(Qt.locale(), 'f', 0) : "–")
    }

    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        opacity: 0.8
        font.pixelSize: Theme.smallSize
        textFormat: Text.PlainText
        text: qsTr("The model files in %1 and the models opened before. ↑ ↓ choose, Enter opens, Delete removes a file of that folder from disk or takes another off the list.")
            .arg(lib.library.modelsDir)
    }
    Label {
        visible: lib.library.message.length > 0
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        text: lib.library.message
    }
    Label {
        id: refusal
        objectName: "libraryRefusal"
        visible: false
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        color: "#c0392b"
        textFormat: Text.PlainText
    }
    Label {
        visible: lib.library.entries.length === 0
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        text: qsTr("No model files yet: download one from the Hub tab, or open one with Ctrl+O.")
    }
    ListView {
        id: list
        objectName: "modelLibraryList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        spacing: Theme.spacingXs
        focus: true
        activeFocusOnTab: true
        keyNavigationEnabled: true
        model: lib.library.entries
        Accessible.role: Accessible.List
        Accessible.name: qsTr("My models")
        Keys.onReturnPressed: lib.openEntry(lib.currentEntry())
        Keys.onEnterPressed: lib.openEntry(lib.currentEntry())
        Keys.onDeletePressed: lib.askRemove(lib.currentEntry())
        onCountChanged: if (currentIndex >= count) currentIndex = count - 1
        delegate: Frame {
            id: row
            required property var modelData
            required property int index
            width: ListView.view.width
            Accessible.name: row.modelData.name
            background: Rectangle {
                color: row.index === list.currentIndex ? Qt.rgba(0.19, 0.55, 0.78, list.activeFocus ? 0.2 : 0.1) : "transparent"
                border.color: row.index === list.currentIndex && list.activeFocus ? Theme.accent : Qt.rgba(0.5, 0.5, 0.5, 0.4)
                radius: Theme.radiusS
            }
            TapHandler { onTapped: { list.currentIndex = row.index; list.forceActiveFocus() } }
            RowLayout {
                width: parent.width
                spacing: Theme.spacingS
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spacingXs
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        font.bold: true
                        textFormat: Text.PlainText
                        text: row.modelData.name + (row.modelData.loaded ? qsTr(" (loaded)") : "")
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        textFormat: Text.PlainText
                        color: row.modelData.error ? "#b36b00" : row.palette.text
                        text: lib.factsText(row.modelData)
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        visible: !row.modelData.error
                        textFormat: Text.PlainText
                        color: row.modelData.fit_state === "done" && row.modelData.fit.runnable && row.modelData.fit.fits ? "#2e7d32" : "#b36b00"
                        text: lib.page ? lib.page.fitSummary(row.modelData) : ""
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.WrapAnywhere
                        opacity: 0.7
                        font.pixelSize: Theme.smallSize
                        textFormat: Text.PlainText
                        text: qsTr("Last used: %1 · %2").arg(row.modelData.last_used_text).arg(row.modelData.path)
                    }
                }
                Button {
                    text: qsTr("Open")
                    enabled: !row.modelData.error && !row.modelData.loaded
                    onClicked: lib.openEntry(row.modelData)
                }
                Button {
                    text: qsTr("Show in folder")
                    onClicked: lib.library.showInFolder(row.modelData.path)
                }
                Button {
                    visible: row.modelData.owned
                    text: qsTr("Remove from disk…")
                    onClicked: { list.currentIndex = row.index; lib.askRemove(row.modelData) }
                }
                Button {
                    visible: lib.forgettable(row.modelData)
                    text: qsTr("Forget")
                    Accessible.description: qsTr("Takes it off the list; the file stays on disk.")
                    onClicked: { list.currentIndex = row.index; lib.library.forget(row.modelData.path) }
                }
            }
        }
    }

    // The confirmation: the file and its size named; the focus starts on Cancel. For a
    // file kvchat does not own (forgetting), why it is not deleted and Forget instead.
    Dialog {
        id: confirm
        objectName: "removeModelDialog"
        property string path
        property string fileName
        property string sizeText
        property bool forgetting: false
        property string reason
        parent: Overlay.overlay
        anchors.centerIn: parent
        modal: true
        width: Math.min(Theme.px(520), parent ? parent.width - Theme.px(40) : Theme.px(520))
        title: confirm.forgetting ? qsTr("Forget this model?") : qsTr("Remove from disk?")
        onOpened: cancelButton.forceActiveFocus()
        onClosed: list.forceActiveFocus()
        contentItem: ColumnLayout {  // qmllint disable deferred-property-id
            spacing: Theme.spacingM
            Label {
                id: confirmText
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                text: confirm.forgetting
                    ? confirm.reason + "\n" + qsTr("Forget takes %1 off the list; the file stays on disk.").arg(confirm.fileName)
                    : qsTr("Remove %1 (%2) from disk? The file is deleted; this cannot be undone.")
                        .arg(confirm.fileName).arg(confirm.sizeText)
            }
            RowLayout {
                Layout.alignment: Qt.AlignRight
                Button {
                    id: removeButton
                    text: confirm.forgetting ? qsTr("Forget") : qsTr("Remove from disk")
                    KeyNavigation.tab: cancelButton
                    KeyNavigation.backtab: cancelButton
                    Keys.onReturnPressed: clicked()
                    Keys.onEnterPressed: clicked()
                    onClicked: {
                        confirm.close()
                        if (confirm.forgetting) lib.library.forget(confirm.path)
                        else lib.library.remove(confirm.path)
                    }
                }
                Button {
                    id: cancelButton
                    text: qsTr("Cancel")
                    KeyNavigation.tab: removeButton
                    KeyNavigation.backtab: removeButton
                    Keys.onReturnPressed: clicked()
                    Keys.onEnterPressed: clicked()
                    onClicked: confirm.close()
                }
            }
        }
    }
}
