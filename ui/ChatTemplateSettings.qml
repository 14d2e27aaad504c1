// The loaded model's chat template: which one is in use and why, the template text, an
// override kept for this model file (a built-in format or Jinja of your own), and for a
// template with reasoning its enable_thinking switch (Qwen 3's), kept per file too.
// Applied at once, as everything in Settings but the engine (issue 43): a choice of the
// file's template or a built-in one a moment after it is made (the arrow keys walk through
// the list without applying each), custom Jinja with "Use this template" once it is
// written; a running local server restarts with the new template (the status line says so).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: root
    // The "In use" line as shown (for the end-to-end tests).
    readonly property string inUseText: inUse.text
    property var info: Models.modelInfo
    readonly property var builtIns: ["completion", "llama2", "llama3", "chatml", "zephyr", "mistral", "gemma"]
    // Choices: the file's own template, each built-in format, custom Jinja.
    readonly property var choices: [qsTr("The model file's template"), ...builtIns.map(n => qsTr("Built-in: ") + n), qsTr("Custom (Jinja)")]
    function choiceIndex() {
        var o = root.info.chat_template_override || ""
        if (o === "") return 0
        if (o.startsWith("builtin:")) return 1 + Math.max(0, builtIns.indexOf(o.substring(8)))
        return choices.length - 1
    }
    function overrideFor(index) {
        if (index === 0) return ""
        if (index <= builtIns.length) return "builtin:" + builtIns[index - 1]
        return templateText.text
    }
    function overrideText() { return root.overrideFor(choice.currentIndex) }
    readonly property bool customChosen: choice.currentIndex === root.choices.length - 1
    // The choice made (not custom Jinja), applied unless it is the one in force.
    function applyPendingChoice() {
        choicePause.stop()
        if (!root.info.path || root.customChosen) return
        if (root.overrideText() !== (root.info.chat_template_override || "")) Models.setChatTemplateOverride(root.overrideText())
    }
    Timer { id: choicePause; interval: 600; onTriggered: root.applyPendingChoice() }
    spacing: 6

    Label { text: qsTr("Chat template"); font.bold: true }
    Label {
        id: inUse
        objectName: "chatFormatDescription"
        textFormat: Text.PlainText  // names the file's template
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: root.info.chat_format_description ? qsTr("In use: ") + root.info.chat_format_description : qsTr("Load a model to see its chat template.")
    }
    // The override is kept per model file, like the settings around it; while another
    // model's settings are shown (its load failed), it is the loaded model's that is set here.
    Label {
        objectName: "chatTemplateModel"
        textFormat: Text.PlainText  // a file name
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        visible: !!root.info.path
        text: Models.settingsModel === root.info.path
              ? qsTr("Kept for this model file.")
              : qsTr("For the loaded model, %1 (kept for that file).").arg((root.info.path || "").split("/").pop())
    }
    ComboBox {
        id: choice
        Accessible.name: qsTr("Chat template")
        Layout.fillWidth: true
        enabled: !!root.info.path
        model: root.choices
        currentIndex: root.choiceIndex()
        onActivated: choicePause.restart()
    }
    Label {
        objectName: "chatTemplateApplyNote"
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: root.customChosen
              ? qsTr("Write the template, then “Use this template”. A running local server restarts with it.")
              : qsTr("A choice applies at once. A running local server restarts with it.")
    }
    ScrollView {
        Layout.fillWidth: true
        Layout.preferredHeight: 140
        visible: choice.currentIndex === 0 || choice.currentIndex === root.choices.length - 1
        TextArea {
            id: templateText
            Accessible.name: qsTr("Chat template")
            // Tab moves on (a keyboard user is not trapped in the text).
            Keys.onTabPressed: (event) => nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
            Keys.onBacktabPressed: (event) => nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
            font.family: "monospace"
            font.pixelSize: Theme.smallSize
            wrapMode: TextArea.WrapAnywhere
            readOnly: choice.currentIndex === 0
            placeholderText: choice.currentIndex === 0 ? qsTr("(the file has no chat template)") : qsTr("{% for m in messages %}…{% endfor %}")
            background: FieldBackground { control: templateText }
            text: choice.currentIndex === 0 ? (root.info.chat_template || "")
                : ((root.info.chat_template_override || "").startsWith("builtin:") ? (root.info.chat_template || "") : (root.info.chat_template_override || root.info.chat_template || ""))
        }
    }
    Button {
        objectName: "useChatTemplate"
        text: qsTr("Use this template")
        visible: root.customChosen
        enabled: !!root.info.path && root.overrideText() !== (root.info.chat_template_override || "")
        onClicked: Models.setChatTemplateOverride(root.overrideText())
    }
    // enable_thinking: passed to the template only when set (else its own default applies).
    RowLayout {
        visible: !!root.info.chat_declares_thinking
        Layout.fillWidth: true
        spacing: Theme.spacingS
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Thinking (the template's enable_thinking)")
        }
        ComboBox {
            id: thinkingChoice
            objectName: "enableThinkingChoice"
            readonly property var modes: ["", "on", "off"]
            Accessible.name: qsTr("Thinking")
            model: [qsTr("Template's default"), qsTr("On"), qsTr("Off")]
            currentIndex: Math.max(0, modes.indexOf(root.info.chat_enable_thinking || ""))
            onActivated: (index) => Models.setEnableThinking(modes[index])
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Off asks the template for an answer without reasoning (Qwen 3 writes an empty <think></think> into the prompt)")
        }
    }
}
