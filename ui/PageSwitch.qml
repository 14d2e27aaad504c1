// The pages of a long message (or of its reasoning): a bubble lays out one page of at most
// 4,096 characters (app/models/text_pages.h), so no message, however long, holds up the
// window. ‹ Page 2 of 12,800 › with the characters it shows; Copy still takes the whole text.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import kvchat

RowLayout {
    id: pages
    property int page: 0
    property int count: 1
    property real length: 0  // characters in all
    signal pageRequested(int page)
    visible: count > 1
    spacing: 0
    ToolButton {
        text: "‹"
        enabled: pages.page > 0
        Accessible.name: qsTr("Previous page")
        ToolTip.visible: hovered
        ToolTip.text: Accessible.name
        onClicked: pages.pageRequested(pages.page - 1)
    }
    Label {
        objectName: "pageLabel"
        font.pixelSize: Theme.smallSize
        color: Theme.textMuted
        text: qsTr("Page %1 of %2 · %3 characters").arg(Theme.num(pages.page + 1)).arg(Theme.num(pages.count))
                                                   .arg(Theme.num(pages.length))
    }
    ToolButton {
        text: "›"
        enabled: pages.page < pages.count - 1
        Accessible.name: qsTr("Next page")
        ToolTip.visible: hovered
        ToolTip.text: Accessible.name
        onClicked: pages.pageRequested(pages.page + 1)
    }
    ToolButton {
        visible: pages.page < pages.count - 1
        text: qsTr("Last")
        font.pixelSize: Theme.smallSize
        Accessible.name: qsTr("Last page")
        onClicked: pages.pageRequested(pages.count - 1)
    }
}
