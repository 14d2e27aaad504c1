// The header of the Hub's search and catalog list (ModelsPage.qml): what the list shows.
// A Component made here, in a document without `pragma ComponentBehavior: Bound`: Qt 6.4
// does not create a ListView header declared in a Bound document ("QQmlComponent:
// Component is not ready", no header), and ModelsPage is one (its delegates read the
// page's id). Its strings keep ModelsPage's translation context.
import QtQuick
import QtQuick.Controls
import kvchat

QtObject {
    readonly property Component component: Label {
        padding: 4
        font.bold: true
        // "sizes approximate" only where the catalog shows such sizes.
        text: ModelHub.searchResults.length > 0 ? qsTranslate("ModelsPage", "Search results")
              : ModelHub.catalogSizesApproximate ? qsTranslate("ModelsPage", "Catalog (sizes approximate)")
              : qsTranslate("ModelsPage", "Catalog")
    }
}
