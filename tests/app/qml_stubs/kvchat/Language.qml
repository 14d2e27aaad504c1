// Stand-in for UiLanguage (`Language`) in tst_settings_drawer.qml.
pragma Singleton
import QtQuick
QtObject { property string active: "en"; property var choices: ["", "en", "ko"]; property string choice: ""; function choose(c) { choice = c } }
