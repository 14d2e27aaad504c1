// The last reply's keys, wherever the focus is in the window: Ctrl+R regenerates it (a
// new branch, a fresh seed), Alt+Left / Alt+Right show the previous / next branch of the
// last message that has siblings,
// Ctrl+Shift+E continues it (a reply cut at the length limit, or stopped).
import QtQuick
import kvchat

Item {
    Shortcut { sequence: "Ctrl+R"; enabled: !Chat.generating; onActivated: Chat.regenerate() }
    Shortcut { sequence: "Alt+Left"; enabled: !Chat.generating; onActivated: Chat.showAdjacentVersion(-1) }
    Shortcut { sequence: "Alt+Right"; enabled: !Chat.generating; onActivated: Chat.showAdjacentVersion(1) }
    Shortcut { sequence: "Ctrl+Shift+E"; enabled: !Chat.generating; onActivated: Chat.continueReply() }
}
