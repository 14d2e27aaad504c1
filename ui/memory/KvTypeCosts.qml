// What each KV type would cost for this model (bytes per token, the longest context that
// fits, its measured quality), and how many conversations of this length fit.
// A section of the memory panel (MemoryPanel.qml), on its figures (panel.m, panel.info).
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

ColumnLayout {
    id: section
    readonly property var quality: MemoryState.kvQuality  // the measured KL per type, a JS object
    required property var panel
    readonly property var m: panel.m
    readonly property var info: panel.info
    Layout.fillWidth: true
    spacing: 10

    // What if: each KV type for this model.
    SectionHeader {
        text: qsTr("What each KV type would cost")
        help: qsTr("Keys and values can be stored with fewer bits: q8_0 takes about half the memory of f16, q4_0 about a quarter, so a longer context or more conversations fit. The price is accuracy: the quality column shows how far the next-token probabilities move (KL divergence) and how often the most likely token stays the same. The r types (q8_0r, q4_0r) rotate each head before quantizing it (a Walsh–Hadamard transform with fixed random signs), which spreads a few large values over the whole head: same memory, fewer bad positions. A pair such as q8_0/q4_0r types keys and values apart (K/V): keys carry most of the loss, so finer keys with 4-bit values keep most of the quality.")
    }
    GridLayout {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        columns: 4
        columnSpacing: 8
        Label { text: qsTr("type"); font.bold: true }
        Label { text: qsTr("bytes/token"); font.bold: true }
        Label { text: qsTr("max context"); font.bold: true }
        Label {
            text: (section.quality.types || section.info.is_demo === true) ? qsTr("quality*") : qsTr("quality* (demo model's)")
            font.bold: true
            Layout.fillWidth: true
            wrapMode: Text.Wrap
        }
        Repeater {
            // One flat list of cells (4 per row): nested Repeaters inside a layout
            // are not safe in Qt 6.4.
            model: {
                // Measured on the loaded model when that is done, else the demo model's.
                var q = section.quality.types
                function quality(t, demo) {
                    // A type this model cannot use (its head size is not whole blocks).
                    if ((section.quality.unusable || {})[t]) return qsTr("not for this model")
                    if (!q || !q[t]) return demo
                    return qsTr("KL %1, %2%").arg(Number(q[t].mean_kl).toExponential(1))
                                             .arg((100 * q[t].top1_agreement).toFixed(1))
                }
                var rows = [["f32", quality("f32", qsTr("KL 4e-8, 100%"))], ["f16", qsTr("baseline")],
                            ["q8_0", quality("q8_0", qsTr("KL 1.9e-5, 99.75%"))],
                            ["q4_0", quality("q4_0", qsTr("KL 6.0e-3, 95.0%"))],
                            ["q8_0r", quality("q8_0r", qsTr("KL 2.1e-5, 99.80%"))],
                            ["q4_0r", quality("q4_0r", qsTr("KL 4.3e-3, 95.3%"))],
                            ["f16/q8_0", quality("f16/q8_0", qsTr("KL 5.9e-6, 99.85%"))],
                            ["q8_0/q4_0", quality("q8_0/q4_0", qsTr("KL 1.6e-3, 97.1%"))],
                            ["q8_0/q4_0r", quality("q8_0/q4_0r", qsTr("KL 1.3e-3, 97.2%"))]]
                // K and V typed apart in a way not listed: its own row.
                if (rows.every(r => r[0] !== section.panel.kvType) && String(section.panel.kvType).indexOf("/") > 0)
                    rows.push([section.panel.kvType, quality(section.panel.kvType, "")])
                var cells = []
                var current = section.panel.kvType
                for (var i = 0; i < rows.length; ++i) {
                    var t = rows[i][0], bpt = section.panel.perToken(t)
                    cells.push(t + (t === current ? " ●" : ""))
                    cells.push(section.panel.fmt(bpt))
                    cells.push(bpt > 0 ? Math.min(Math.floor(section.panel.available / bpt), section.info.n_ctx_train || 0)
                                         .toLocaleString(Qt.locale(), 'f', 0) + qsTr(" tokens") : "")
                    cells.push(rows[i][1])
                }
                return cells
            }
            // The quality column takes what is left and wraps in it.
            Label {
                required property var modelData
                required property int index
                text: modelData
                font.pixelSize: Theme.smallSize
                Layout.fillWidth: index % 4 === 3
                wrapMode: Text.Wrap
            }
        }
    }
    Label {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: qsTr("max context: what fits in the available RAM, at most the trained context. ")
              + (section.quality.types
                 ? qsTr("*Measured on this model (%1 tokens of a built-in text) against f16 KV: mean KL divergence, top-1 agreement.").arg(Theme.num(section.quality.tokens))
                 : qsTr("*Measured on the demo model against f16 KV: mean KL divergence, top-1 agreement (docs/KV_CACHE.md).")
                   + (section.info.is_demo === true ? "" : qsTr(" Not yet measured on the loaded model: its own figures replace these when they are.")))
    }
    // Last, under its own header: what this conversation's KV means for how many fit.
    SectionHeader {
        visible: section.m.kv_tokens > 0 && section.m.kv_allocated_bytes > 0
        text: qsTr("How many conversations fit"); pixelSize: Theme.smallSize; bold: false
        help: qsTr("Every conversation needs a KV cache of its own while the weights are shared. So the memory one conversation takes at this length decides how many can be held side by side: the same arithmetic limits how many people a server can answer at once, and why shorter contexts or smaller KV types let more fit.")
    }
    Label {
        objectName: "conversationsFit"
        visible: section.m.kv_tokens > 0 && section.m.kv_allocated_bytes > 0
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        text: qsTr("Conversations of this length that would fit in the available memory: %1")
              .arg(Math.floor((section.m.system_available_bytes || 0) / Math.max(1, section.m.kv_allocated_bytes)).toLocaleString(Qt.locale(), 'f', 0))
    }
}
