// The last reply's keys, wherever the focus is in the window: Ctrl+R regenerates it (a
// new branch, a fresh seed), Alt+Left / Alt+Right show the previous / next branch of the
// last message that has siblings,
// Ctrl+Shift+E continues it (a reply cut at the length limit, or stopped).
import QtQuick

Item {
    Shortcut { sequence: "Ctrl+R"; enabled: !chat.generating; onActivated: chat.regenerate() }
    Shortcut { sequence: "Alt+Left"; enabled: !chat.generating; onActivated: chat.showAdjacentVersion(-1) }
    Shortcut { sequence: "Alt+Right"; enabled: !chat.generating; onActivated: chat.showAdjacentVersion(1) }
    Shortcut { sequence: "Ctrl+Shift+E"; enabled: !chat.generating; onActivated: chat.continueReply() }
}
