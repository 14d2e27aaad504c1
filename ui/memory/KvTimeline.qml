// This conversation's KV bytes against the tokens in context, a mark where each reply began.
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

    // Timeline: this conversation's KV bytes against the tokens in context, with
    // axes, units and a mark where each reply began (cleared per conversation).
    SectionHeader {
        text: qsTr("KV memory over this conversation"); bold: false; pixelSize: Theme.smallSize
        help: qsTr("Each point is the KV cache after a token: the bytes used (orange) and reserved (light orange), against the number of tokens in the context. A dashed line marks where a reply began. A conversation's timeline is its own: it starts empty in a new chat and comes back when you return to a conversation (it is not kept after the app closes).")
    }
    Canvas {
        id: timeline
        objectName: "kvTimeline"
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        height: 150
        property var points: MemoryState.memoryHistory
        property color ink: Theme.text
        Accessible.role: Accessible.Chart
        Accessible.name: points.length === 0 ? qsTr("KV memory over this conversation: no tokens yet")
            : qsTr("KV memory over this conversation: %1 used at %2 tokens")
              .arg(section.panel.fmt(points[points.length - 1].used)).arg(points[points.length - 1].tokens)
        onPointsChanged: requestPaint()
        onWidthChanged: requestPaint()
        onInkChanged: requestPaint()
        // 1, 2, 5 × 10^n at or above v: round axis ends.
        function niceCeil(v) {
            if (v <= 0) return 1
            var p = Math.pow(10, Math.floor(Math.log(v) / Math.LN10))
            var f = v / p
            return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p
        }
        onPaint: {
            var ctx = getContext("2d")
            ctx.reset()
            var left = 56, bottom = 20, top = 22, right = 8
            var w = width - left - right, h = height - top - bottom
            ctx.fillStyle = Qt.rgba(0.5, 0.5, 0.5, 0.08)
            ctx.fillRect(left, top, w, h)
            var n = points ? points.length : 0
            var lastTokens = n > 0 ? points[n - 1].tokens : 0
            var maxT = 1, maxB = 1
            for (var i = 0; i < n; ++i) {
                maxT = Math.max(maxT, points[i].tokens)
                maxB = Math.max(maxB, points[i].allocated, points[i].used)
            }
            // Round ends, the tokens axis at most the whole context.
            maxT = niceCeil(maxT * 1.05)
            if ((section.m.kv_max_tokens || 0) > 0 && maxT > section.m.kv_max_tokens) maxT = Math.max(section.m.kv_max_tokens, lastTokens, 1)
            maxB = niceCeil(maxB * 1.05)
            function x(t) { return left + w * t / maxT }
            function y(b) { return top + h - h * b / maxB }
            // Axes, ticks and units.
            ctx.strokeStyle = Qt.rgba(ink.r, ink.g, ink.b, 0.5)
            ctx.fillStyle = ink
            ctx.lineWidth = 1
            ctx.font = "10px sans-serif"
            ctx.beginPath(); ctx.moveTo(left, top); ctx.lineTo(left, top + h); ctx.lineTo(left + w, top + h); ctx.stroke()
            for (var k = 0; k <= 2; ++k) {
                var bv = maxB * k / 2, tv = maxT * k / 2
                ctx.textAlign = "right"
                ctx.fillText(section.panel.fmt(bv), left - 4, y(bv) + 3)
                ctx.textAlign = k === 0 ? "left" : k === 2 ? "right" : "center"
                ctx.fillText(Math.round(tv).toLocaleString(Qt.locale(), 'f', 0), x(tv), top + h + 12)
                ctx.beginPath(); ctx.moveTo(left - 3, y(bv)); ctx.lineTo(left, y(bv)); ctx.stroke()
                ctx.beginPath(); ctx.moveTo(x(tv), top + h); ctx.lineTo(x(tv), top + h + 3); ctx.stroke()
            }
            ctx.textAlign = "left"
            ctx.fillText(qsTr("KV bytes"), 2, 10)
            ctx.textAlign = "right"
            ctx.fillText(qsTr("→ tokens in context"), left + w, 10)
            if (n === 0) {
                ctx.textAlign = "center"
                ctx.fillText(qsTr("No tokens yet in this conversation"), left + w / 2, top + h / 2)
                return
            }
            // Where each reply began.
            ctx.strokeStyle = Theme.chartWeights
            var turn = 0
            for (var q = 0; q < n; ++q) {
                if (!points[q].turn) continue
                turn += 1
                var tx = x(points[q].tokens)
                for (var d = top; d < top + h; d += 6) { ctx.beginPath(); ctx.moveTo(tx, d); ctx.lineTo(tx, Math.min(d + 3, top + h)); ctx.stroke() }
                ctx.fillStyle = Theme.chartWeights
                ctx.textAlign = "center"
                ctx.fillText(String(turn), tx, top + 9)
            }
            var series = [["allocated", Theme.chartKvAllocated], ["used", Theme.chartKvUsed]]
            for (var s = 0; s < series.length; ++s) {
                ctx.strokeStyle = series[s][1]
                ctx.lineWidth = 2
                ctx.beginPath()
                for (var j = 0; j < n; ++j) {
                    var p = points[j]
                    if (j === 0) ctx.moveTo(x(p.tokens), y(p[series[s][0]]))
                    else ctx.lineTo(x(p.tokens), y(p[series[s][0]]))
                }
                if (n === 1) ctx.lineTo(x(points[0].tokens) + 2, y(points[0][series[s][0]]))
                ctx.stroke()
            }
        }
    }
    Label {
        Layout.fillWidth: true
        Layout.maximumWidth: section.panel.columnWidth
        wrapMode: Text.Wrap
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: qsTr("orange: used · light orange: reserved · dashed: a reply began (%1 so far)")
            .arg(Theme.num(Array.from(MemoryState.memoryHistory).filter(function(p) { return p.turn }).length))
    }
}
