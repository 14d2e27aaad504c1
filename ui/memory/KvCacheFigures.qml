// The KV cache's size as its formula with this model's numbers, its figures (used,
// allocated, per token, per layer, peak), and a document's share of it.
// A section of the memory panel (MemoryPanel.qml), on its figures (panel.m, panel.info).
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

    // The formula with this model's numbers.
    SectionHeader {
        text: qsTr("KV cache")
        help: qsTr("To write each new token the model looks back at every earlier token through its key and value vectors. Keeping them (the KV cache) instead of computing them again turns work that grows with the square of the length into a lookup, at a price in memory that grows with every token: 2 (K and V) × layers × tokens × KV heads × head size × bytes per value. The line below is this model's formula with its numbers.")
    }
    Label {
        objectName: "kvFormula"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.WrapAtWordBoundaryOrAnywhere
        font.family: "monospace"
        text: qsTr("2 × %1 layers × %2 tokens × %3 KV heads × %4 values per head × %5 bytes (%6)\n= %7 bytes (%8)")
              .arg(Theme.num(section.info.n_layers)).arg(Theme.num(section.m.kv_tokens)).arg(Theme.num(section.info.n_kv_heads)).arg(Theme.num(section.info.head_dim))
              .arg(section.panel.kvTypeBytes(section.m.kv_type)).arg(section.m.kv_type || "f16")
              .arg(Number(section.m.kv_bytes_without_window || section.m.kv_used_bytes || 0).toLocaleString(Qt.locale(), 'f', 0))
              .arg(section.panel.fmt(section.m.kv_bytes_without_window || section.m.kv_used_bytes))
    }
    // Sliding-window layers (gemma2/3) free the rows that fall out of their window.
    Label {
        objectName: "kvWindow"
        visible: (section.m.kv_windowed_layers || 0) > 0
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.WordWrap
        text: qsTr("%1 of %2 layers use a %3-token window: %4 freed by the window; without it the KV would be %5")
            .arg(Theme.num(section.m.kv_windowed_layers)).arg(Theme.num(section.info.n_layers))
            .arg(Number(section.m.kv_window || 0).toLocaleString(Qt.locale(), 'f', 0))
            .arg(section.panel.fmt(section.m.kv_window_freed_bytes)).arg(section.panel.fmt(section.m.kv_bytes_without_window))
    }
    // Shared prefix blocks: a prompt that begins like another conversation's (a document,
    // a system prompt) holds those blocks once.
    Label {
        objectName: "kvShared"
        visible: (section.m.kv_shared_bytes || 0) > 0 || (section.m.kv_prefix_hit_tokens || 0) > 0
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.WordWrap
        text: qsTr("%1 of this conversation's KV is shared with another conversation (%2 tokens reused, not evaluated); %3 shared in all")
            .arg(section.panel.fmt(section.m.kv_shared_bytes))
            .arg(Number(section.m.kv_prefix_hit_tokens || 0).toLocaleString(Qt.locale(), 'f', 0))
            .arg(section.panel.fmt(section.m.kv_store_shared_bytes))
    }
    // The figures wrap to the panel's width (a label that does not fill its cell keeps
    // its one-line width and pushes the panel's right edge out when zoomed).
    GridLayout {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        columns: 2
        columnSpacing: 12
        Label { text: qsTr("KV used") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; objectName: "kvUsed"; text: section.panel.fmt(section.m.kv_used_bytes) }
        Label { text: qsTr("KV allocated") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: qsTr("%1  (%2 blocks of %3 tokens)").arg(section.panel.fmt(section.m.kv_allocated_bytes)).arg(section.m.kv_blocks || 0).arg(section.m.kv_block_tokens || 16) }
        Label { text: qsTr("reserved, empty") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: section.panel.fmt((section.m.kv_allocated_bytes || 0) - (section.m.kv_used_bytes || 0)) }
        Label { text: qsTr("per token") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: section.panel.fmt(section.m.kv_bytes_per_token) }
        Label { text: qsTr("per layer") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: section.panel.fmt((section.m.kv_used_bytes || 0) / Math.max(1, section.info.n_layers || 1)) + qsTr(" used in each of %1 layers").arg(section.info.n_layers || 0) }
        Label { text: qsTr("peak") } Label { Layout.fillWidth: true; wrapMode: Text.Wrap; text: section.panel.fmt(section.m.kv_peak_allocated_bytes) + qsTr(" allocated") }
    }

    // A document sent whole: its share of the KV cache.
    ColumnLayout {
        property var d: Chat.documents.sentWhole
        property real docBytes: (d.tokens || 0) * (section.m.kv_bytes_per_token || 0)
        visible: (d.tokens || 0) > 0 && (section.m.kv_tokens || 0) > 0
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        spacing: 2
        Label {
            objectName: "documentShare"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallSize
            text: qsTr("Document “%1”: %2 tokens × %3 = %4, %5% of the KV used (%6)")
                .arg(parent.d.name || "").arg(parent.d.tokens || 0).arg(section.panel.fmt(section.m.kv_bytes_per_token))
                .arg(section.panel.fmt(parent.docBytes))
                .arg(section.m.kv_used_bytes > 0 ? Math.min(100, Math.round(100 * parent.docBytes / section.m.kv_used_bytes)) : 0)
                .arg(section.panel.fmt(section.m.kv_used_bytes))
        }
        Rectangle {
            Layout.fillWidth: true
            height: 10
            color: Theme.chartKvAllocated
            Rectangle {
                height: parent.height
                width: section.m.kv_used_bytes > 0 ? parent.width * Math.min(1, parent.parent.docBytes / section.m.kv_used_bytes) : 0
                color: Theme.chartDocument
            }
        }
    }
}
