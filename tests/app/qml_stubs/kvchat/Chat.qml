// Stand-in for ChatController (`Chat`) in tst_settings_drawer.qml: the system prompt (with a
// count of writes) and formatBytes as util::format_bytes writes sizes (SI, 3 digits).
pragma Singleton
import QtQuick
QtObject {
    property string systemPrompt: ""
    property int promptWrites: 0
    onSystemPromptChanged: promptWrites++
    function formatBytes(b) { var u = ["B","KB","MB","GB","TB"], i = 0; while (b >= 1000 && i < 4) { b /= 1000; ++i } return i === 0 ? b.toFixed(0) + " B" : b.toFixed(b < 10 ? 2 : b < 100 ? 1 : 0) + " " + u[i] }
}
