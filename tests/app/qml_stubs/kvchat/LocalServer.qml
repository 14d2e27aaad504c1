// Stand-in for LocalServerController (`LocalServer`) in tst_settings_drawer.qml: off.
pragma Singleton
import QtQuick
QtObject { property bool enabled: false; property string host: "127.0.0.1"; property int port: 8080; property string apiKey: ""; property int parallel: 4; property bool allowNoKey: false
  property bool running: false; property string error: ""; property string url: ""; property string modelId: ""
  function isLoopback(h) { return true } function generateKey() { return "k" } function apply() {} }
