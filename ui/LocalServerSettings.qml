// Settings → Local server: the loaded model over an OpenAI-compatible HTTP API, for
// editors, scripts and other tools (localServer: app/server/local_server_controller.h).
// Off by default; 127.0.0.1 (this machine only) unless another address is typed. The
// switch applies at once; changed fields apply with "Restart" while it runs.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: root
    spacing: 6
    function applyWith(on) {
        LocalServer.apply(on, host.text, port.value, key.text, parallel.value, allowNoKey.checked)
    }
    function copy(text) {
        clipboardHelper.text = text
        clipboardHelper.selectAll()
        clipboardHelper.copy()
        clipboardHelper.text = ""
    }
    TextEdit { id: clipboardHelper; visible: false; textFormat: TextEdit.PlainText }
    function focusSwitch() { serverSwitch.forceActiveFocus(Qt.TabFocusReason) }

    Label { text: qsTr("Local server"); font.bold: true }
    RowLayout {
        Layout.fillWidth: true
        // Drawn in the theme's colours: Fusion's switch was barely visible in the dark theme.
        ThemedSwitch {
            id: serverSwitch
            objectName: "localServerSwitch"
            Accessible.name: qsTr("Serve the loaded model to other programs (OpenAI API)")
            checked: LocalServer.enabled
            onToggled: root.applyWith(checked)
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Serve the loaded model to other programs (OpenAI API)")
        }
    }
    GridLayout {
        columns: 2
        Layout.fillWidth: true
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("address") }
        TextField { id: host; objectName: "localServerHost"; Layout.fillWidth: true; text: LocalServer.host
                    Accessible.name: qsTr("Server address") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("port") }
        SpinBox { id: port; objectName: "localServerPort"; from: 1; to: 65535; editable: true; value: LocalServer.port
                  textFromValue: (v) => String(v); valueFromText: (t) => parseInt(t) || 8080
                  Accessible.name: qsTr("Server port") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("sessions at once") }
        SpinBox { id: parallel; from: 1; to: 64; editable: true; value: LocalServer.parallel
                  Accessible.name: qsTr("Sessions at once") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("API key") }
        RowLayout {
            Layout.fillWidth: true
            TextField { id: key; objectName: "localServerKey"; Layout.fillWidth: true; text: LocalServer.apiKey
                        placeholderText: qsTr("none"); Accessible.name: qsTr("API key") }
            Button { text: qsTr("New"); onClicked: key.text = LocalServer.generateKey()
                     ToolTip.visible: hovered; ToolTip.text: qsTr("A new random key") }
        }
    }
    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.error
        visible: !LocalServer.isLoopback(host.text)
        text: qsTr("⚠ Other machines on the network can reach this address. Set an API key.")
    }
    // Beyond loopback without a key the server refuses to start unless this is ticked.
    CheckBox {
        id: allowNoKey
        objectName: "localServerAllowNoKey"
        Layout.fillWidth: true
        visible: !LocalServer.isLoopback(host.text) && key.text.trim().length === 0
        checked: LocalServer.allowNoKey
        text: qsTr("Serve without a key anyway: anyone on the network can use the model and read what it is asked")
        Accessible.name: text
    }
    Label {
        objectName: "localServerStatus"
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        font.pixelSize: Theme.smallSize
        color: LocalServer.error.length > 0 ? Theme.error : Theme.text
        text: LocalServer.running
              ? qsTr("Serving %1 at %2%3").arg(LocalServer.modelId).arg(LocalServer.url)
                .arg(LocalServer.apiKey.length > 0 ? qsTr(" (key required)") : "")
              : LocalServer.error.length > 0 ? "✕ " + LocalServer.error
              : qsTr("Off.")
    }
    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        font.pixelSize: Theme.smallSize
        font.family: "monospace"
        visible: LocalServer.running
        text: "curl " + LocalServer.url + "/models"
              + (LocalServer.apiKey.length > 0 ? " -H 'Authorization: Bearer " + LocalServer.apiKey + "'" : "")
    }
    RowLayout {
        visible: LocalServer.running
        Button { text: qsTr("Copy URL"); onClicked: root.copy(LocalServer.url) }
        Button { text: qsTr("Copy key"); visible: LocalServer.apiKey.length > 0; onClicked: root.copy(LocalServer.apiKey) }
        Button {
            text: qsTr("Restart")
            enabled: host.text !== LocalServer.host || port.value !== LocalServer.port
                     || key.text !== LocalServer.apiKey || parallel.value !== LocalServer.parallel
                     || allowNoKey.checked !== LocalServer.allowNoKey
            onClicked: root.applyWith(true)
        }
    }
}
