// A summary job: progress with its stage and ETA, Cancel (Esc); a cancelled, failed or
// interrupted job offers Resume (Ctrl+Shift+R), which keeps the partial summaries done.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Frame {
    id: view
    property var docs: Chat.documents
    property var j: docs.job
    // This conversation's job is the one running (another conversation's may run meanwhile).
    readonly property bool running: docs.jobRunning
    readonly property bool resumable: !running && (j.status === "cancelled" || j.status === "failed" || j.status === "interrupted")
    visible: j.id !== undefined
    function clock(s) {
        s = Math.max(0, Math.round(s || 0))
        var m = Math.floor(s / 60), r = s % 60
        return m + ":" + (r < 10 ? "0" : "") + r
    }

    background: Rectangle {
        radius: 6
        color: Theme.warningBackground
        border.color: Theme.border
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 3
        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "summaryTitle"
                Layout.fillWidth: true
                elide: Label.ElideRight
                font.bold: true
                text: view.running ? qsTr("Summarizing “%1”").arg(view.j.name || "")
                    : view.j.status === "done" ? qsTr("Summary of “%1” written").arg(view.j.name || "")
                    : view.j.status === "interrupted" ? qsTr("Summary of “%1” was interrupted").arg(view.j.name || "")
                    : view.j.status === "failed" ? qsTr("Summary of “%1” failed").arg(view.j.name || "")
                    : qsTr("Summary of “%1” cancelled").arg(view.j.name || "")
            }
            Button {
                visible: view.running
                text: view.j.status === "cancelling" ? qsTr("Cancelling…") : qsTr("Cancel")
                enabled: view.j.status !== "cancelling"
                onClicked: view.docs.cancelSummary()
            }
            Button {
                visible: view.resumable
                text: qsTr("Resume")
                highlighted: true
                enabled: !Chat.generating && !view.docs.summarizing
                ToolTip.visible: hovered && view.docs.summarizing
                ToolTip.text: qsTr("Another summary is being written: one job runs at a time.")
                onClicked: view.docs.resume()
            }
            ToolButton { visible: !view.running; text: "✕"; onClicked: view.docs.dismissJob() }
        }
        ProgressBar {
            palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
            Layout.fillWidth: true
            from: 0
            to: Math.max(1, view.j.steps_total || 0)
            value: view.j.status === "done" ? to : (view.j.steps_done || 0)
            indeterminate: view.running && !(view.j.steps_total > 0)
        }
        Label {
            objectName: "summaryStage"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            text: {
                var parts = []
                if (view.j.stage) parts.push(view.j.stage)
                if (view.j.steps_total > 0) parts.push(qsTr("%1 of about %2 summaries").arg(view.j.steps_done || 0).arg(view.j.steps_total))
                if (view.running && view.j.seconds_left > 0) parts.push(qsTr("about %1 left").arg(view.clock(view.j.seconds_left)))
                if (view.running && view.j.seconds_elapsed > 0) parts.push(qsTr("%1 elapsed").arg(view.clock(view.j.seconds_elapsed)))
                if (view.j.resumed > 0) parts.push(qsTr("%1 kept from before").arg(view.j.resumed))
                if (view.j.status === "done" && view.j.seconds > 0) parts.push(qsTr("took %1").arg(view.clock(view.j.seconds)))
                return parts.join(" · ")
            }
        }
        Label {
            visible: (view.j.plan_text || "").length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            color: Theme.textMuted  // secondary text, contrast-checked (was an opacity)
            text: qsTr("Plan: %1").arg(view.j.plan_text || "")
        }
    }
}
