// The first run's one screen (an empty data directory: no "welcome_seen" setting yet): what
// kvchat is, where models come from, what the memory panel shows. Not modal and it does not
// take the focus: the message box keeps it, so whatever is typed still goes there. Start,
// Esc (Main.qml) or the first message sent closes it for good.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Popup {
    id: welcome
    // The loaded model's figures, a JS object (read as var: qmllint types a QVariantMap's
    // keys as missing).
    readonly property var modelInfo: Models.modelInfo
    modal: false
    focus: false
    closePolicy: Popup.NoAutoClose
    padding: Theme.spacingL + Theme.spacingXs
    background: Rectangle {
        radius: Theme.radiusL
        color: Theme.surface
        border.color: Theme.border
    }
    function dismiss() { Chat.setUiSetting("welcome_seen", true); close() }
    readonly property var paragraphs: [
        qsTr("kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel on the right shows where the memory goes."),
        // What is loaded now, as the header says it (a load may have failed).
        Models.modelLoading ? qsTr("A model is being loaded; its name appears at the top left when it is ready.")
        : welcome.modelInfo.is_demo === true
        ? qsTr("A small demo model is already loaded. It was trained on the King James Bible and continues verses rather than answering questions: type “Genesis 1”, then Shift+Enter, “1 In the beginning” and Enter.")
        : welcome.modelInfo.display_name
        ? qsTr("%1 is loaded: type a message and press Enter.").arg(welcome.modelInfo.display_name)
        : qsTr("No model is loaded yet: open one (below), or pick the demo model under “Recent”."),
        qsTr("Other models: open a GGUF file with “Open model…” (Ctrl+O) or drop one on the window. GGUF files of Llama, Mistral, Qwen, Gemma and Phi models are published on Hugging Face; Q4_K_M files are a good first choice on a CPU."),
        qsTr("The memory panel: the weights (fixed, shared), the KV cache (the keys and values of every token, growing as the conversation lengthens), the formula behind its size, the blocks it grows in, what other KV types would cost, and how many conversations of this length would fit. Each section has a “?” that explains it.")
    ]
    // Never taller than the chat it sits on: its text scrolls (small windows, zoomed type).
    height: Math.min(implicitHeight, (parent ? parent.height : implicitHeight) - 2 * Theme.spacingM)
    contentItem: ScrollView {  // qmllint disable deferred-property-id
        id: scroll
        implicitHeight: column.implicitHeight
        contentWidth: availableWidth
        clip: true
        ColumnLayout {
            id: column
            width: scroll.availableWidth
            spacing: Theme.spacingM
            Label {
                text: qsTr("Welcome to kvchat")
                font.bold: true
                font.pixelSize: Theme.titleSize
                color: Theme.text
            }
            Repeater {
                // A fixed model: the texts change (the model loaded) without the delegates
                // being made again, which Qt 6.4's layouts do not survive during a resize.
                model: 4  // welcome.paragraphs
                Label {
                    required property int index
                    text: welcome.paragraphs[index]
                    textFormat: Text.PlainText  // may hold the model file's name
                    wrapMode: Text.Wrap
                    color: Theme.text
                    Layout.fillWidth: true
                }
            }
            Button {
                objectName: "welcomeStart"
                text: qsTr("Start")
                highlighted: true
                Layout.alignment: Qt.AlignRight
                onClicked: welcome.dismiss()
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Close the welcome (Esc)")
                Accessible.description: ToolTip.text
            }
        }
    }
}
