// Stand-in for SystemPromptController (`SystemPrompts`) in tst_settings_drawer.qml.
pragma Singleton
import QtQuick
QtObject { property var prompts: []; property int currentPromptId: 0; property bool currentDiffers: false; property string currentPromptName: ""; property int defaultPromptId: 0; property string lastError: ""
  function pick(i) {} function edit() {} function remove() {} function saveAs() { return 0 } function nameProblem(n) { return "" } function usedBy(i) { return 0 } }
