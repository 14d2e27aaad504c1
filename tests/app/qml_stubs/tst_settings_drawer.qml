// Settings applies one way (issue 43 point 6), in the real ui/SettingsDrawer.qml and
// ChatTemplateSettings.qml over stand-ins of the controllers (kvchat/: the same module name,
// its qmldir naming the real files for the rest): the drawer at its y (below the header),
// dimmed, the rule at its top, the Apply bar at its bottom saying nothing waits; an engine
// choice waits for Apply (which says it reloads the model), Cancel puts it back, Apply
// applies every engine setting once; the system prompt (after a pause, never the same text
// twice), the snapshots' budget (written "4.29 GB") and a sampling preset apply at once;
// a built-in chat template applies a moment after it is chosen, custom Jinja only with
// "Use this template". Run: qmltestrunner -import tests/app/qml_stubs -input THIS (offscreen).
import QtQuick
import QtQuick.Controls
import QtTest
import kvchat
Item {
    id: root
    width: 900; height: 700
    SettingsDrawer { id: drawer; y: 40; height: root.height - y }
    function find(item, name) {
        if (item.objectName === name) return item
        for (var i = 0; i < item.children.length; ++i) { var f = find(item.children[i], name); if (f) return f }
        return null
    }
    TestCase {
        name: "SettingsDrawer"
        when: windowShown
        function test_1_belowTheHeaderDimmedRuleAndPinnedBar() {
            drawer.open()
            tryCompare(drawer, "opened", true)
            var s = drawer.layoutState()
            compare(s.top, 40)
            verify(s.dim_alpha > 0.3)
            verify(Math.abs(s.apply_bar_bottom - s.bottom) <= 2, JSON.stringify(s))
            compare(s.engine_pending, false)
            compare(s.apply_enabled, false)
            verify(s.apply_note.indexOf("No engine change") === 0, s.apply_note)
            verify(s.rule.indexOf("apply at once") > 0)
        }
        function test_2_engineChoicesWaitForApply() {
            var kv = find(drawer.contentItem, "kvTypeChoice")
            verify(kv)
            compare(kv.currentText, "f16")
            kv.currentIndex = 2
            var s = drawer.layoutState()
            compare(s.engine_pending, true)
            compare(s.apply_enabled, true)
            verify(s.apply_note.indexOf("Apply reloads kjv-demo-f16.gguf") === 0, s.apply_note)
            // Cancel puts it back
            var cancel = find(drawer.contentItem, "cancelEngineSettings")
            cancel.clicked()
            compare(kv.currentText, "f16")
            compare(drawer.layoutState().engine_pending, false)
            kv.currentIndex = 2
            find(drawer.contentItem, "applySettings").clicked()
            compare(Models.applied.length, 1)
            compare(Models.applied[0].kv_type, "q8_0")
            compare(Models.applied[0].ctx, 0)
            compare(Models.applied[0].gpu_layers, -1)
            compare(Models.applied[0].backend, "auto")
            compare(Models.engineSettings.kv_type, "q8_0")
            compare(kv.currentText, "q8_0")
            compare(drawer.enginePending, false)
        }
        function test_3_theRestAppliesAtOnce() {
            drawer.open()
            tryCompare(drawer, "opened", true)
            var prompt = find(drawer.contentItem, "systemPromptField")
            prompt.forceActiveFocus()
            prompt.text = "Be brief."
            compare(Chat.systemPrompt, "")
            tryCompare(Chat, "systemPrompt", "Be brief.", 2000)
            var writes = Chat.promptWrites
            drawer.applySystemPrompt()
            compare(Chat.promptWrites, writes)  // the same text is not written again
            var budget = find(drawer.contentItem, "snapshotBudgetSpin")
            compare(budget.contentItem.text, "4.29 GB")
            budget.increase(); budget.valueModified()
            compare(MemoryState.snapshotBudgetBytes, 4795e6)
            compare(budget.contentItem.text, "4.79 GB")
            var preset = find(drawer.contentItem, "samplingPreset")
            preset.activated(2)
            compare(Models.sampling.temperature, 0.2)
            compare(Models.sampling.preset, "precise")
            compare(Models.sampling.seed, -1)
        }
        function test_4_aTemplateChoiceAppliesAtOnce() {
            var tmpl = find(drawer.contentItem, "chatFormatDescription").parent
            verify(tmpl)
            var use = find(drawer.contentItem, "useChatTemplate")
            compare(use.visible, false)
            // a built-in choice applies after a moment
            var combo = null
            for (var i = 0; i < tmpl.children.length; ++i) if (tmpl.children[i].count === tmpl.choices.length && tmpl.children[i].currentIndex !== undefined) combo = tmpl.children[i]
            verify(combo)
            combo.currentIndex = 4; combo.activated(4)
            compare(Models.templates.length, 0)
            tryCompare(Models.templates, "length", 1, 2000)
            compare(Models.templates[0], "builtin:chatml")
            combo.currentIndex = tmpl.choices.length - 1; combo.activated(combo.currentIndex)
            compare(use.visible, true)
            drawer.close()
            wait(800)
            compare(Models.templates.length, 1)  // custom waits for its button
        }
    }
}
