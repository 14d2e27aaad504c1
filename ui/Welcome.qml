// The first run's one screen (an empty data directory: no "welcome_seen" setting yet): what
// kvchat is, what the model loaded can do (the demo model continues verses; it does not
// follow instructions), two or three chat models of the catalog that fit this computer
// (ModelHub.recommended: size and fit shown, one click downloads and opens one), where
// other models come from, what the memory panel shows. Not modal and it does not take the
// focus: the message box keeps it, so whatever is typed still goes there. Start, Esc
// (Main.qml) or the first message sent closes it for good.
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
    // Whether the memory panel is a drawer (a narrow window: Main.qml's window.narrow)
    // rather than the column on the right: the text says where to find it.
    property bool memoryIsDrawer: false
    // The catalog's chat models that fit this computer, smallest first (JS objects).
    readonly property var recommended: ModelHub.recommended
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
    // The free memory now, not when the app started.
    onOpened: ModelHub.refreshRecommended()

    // What is loaded now, as the header says it (a load may have failed), and what it can do.
    readonly property string modelParagraph: Models.modelLoading
        ? qsTr("A model is being loaded; its name appears at the top left when it is ready.")
        : welcome.modelInfo.is_demo === true
        ? qsTr("A small demo model is loaded. Trained on the King James Bible, it continues verses: type “Genesis 1”, then Shift+Enter, “1 In the beginning” and Enter. It does not follow instructions: it cannot answer questions or summarize (asked to, it writes more scripture). For that, download a chat model below.")
        : !welcome.modelInfo.display_name
        ? qsTr("No model is loaded yet: download one below, or open one with the model button at the top left (Ctrl+O): it lists your models, the recent ones and the demo model.")
        : welcome.modelInfo.instruction_tuned === false
        ? qsTr("%1 is loaded. Its file has no chat template: it continues text rather than following instructions, so it will not answer questions or summarize. A chat model (below) does.").arg(welcome.modelInfo.display_name)
        : qsTr("%1 is loaded: type a message and press Enter.").arg(welcome.modelInfo.display_name)
    // The recommendations' heading text, or why there are none.
    readonly property string recommendedParagraph: ModelHub.catalog.length === 0
        ? qsTr("The catalog of models could not be read: open a GGUF file you have with the model button at the top left (Ctrl+O).")
        : welcome.recommended.length === 0
        ? qsTr("No chat model of the catalog fits the free memory now (%1). Close other programs, or open a smaller GGUF file with the model button at the top left (Ctrl+O).").arg(ModelHub.formatBytes(ModelHub.recommendedFreeBytes))
        : ModelHub.offlineNotice.length > 0
        ? qsTr("The Hub cannot be reached now, so nothing can be downloaded: open a GGUF file you have with the model button at the top left (Ctrl+O). These chat models fit this computer once it is online:")
        : qsTr("Chat models that fit this computer, smallest first: one click downloads the file (its SHA-256 checked) and opens it. The download goes on if this closes; the Models page (Ctrl+Shift+M) shows it and lists more.")
    readonly property var paragraphs: [
        welcome.memoryIsDrawer
        ? qsTr("kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel (the Memory button at the top right, or Ctrl+M) shows where the memory goes.")
        : qsTr("kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel on the right shows where the memory goes."),
        welcome.modelParagraph,
        welcome.recommendedParagraph,
        qsTr("Other models: the model button at the top left (Ctrl+O) lists yours with what each takes in memory, and opens any GGUF file; or drop one on the window. GGUF files of Llama, Mistral, Qwen, Gemma and Phi models are published on Hugging Face; Q4_K_M files are a good first choice on a CPU."),
        qsTr("The memory panel: the weights (fixed, shared), the KV cache (the keys and values of every token, growing as the conversation lengthens), the formula behind its size, the blocks it grows in, what other KV types would cost, and how many conversations of this length would fit. Each section has a “?” that explains it.")
    ]

    // One paragraph of the text.
    component Paragraph: Label {
        textFormat: Text.PlainText  // may hold the model file's name
        wrapMode: Text.Wrap
        color: Theme.text
        Layout.fillWidth: true
    }

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
            // Fixed delegates: the texts change (the model loaded, the window's width) without
            // the items being made again, which Qt 6.4's layouts do not survive during a resize.
            Paragraph { text: welcome.paragraphs[0] }
            Paragraph { text: welcome.paragraphs[1] }
            Label {
                text: qsTr("Recommended for this computer")
                font.bold: true
                color: Theme.text
            }
            Paragraph { objectName: "welcomeRecommendedText"; text: welcome.paragraphs[2] }
            Repeater {
                model: 3  // at most three recommendations (ModelsPageController::recommended)
                WelcomeRecommendation {
                    required property int index
                    entry: index < welcome.recommended.length ? welcome.recommended[index] : ({})
                    visible: index < welcome.recommended.length
                    Layout.fillWidth: true
                }
            }
            Paragraph { text: welcome.paragraphs[3] }
            Paragraph { text: welcome.paragraphs[4] }
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
