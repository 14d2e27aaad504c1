// The engine's memory on one scale (weights, KV used and allocated, scratch), the KV cache on
// its own scale, and the machine's memory (RAM, or the GPU's with CUDA).
// A section of the memory panel (MemoryPanel.qml), on its figures (panel.m, panel.info).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    required property var panel
    readonly property var m: panel.m
    readonly property var info: panel.info
    Layout.fillWidth: true
    spacing: 10
    function machineBarState() {
        return { "label": machineBarLabel.text, "label_visible": machineBarLabel.visible && machineBarLabel.height > 0,
                 "accessible_name": machineBar.Accessible.name }
    }
    FontMetrics { id: fontMetrics; font.pixelSize: Theme.smallSize }

    // Gauge 1: the engine's own bytes, all on one scale.
    SectionHeader {
        text: qsTr("This conversation's engine memory"); bold: false; titleOpacity: 0.8
        help: qsTr("The bar divides the memory this conversation uses. The weights are what the model learned: fixed in size and shared by every conversation. The KV cache is the model's working notes for this conversation, the keys and values of every token so far: it grows with each token. Reserved but empty KV blocks, and scratch buffers for one step of computation, make up the rest. With a large model the KV cache is a sliver of this bar: the bar below shows it on its own scale.")
    }
    Row {
        id: gauge
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        height: 22
        clip: true
        property real total: (section.m.weights_bytes || 0) + (section.m.kv_allocated_bytes || 0) + (section.m.scratch_bytes || 0)
        property var parts: [
            { name: qsTr("weights"), bytes: section.m.weights_bytes || 0, color: Theme.chartWeights },
            { name: qsTr("KV used"), bytes: section.m.kv_used_bytes || 0, color: Theme.chartKvUsed },
            { name: qsTr("KV allocated, empty"), bytes: (section.m.kv_allocated_bytes || 0) - (section.m.kv_used_bytes || 0), color: Theme.chartKvAllocated },
            { name: qsTr("scratch"), bytes: section.m.scratch_bytes || 0, color: Theme.chartScratch }
        ]
        Repeater {
            model: gauge.parts
            Rectangle {
                required property var modelData
                height: gauge.height
                width: gauge.total > 0 ? Math.max(modelData.bytes > 0 ? 2 : 0, gauge.width * modelData.bytes / gauge.total) : 0
                color: modelData.color
            }
        }
    }
    Flow {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        spacing: 10
        Repeater {
            model: gauge.parts
            Row {
                id: legendItem
                required property var modelData
                spacing: 4
                Rectangle { width: 10; height: 10; color: legendItem.modelData.color; anchors.verticalCenter: parent.verticalCenter }
                Label { text: legendItem.modelData.name + " " + section.panel.fmt(legendItem.modelData.bytes); font.pixelSize: Theme.smallSize }
            }
        }
    }
    // The KV cache on its own scale: used and allocated against what the whole
    // context (or the KV budget, when one is set) would take, so growth shows at any
    // model size.
    SectionHeader {
        text: qsTr("KV cache on its own scale"); bold: false; titleOpacity: 0.8
        help: qsTr("The same KV cache as in the bar above, drawn against the most it can take: the whole context at this KV type, or the KV budget set in Settings when that is smaller. Orange is used, light orange reserved but still empty.")
    }
    Rectangle {
        id: kvGauge
        objectName: "kvGauge"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        height: 16
        radius: 2
        color: Theme.chartEmpty
        border.color: Theme.border
        Accessible.role: Accessible.Indicator
        Accessible.name: kvScaleText.text
        property real contextBytes: (section.m.kv_max_tokens || 0) * (section.m.kv_bytes_per_token || 0)
        property bool budgeted: (section.m.kv_budget_bytes || 0) > 0 && section.m.kv_budget_bytes < contextBytes
        property real scale: Math.max(1, budgeted ? section.m.kv_budget_bytes : contextBytes, section.m.kv_allocated_bytes || 0)
        Rectangle {
            height: parent.height; color: Theme.chartKvAllocated; radius: 2
            width: parent.width * Math.min(1, (section.m.kv_allocated_bytes || 0) / kvGauge.scale)
        }
        Rectangle {
            height: parent.height; color: Theme.chartKvUsed; radius: 2
            width: Math.max((section.m.kv_used_bytes || 0) > 0 ? 2 : 0, parent.width * Math.min(1, (section.m.kv_used_bytes || 0) / kvGauge.scale))
        }
    }
    Label {
        id: kvScaleText
        objectName: "kvScaleText"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: qsTr("KV used %1 · allocated %2 · %3 %4 (%5%)")
            .arg(section.panel.fmt(section.m.kv_used_bytes)).arg(section.panel.fmt(section.m.kv_allocated_bytes))
            .arg(kvGauge.budgeted ? qsTr("budget") : qsTr("whole context"))
            .arg(section.panel.fmt(kvGauge.budgeted ? section.m.kv_budget_bytes : kvGauge.contextBytes))
            .arg(kvGauge.scale > 1 ? (100 * (section.m.kv_used_bytes || 0) / kvGauge.scale).toFixed(1) : 0)
    }
    // Gauge 2: against the machine — the GPU's memory when the CUDA backend runs.
    Label {
        objectName: "deviceMemory"
        visible: !!section.m.device_name
        text: qsTr("%1: weights %2 · KV pool %3 · scratch %4 on the device")
            .arg(section.m.device_name || "").arg(section.panel.fmt(section.m.device_weights_bytes)).arg(section.panel.fmt(section.m.device_kv_bytes))
            .arg(section.panel.fmt(section.m.device_scratch_bytes))
        font.pixelSize: Theme.smallSize
        wrapMode: Text.Wrap
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
    }
    // Partial offload: the layers on the GPU, and what each side holds.
    Label {
        objectName: "layerSplit"
        readonly property var split: MemoryState.layerSplit
        visible: split.gpu_layers !== undefined
        text: visible ? qsTr("GPU: %1 of %2 layers · on the GPU: weights %3, KV %4 · on the CPU: weights %5, KV %6")
            .arg(Theme.num(split.gpu_layers)).arg(Theme.num(split.n_layers))
            .arg(section.panel.fmt(split.device_weights_bytes)).arg(section.panel.fmt(split.device_kv_bytes))
            .arg(section.panel.fmt(split.host_weights_bytes)).arg(section.panel.fmt(split.host_kv_bytes)) : ""
        font.pixelSize: Theme.smallSize
        wrapMode: Text.Wrap
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
    }
    Label {
        text: (section.m.device_name ? qsTr("VRAM: %2 free of %3 (all processes) · %1 resident in this process")
                             : qsTr("Machine: %1 resident in this process · %2 available of %3"))
            .arg(section.panel.fmt(section.m.process_resident_bytes)).arg(section.panel.fmt(section.m.system_available_bytes)).arg(section.panel.fmt(section.m.system_total_bytes))
        font.pixelSize: Theme.smallSize
        wrapMode: Text.Wrap
        Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
    }
    // The bar: memory in use by every process (total − available: MemAvailable for
    // RAM, the device's free memory for VRAM) of the total, said in its caption.
    Label {
        id: machineBarLabel
        objectName: "machineBarLabel"
        readonly property real used: (section.m.system_total_bytes || 0) - (section.m.system_available_bytes || 0)
        text: (section.m.device_name ? qsTr("Bar: VRAM in use by all processes, %1 of %2 (%3%)")
                             : qsTr("Bar: RAM in use on this machine by all processes, %1 of %2 (%3%)"))
            .arg(section.panel.fmt(used)).arg(section.panel.fmt(section.m.system_total_bytes))
            .arg((section.m.system_total_bytes || 0) > 0 ? (100 * used / section.m.system_total_bytes).toFixed(0) : 0)
        font.pixelSize: Theme.smallSize
        wrapMode: Text.Wrap
        Layout.preferredHeight: Math.max(implicitHeight, 2 * fontMetrics.height)  // whole, never cut
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
    }
    ProgressBar {
        id: machineBar
        objectName: "machineBar"
        palette.highlight: Theme.accent  // the fill (the window's highlight is the selection tint)
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        from: 0; to: section.m.system_total_bytes || 1
        value: machineBarLabel.used
        Accessible.name: machineBarLabel.text
    }
}
