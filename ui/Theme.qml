// The window's visual language in one place: colours (a light and a dark set, both
// designed), spacing, corner radii and type sizes, scaled by the zoom (Ctrl+= / Ctrl+- /
// Ctrl+0, remembered). Every QML file uses Theme.<token>; nothing else names a colour.
// The colour sets are plain "name": "#rrggbb" lines: tests/app/check_contrast.py reads
// them and checks every text colour over every background it is drawn on (WCAG ≥ 4.5:1),
// the field borders against what they are drawn on (≥ 3:1, WCAG 1.4.11) and that the
// dimming behind a drawer changes the window or its text enough to be seen.
pragma Singleton
import QtQuick

QtObject {
    id: theme

    // ---- light / dark ---------------------------------------------------------------
    // Set by Main.qml from --theme (main.cpp resolves "system" from the platform palette).
    property bool dark: false

    readonly property var lightColors: ({
        // backgrounds
        "window": "#f3f4f6",
        "surface": "#ffffff",
        "surfaceAlt": "#e9ecf0",
        "raised": "#e2e6eb",
        "userBubble": "#e1ebfb",
        "assistantBubble": "#eceef2",
        "codeBackground": "#e6e9ee",
        "infoBackground": "#e6eefa",
        "warningBackground": "#fbf0dc",
        "errorBackground": "#fbe7e5",
        "accent": "#2456c0",
        // text
        "text": "#1b1e23",
        "textMuted": "#4c535e",
        "placeholder": "#5f6672",
        "link": "#1d4fb5",
        "onAccent": "#ffffff",
        "error": "#a52019",
        "warning": "#7a4600",
        "success": "#1b6329",
        // lines and marks (not text)
        "border": "#c5cbd3",
        // the outline of a text field (≥ 3:1 on the field and around it: it is seen)
        "fieldBorder": "#78808b",
        "focusRing": "#2456c0",
        "selection": "#d9e6fb",
        "chartWeights": "#5b7db1",
        "chartKvUsed": "#e07b39",
        "chartKvAllocated": "#f3c99f",
        "chartScratch": "#9aa5b1",
        "chartEmpty": "#d5d8dc",
        "chartDocument": "#8e5ba8",
        // behind an open drawer: black at this opacity over the window
        "dimOpacity": 0.35
    })
    readonly property var darkColors: ({
        // backgrounds
        "window": "#1d1f23",
        "surface": "#15171a",
        "surfaceAlt": "#24272c",
        "raised": "#2f333a",
        "userBubble": "#22324b",
        "assistantBubble": "#262a30",
        "codeBackground": "#101214",
        "infoBackground": "#1f2a3a",
        "warningBackground": "#34291a",
        "errorBackground": "#3a2022",
        "accent": "#2f62c9",
        // text
        "text": "#e7e9ec",
        "textMuted": "#aab1bb",
        "placeholder": "#9ca3ad",
        "link": "#93b6ff",
        "onAccent": "#ffffff",
        "error": "#ff8f87",
        "warning": "#f2bd66",
        "success": "#7fd891",
        // lines and marks (not text)
        "border": "#474c55",
        "fieldBorder": "#767d88",
        "focusRing": "#93b6ff",
        "selection": "#223758",
        "chartWeights": "#7b9bd0",
        "chartKvUsed": "#f08c4a",
        "chartKvAllocated": "#8a6440",
        "chartScratch": "#7d8794",
        "chartEmpty": "#3a3f46",
        "chartDocument": "#a77bc0",
        // more than in light: black over a dark window shows in its text, dimmed
        "dimOpacity": 0.55
    })
    // Which text colours are drawn on which backgrounds (the contrast test's pairs).
    readonly property var textColors: ["text", "textMuted", "placeholder", "link", "error", "warning", "success"]
    readonly property var textBackgrounds: ["window", "surface", "surfaceAlt", "raised", "userBubble",
        "assistantBubble", "codeBackground", "infoBackground", "warningBackground", "errorBackground", "selection"]
    readonly property var accentPairs: [["onAccent", "accent"]]
    // Marks that are not text (WCAG 1.4.11, ≥ 3:1): each against what it is drawn on.
    readonly property var uiPairs: [["fieldBorder", "surface"], ["fieldBorder", "window"],
        ["fieldBorder", "surfaceAlt"], ["fieldBorder", "raised"]]

    readonly property var colors: dark ? darkColors : lightColors
    readonly property color window: colors.window
    readonly property color surface: colors.surface
    readonly property color surfaceAlt: colors.surfaceAlt
    readonly property color raised: colors.raised
    readonly property color userBubble: colors.userBubble
    readonly property color assistantBubble: colors.assistantBubble
    readonly property color codeBackground: colors.codeBackground
    readonly property color infoBackground: colors.infoBackground
    readonly property color warningBackground: colors.warningBackground
    readonly property color errorBackground: colors.errorBackground
    readonly property color accent: colors.accent
    readonly property color text: colors.text
    readonly property color textMuted: colors.textMuted
    readonly property color placeholder: colors.placeholder
    readonly property color link: colors.link
    readonly property color onAccent: colors.onAccent
    readonly property color error: colors.error
    readonly property color warning: colors.warning
    readonly property color success: colors.success
    readonly property color border: colors.border
    readonly property color fieldBorder: colors.fieldBorder
    // The window behind an open drawer, dimmed (Overlay.modeless of SettingsDrawer).
    readonly property color dim: Qt.rgba(0, 0, 0, colors.dimOpacity)
    readonly property color focusRing: colors.focusRing
    readonly property color selection: colors.selection
    readonly property color chartWeights: colors.chartWeights
    readonly property color chartKvUsed: colors.chartKvUsed
    readonly property color chartKvAllocated: colors.chartKvAllocated
    readonly property color chartScratch: colors.chartScratch
    readonly property color chartEmpty: colors.chartEmpty
    readonly property color chartDocument: colors.chartDocument

    // ---- zoom and type -----------------------------------------------------------------
    // The zoom steps Ctrl+= / Ctrl+- walk through; Ctrl+0 is 1.
    readonly property var zoomSteps: [0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0]
    property real zoom: 1.0
    // The "?" popups (SectionHeader) open now, and where the last one opened ends (window
    // coordinates): read by the end-to-end tests.
    property int helpPopupsOpen: 0
    property real helpPopupBottom: 0
    signal closeHelpPopups()  // Esc (Main.qml)
    function zoomIn() { zoom = zoomSteps.find(z => z > zoom + 0.001) ?? zoomSteps[zoomSteps.length - 1] }
    function zoomOut() { zoom = zoomSteps.slice().reverse().find(z => z < zoom - 0.001) ?? zoomSteps[0] }
    function zoomReset() { zoom = 1.0 }
    function px(n) { return Math.round(n * zoom) }
    // A count as the window writes it everywhere: whole, with the locale's digit grouping
    // ("3,887"; the C++ side's ChatController::count_text, QLocale().toString).
    function num(n) { return Number(n || 0).toLocaleString(Qt.locale(), 'f', 0) }

    readonly property int fontSize: px(14)      // body text, buttons, fields
    readonly property int smallSize: px(12)     // captions, stats, secondary lines
    readonly property int headingSize: px(16)   // section titles
    readonly property int titleSize: px(20)     // dialog and welcome titles
    readonly property string monoFamily: "monospace"

    // ---- spacing, radii, sizes -----------------------------------------------------------
    readonly property int spacingXs: px(4)
    readonly property int spacingS: px(8)
    readonly property int spacingM: px(12)
    readonly property int spacingL: px(16)
    readonly property int spacingXl: px(24)
    readonly property int radiusS: px(4)
    readonly property int radiusM: px(8)
    readonly property int radiusL: px(12)
    readonly property int iconSize: px(20)

    // Chat lines are capped at about 80 characters of the body font (plus the bubble's
    // margins), however wide the window.
    readonly property FontMetrics bodyMetrics: FontMetrics { font.pixelSize: theme.fontSize }
    readonly property int lineMaxWidth: Math.ceil(bodyMetrics.averageCharacterWidth * 80)

    // The width under which the memory panel leaves its column for a drawer.
    readonly property int dockedMemoryMinWindowWidth: 1100
}
