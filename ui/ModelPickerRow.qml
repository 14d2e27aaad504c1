// One row of the model picker's list (ModelPicker.qml): "Open file…", a section's title
// (My models, Recent), the line an empty section shows, or a model file with its name, file,
// size and quantization, and whether it fits. Every line wraps: nothing is cut.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ItemDelegate {
    id: row
    required property var modelData
    required property int index
    required property ListView listView
    required property var owner  // the ModelPicker (its choose, fitLine)
    readonly property string kind: modelData.kind
    readonly property var entry: modelData.entry || ({})
    readonly property bool selectable: kind === "open" || kind === "model"
    readonly property bool current: listView.currentIndex === index && selectable
    width: listView.width
    focusPolicy: Qt.NoFocus
    hoverEnabled: selectable
    highlighted: current
    topPadding: kind === "section" ? Theme.spacingS : Theme.spacingXs
    bottomPadding: Theme.spacingXs
    Accessible.name: title.text
    Accessible.description: detail.text + " " + fit.text
    onClicked: if (selectable) { listView.currentIndex = index; owner.choose(index) }
    background: Rectangle {
        color: row.current ? Theme.selection : row.hovered ? Theme.surfaceAlt : "transparent"
        radius: Theme.radiusS
        border.color: row.current && row.listView.activeFocus ? Theme.focusRing : "transparent"
    }
    contentItem: ColumnLayout {  // qmllint disable deferred-property-id
        spacing: 0
        Label {
            id: title
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            font.bold: row.kind !== "empty"
            font.pixelSize: row.kind === "section" ? Theme.smallSize : Theme.fontSize
            color: row.kind === "section" || row.kind === "empty" ? Theme.textMuted : Theme.text
            text: row.kind === "open" ? qsTr("Open file…")
                : row.kind === "model" ? row.entry.name + (row.entry.loaded ? qsTr(" (loaded)") : "")
                : row.modelData.title
        }
        Label {
            id: detail
            visible: row.kind === "open" || row.kind === "model"
            Layout.fillWidth: true
            wrapMode: Text.WrapAnywhere
            textFormat: Text.PlainText
            font.pixelSize: Theme.smallSize
            color: Theme.textMuted
            text: row.kind === "open" ? qsTr("A GGUF model anywhere on this computer; its load options come next.")
                : [row.entry.file_name, row.entry.size_text, row.entry.quantization].filter(s => !!s).join("  ·  ")
        }
        Label {
            id: fit
            visible: row.kind === "model"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            font.pixelSize: Theme.smallSize
            color: row.entry.fit_state === "done" && row.entry.fit.runnable && row.entry.fit.fits ? Theme.success : Theme.warning
            text: row.kind === "model" ? row.owner.fitLine(row.entry) : ""
        }
    }
}
