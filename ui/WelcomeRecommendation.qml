// One of the welcome's recommended chat models (ModelHub.recommended): its name, download
// size and fit on this computer, and one button that downloads it (ModelHub.downloadCatalogFile:
// the Hub's file tree gives the exact size and SHA-256) and opens it once verified, or opens
// it at once when it is already in the models directory. While it downloads: its progress.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

RowLayout {
    id: row
    // The recommendation (a JS object: name, parameters, quant, size_text, fit_text,
    // downloaded, download_status, download_id, download_done, download_total,
    // download_message, repo, file).
    property var entry: ({})
    readonly property string status: row.entry.download_status || ""
    readonly property bool busy: row.status === "starting" || row.status === "running"
                                 || row.status === "waiting" || row.status === "verifying"
    spacing: Theme.spacingS

    ColumnLayout {
        Layout.fillWidth: true
        spacing: 2
        Label {
            Layout.fillWidth: true
            textFormat: Text.PlainText
            elide: Text.ElideRight
            font.bold: true
            color: Theme.text
            text: qsTr("%1 (%2, %3)").arg(row.entry.name || "").arg(row.entry.parameters || "").arg(row.entry.quant || "")
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            color: Theme.textMuted
            text: qsTr("%1 download · %2").arg(row.entry.size_text || "").arg(row.entry.fit_text || "")
        }
        ProgressBar {
            visible: row.status === "running" || row.status === "waiting" || row.status === "verifying"
            Layout.fillWidth: true
            palette.highlight: Theme.accent
            from: 0
            to: Math.max(row.entry.download_total || 0, 1)
            value: row.entry.download_done || 0
            Accessible.name: qsTr("Downloading %1").arg(row.entry.name || "")
        }
        Label {
            visible: text.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText  // a message from the network
            font.pixelSize: Theme.smallSize
            color: row.status === "failed" ? Theme.error : Theme.textMuted
            text: row.status === "starting" ? qsTr("Looking up the file on the Hub…")
                : row.status === "running" || row.status === "waiting"
                ? qsTr("Downloading: %1 of %2").arg(ModelHub.formatBytes(row.entry.download_done || 0)).arg(ModelHub.formatBytes(row.entry.download_total || 0))
                : row.status === "verifying" ? qsTr("Checking the SHA-256…")
                : row.status === "paused" ? qsTr("Paused: the button resumes it.")
                : row.status === "failed" ? (row.entry.download_message || qsTr("The download failed."))
                : row.status === "done" ? qsTr("Downloaded and verified: it is opened.")
                : ""
        }
    }
    Button {
        objectName: "welcomeDownload"
        Layout.alignment: Qt.AlignTop
        enabled: !row.busy
        text: row.entry.downloaded === true ? qsTr("Open")
            : row.status === "paused" ? qsTr("Resume and open")
            : row.status === "failed" ? qsTr("Try again")
            : qsTr("Download and open")
        Accessible.name: text + " " + (row.entry.name || "")
        ToolTip.visible: hovered
        ToolTip.text: row.entry.downloaded === true ? qsTr("Already downloaded: open it now.")
            : qsTr("Download it (%1) from the Hugging Face Hub into the models folder, then open it.").arg(row.entry.size_text || "")
        onClicked: {
            if (row.entry.downloaded !== true && row.status === "paused" && row.entry.download_id > 0)
                ModelHub.resume(row.entry.download_id)
            else
                ModelHub.downloadCatalogFile(row.entry.repo, row.entry.file)
        }
    }
}
