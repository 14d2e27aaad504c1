// Models page → Remote (issue 48): models served elsewhere through the OpenAI API — vLLM,
// llama.cpp's server, Ollama, LM Studio, another kvchat. Add an endpoint (its base URL and
// an optional API key, kept in the system keyring when one answers, else in a file only
// you can read, and said which); its /v1/models are listed and each opens like a file.
// Keyboard: the URL field has the focus when the tab opens; Enter adds; once its models
// are listed the first one's Open has the focus.
// Every text from an endpoint (model ids, its error messages) is shown as plain text.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ScrollView {
    id: remote
    objectName: "remoteModels"
    contentWidth: availableWidth
    property string addError: ""
    property string focusAfterListing: ""  // the endpoint just added: its first Open gets the focus

    function focusForm() {
        Remote.listUnlisted()
        urlField.forceActiveFocus()
    }
    function add() {
        addError = Remote.addEndpoint(nameField.text, urlField.text, keyField.text)
        if (addError.length === 0) {
            var list = Remote.endpoints
            focusAfterListing = list.length > 0 ? list[list.length - 1].id : ""
            nameField.text = ""; urlField.text = ""; keyField.text = ""
        }
    }
    function keyPlaceText(place) {
        if (place === "keyring") return qsTr("API key in the system keyring")
        if (place === "file") return qsTr("API key in %1, readable only by you (no keyring answered)").arg(Remote.keyFile)
        return qsTr("no API key")
    }
    // The endpoints as shown (for the end-to-end tests).
    function testState() {
        return { "add_error": addError, "endpoints": endpointRepeater.count }
    }

    ColumnLayout {
        width: remote.availableWidth
        spacing: 10

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("A model served elsewhere — vLLM, llama.cpp's server, Ollama, LM Studio or another kvchat — through the OpenAI API. Its replies stream into this window like a local model's; its engine's memory shows in the memory panel where it publishes it. The API key goes only to the address given: redirects are not followed.")
        }
        Label {
            visible: Remote.fileError.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.error
            textFormat: Text.PlainText
            text: Remote.fileError
        }
        GridLayout {
            columns: 2
            Layout.fillWidth: true
            Label { text: qsTr("Address") }
            TextField {
                id: urlField
                objectName: "remoteUrlField"
                Layout.fillWidth: true
                placeholderText: "http://gpu-box:8000/v1"
                onAccepted: remote.add()
                Accessible.name: qsTr("The endpoint's base URL")
            }
            Label { text: qsTr("API key") }
            TextField {
                id: keyField
                objectName: "remoteKeyField"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: qsTr("optional")
                onAccepted: remote.add()
                ToolTip.visible: hovered
                ToolTip.text: Remote.keyringEnabled
                    ? qsTr("Kept in the system keyring; where none answers, in %1 (readable only by you).").arg(Remote.keyFile)
                    : qsTr("Kept in %1, readable only by you.").arg(Remote.keyFile)
            }
            Label { text: qsTr("Name") }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: nameField
                    objectName: "remoteNameField"
                    Layout.fillWidth: true
                    placeholderText: qsTr("optional: the host's name")
                    onAccepted: remote.add()
                }
                Button {
                    objectName: "remoteAddButton"
                    text: qsTr("Add endpoint")
                    enabled: urlField.text.trim().length > 0
                    onClicked: remote.add()
                }
            }
        }
        Label {
            objectName: "remoteAddError"
            visible: remote.addError.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.error
            textFormat: Text.PlainText
            text: remote.addError
        }
        Repeater {
            id: endpointRepeater
            model: Remote.endpoints
            delegate: Frame {
                id: endpointItem
                required property var modelData
                Layout.fillWidth: true
                ColumnLayout {
                    anchors.left: parent.left
                    anchors.right: parent.right
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        Label {
                            font.bold: true
                            textFormat: Text.PlainText
                            text: endpointItem.modelData.name
                        }
                        Label {
                            Layout.fillWidth: true
                            elide: Label.ElideRight
                            opacity: 0.7
                            textFormat: Text.PlainText
                            text: endpointItem.modelData.url + " · " + remote.keyPlaceText(endpointItem.modelData.key)
                        }
                        Button {
                            text: qsTr("Refresh")
                            onClicked: Remote.refresh(endpointItem.modelData.id)
                        }
                        Button {
                            text: qsTr("Remove")
                            onClicked: Remote.removeEndpoint(endpointItem.modelData.id)
                        }
                    }
                    Label {
                        visible: endpointItem.modelData.key_in_clear
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        color: Theme.warning
                        text: qsTr("The API key goes unencrypted (http://) to a host that is not this computer: use https:// where the endpoint offers it.")
                    }
                    Label {
                        visible: endpointItem.modelData.state === "listing"
                        text: qsTr("Listing its models…")
                    }
                    Label {
                        visible: endpointItem.modelData.message.length > 0
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        color: endpointItem.modelData.state === "failed" ? Theme.error : Theme.textMuted
                        textFormat: Text.PlainText
                        text: endpointItem.modelData.message
                    }
                    Repeater {
                        model: endpointItem.modelData.models
                        delegate: RowLayout {
                            id: modelRow
                            required property var modelData
                            required property int index
                            Layout.fillWidth: true
                            Label {
                                Layout.fillWidth: true
                                elide: Label.ElideRight
                                textFormat: Text.PlainText
                                text: modelRow.modelData.id
                                    + (modelRow.modelData.context_length > 0
                                       ? "  ·  " + qsTr("context %1 tokens").arg(Theme.num(modelRow.modelData.context_length)) : "")
                            }
                            Button {
                                id: openButton
                                objectName: "remoteOpenButton"
                                text: modelRow.modelData.loaded ? qsTr("Loaded") : qsTr("Open")
                                enabled: !modelRow.modelData.loaded && !Models.modelLoading
                                onClicked: Models.loadModel(modelRow.modelData.path)
                                Keys.onReturnPressed: clicked()
                                Component.onCompleted: {
                                    if (modelRow.index === 0 && remote.focusAfterListing === endpointItem.modelData.id) {
                                        remote.focusAfterListing = ""
                                        forceActiveFocus()
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
