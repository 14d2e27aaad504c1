// A cell of the server view's tables (ServerView, ServerRequestLog): one line of plain
// text at a fixed width, or filling the row's spare width (fill), cut at its end and
// whole on hover.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

Label {
    id: cell
    property bool fill: false
    Layout.preferredWidth: Theme.px(60)
    Layout.fillWidth: fill
    textFormat: Text.PlainText
    elide: Text.ElideRight
    font.pixelSize: Theme.smallSize
    HoverHandler { id: cellHover }
    ToolTip.visible: cellHover.hovered && cell.truncated
    ToolTip.text: cell.text
}
