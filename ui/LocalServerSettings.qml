// Settings → Local server: the loaded model over an OpenAI-compatible HTTP API, for
// editors, scripts and other tools (localServer: app/server/local_server_controller.h).
// Off by default; 127.0.0.1 (this machine only) unless another address is typed. The
// switch applies at once; changed fields apply with "Restart" while it runs.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: root
    spacing: 6
    function applyWith(on) {
        localServer.apply(on, host.text, port.value, key.text, parallel.value, allowNoKey.checked)
    }
    function copy(text) {
        clipboardHelper.text = text
        clipboardHelper.selectAll()
        clipboardHelper.copy()
        clipboardHelper.text = ""
    }
    TextEdit { id: clipboardHelper; visible: false; textFormat: TextEdit.PlainText }

    Label { text: qsTr("Local server"); font.bold: true }
    RowLayout {
        Layout.fillWidth: true
        Switch {
            objectName: "localServerSwitch"
            Accessible.name: qsTr("Serve the loaded model to other programs (OpenAI API)")
            checked: localServer.enabled
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
        TextField { id: host; objectName: "localServerHost"; Layout.fillWidth: true; text: localServer.host
                    Accessible.name: qsTr("Server address") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("port") }
        SpinBox { id: port; objectName: "localServerPort"; from: 1; to: 65535; editable: true; value: localServer.port
                  textFromValue: (v) => String(v); valueFromText: (t) => parseInt(t) || 8080
                  Accessible.name: qsTr("Server port") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("sessions at once") }
        SpinBox { id: parallel; from: 1; to: 64; editable: true; value: localServer.parallel
                  Accessible.name: qsTr("Sessions at once") }
        Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("API key") }
        RowLayout {
            Layout.fillWidth: true
            TextField { id: key; objectName: "localServerKey"; Layout.fillWidth: true; text: localServer.apiKey
                        placeholderText: qsTr("none"); Accessible.name: qsTr("API key") }
            Button { text: qsTr("New"); onClicked: key.text = localServer.generateKey()
                     ToolTip.visible: hovered; ToolTip.text: qsTr("A new random key") }
        }
    }
    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.error
        visible: !localServer.isLoopback(host.text)
        text: qsTr("⚠ Other machines on the network can reach this address. Set an API key.")
    }
    // Beyond loopback without a key the server refuses to start unless this is ticked.
    CheckBox {
        id: allowNoKey
        objectName: "localServerAllowNoKey"
        Layout.fillWidth: true
        visible: !localServer.isLoopback(host.text) && key.text.trim().length === 0
        checked: localServer.allowNoKey
        text: qsTr("Serve without a key anyway: anyone on the network can use the model and read what it is asked")
        Accessible.name: text
    }
    Label {
        objectName: "localServerStatus"
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        font.pixelSize: Theme.smallSize
        color: localServer.error.length > 0 ? Theme.error : Theme.text
        text: localServer.running
              ? qsTr("Serving %1 at %2%3").arg(localServer.modelId).arg(localServer.url)
                .arg(localServer.apiKey.length > 0 ? qsTr(" (key required)") : "")
              : localServer.error.length > 0 ? "✕ " + localServer.error
              : qsTr("Off.")
    }
    Label {
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        font.pixelSize: Theme.smallSize
        font.family: "monospace"
        visible: localServer.running
        text: "curl " + localServer.url + "/models"
              + (localServer.apiKey.length > 0 ? " -H 'Authorization: Bearer " + localServer.apiKey + "'" : "")
    }
    RowLayout {
        visible: localServer.running
        Button { text: qsTr("Copy URL"); onClicked: root.copy(localServer.url) }
        Button { text: qsTr("Copy key"); visible: localServer.apiKey.length > 0; onClicked: root.copy(localServer.apiKey) }
        Button {
            text: qsTr("Restart")
            enabled: host.text !== localServer.host || port.value !== localServer.port
                     || key.text !== localServer.apiKey || parallel.value !== localServer.parallel
                     || allowNoKey.checked !== localServer.allowNoKey
            onClicked: root.applyWith(true)
        }
    }
}
