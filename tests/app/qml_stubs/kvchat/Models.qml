// Stand-in for ModelController (`Models`) in tst_settings_drawer.qml: what SettingsDrawer.qml,
// ChatTemplateSettings.qml read and call, with what was applied recorded (applied, templates).
pragma Singleton
import QtQuick
QtObject {
    property var modelInfo: ({ "path": "/m/kjv-demo-f16.gguf", "kv_types": { "f16": { "bytes_per_token": 1000 } }, "n_ctx_train": 512, "weight_bytes": 5520000 })
    property var sampling: ({ "temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0, "seed": -1, "max_tokens": 256 })
    property var engineSettings: ({ "kv_type": "f16", "ctx": 0, "context_policy": "drop-oldest", "gpu_layers": -1 })
    property var settingsModelFacts: ({ "head_dim": 32, "n_ctx_train": 512 })
    property string settingsModel: "/m/kjv-demo-f16.gguf"
    property var samplingPresets: [{ "id": "balanced", "name": "Balanced", "values": { "temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0 } },
                                   { "id": "precise", "name": "Precise", "values": { "temperature": 0.2, "top_k": 20, "top_p": 0.9, "min_p": 0.1, "repeat_penalty": 1.1 } }]
    property string modelError: ""
    property var applied: []
    property var templates: []
    function checkEngineSettings(s) { return [] }
    function kvTypeProblem(t) { return "" }
    function setEngineSettings(s) { applied.push(s); engineSettings = Object.assign({}, engineSettings, s) }
    function setChatTemplateOverride(t) { templates.push(t); modelInfo = Object.assign({}, modelInfo, { "chat_template_override": t }) }
    function setEnableThinking(m) {}
}
