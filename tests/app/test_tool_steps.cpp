// Tools in the window (issue 47 points 1, 2, 3): a reply's tool calls stored with the
// message (schema step 8 -> 9) and read back as they were, kept on their branch only,
// turned back into the conversation's turns in the order the model read them, exported
// in Markdown and JSON, added up for the memory panel; Settings → Tools' mcp.json written
// and read back, its server started and its tools listed (tests/mcp/fake_mcp_server.py).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/worker_values.h"
#include "export/conversation_export.h"
#include "kvchat/mcp_config.h"
#include "settings/settings_access.h"
#include "store/conversation_store.h"
#include "tools/tool_steps.h"
#include "tools/tools_controller.h"

using namespace kvchat::app;

namespace {

// A reply that called add(2, 3), was told 5, then was denied echo; its answer after them.
QVariantList sample_steps() {
  QVariantMap add = tool_call_map({"call_1", "add", "{\"a\":2,\"b\":3}"}, "math", "add");
  kvchat::ToolRun ran;
  ran.result = "5";
  ran.result_tokens = 1;
  ran.original_tokens = 1;
  ran.kv_bytes = 1536;
  ran.seconds = 0.25;
  add = tool_run_map(add, ran);
  QVariantMap echo = tool_call_map({"call_2", "echo", "{\"text\":\"```x```\"}"}, "math", "echo");
  kvchat::ToolRun denied;
  denied.denied = true;
  denied.result = "The user did not allow this call of echo; it was not run.";
  denied.result_tokens = 21;
  denied.kv_bytes = 32256;
  echo = tool_run_map(echo, denied);
  return {QVariantMap{{"text", "Let me add."}, {"calls", QVariantList{add}}},
          QVariantMap{{"text", ""}, {"calls", QVariantList{echo}}}};
}

// Settings kept in memory (ChatController keeps them in SQLite).
struct MemorySettings : SettingsAccess {
  QVariantMap values;
  QVariant setting(const QString& key, const QVariant& fallback) const override {
    return values.value(key, fallback);
  }
  void save_setting(const QString& key, const QVariant& value) override { values[key] = value; }
};

}  // namespace

class ToolStepsTest : public QObject {
  Q_OBJECT
 private slots:
  void run_maps_say_what_happened() {
    const QVariantList steps = sample_steps();
    const QVariantMap add = steps[0].toMap()["calls"].toList()[0].toMap();
    QCOMPARE(add["state"].toString(), QStringLiteral("done"));
    QCOMPARE(add["result"].toString(), QStringLiteral("5"));
    QCOMPARE(add["server"].toString(), QStringLiteral("math"));
    QCOMPARE(add["kv_bytes"].toLongLong(), 1536);
    const QVariantMap echo = steps[1].toMap()["calls"].toList()[0].toMap();
    QCOMPARE(echo["state"].toString(), QStringLiteral("denied"));
    kvchat::ToolRun stopped;
    stopped.failed = stopped.stopped = true;
    QCOMPARE(tool_run_map(echo, stopped)["state"].toString(), QStringLiteral("stopped"));
    kvchat::ToolRun failed;
    failed.failed = true;
    QCOMPARE(tool_run_map(echo, failed)["state"].toString(), QStringLiteral("failed"));
  }

  void steps_become_the_turns_the_model_read() {
    StoredMessage user, reply;
    user.role = "user";
    user.content = "Add two and three";
    reply.role = "assistant";
    reply.content = "It is 5.";
    reply.tool_steps = sample_steps();
    const ChatTurns turns = chat_turns({user, reply});
    // user, assistant(add), tool(5), assistant(echo), tool(denied), assistant(answer)
    QCOMPARE(turns.size(), 6);
    QCOMPARE(turns[1].role, QStringLiteral("assistant"));
    QCOMPARE(turns[1].content, QStringLiteral("Let me add."));
    QCOMPARE(turns[1].tool_calls.size(), 1);
    QCOMPARE(turns[1].tool_calls[0].toMap()["id"].toString(), QStringLiteral("call_1"));
    QCOMPARE(turns[1].tool_calls[0].toMap()["arguments"].toString(),
             QStringLiteral("{\"a\":2,\"b\":3}"));
    QCOMPARE(turns[2].role, QStringLiteral("tool"));
    QCOMPARE(turns[2].tool_call_id, QStringLiteral("call_1"));
    QCOMPARE(turns[2].name, QStringLiteral("add"));
    QCOMPARE(turns[2].content, QStringLiteral("5"));
    QCOMPARE(turns[4].content,
             QStringLiteral("The user did not allow this call of echo; it was not run."));
    QCOMPARE(turns[5].content, QStringLiteral("It is 5."));
    // Stopped among its calls: no empty answer turn; a call without a result is left out.
    reply.content.clear();
    QVariantList waiting = sample_steps();
    waiting.append(
        QVariantMap{{"text", ""}, {"calls", QVariantList{tool_call_map({"call_3", "add", "{}"})}}});
    reply.tool_steps = waiting;
    const ChatTurns cut = chat_turns({user, reply});
    QCOMPARE(cut.size(), 6);  // user, 2 x (call, result), the waiting call
    QCOMPARE(cut.back().role, QStringLiteral("assistant"));
    QCOMPARE(cut.back().tool_calls.size(), 1);
  }

  void stored_with_the_message_and_kept_on_its_branch() {
    QTemporaryDir dir;
    QString error;
    const QString path = dir.filePath("kvchat.sqlite");
    QVariantList steps = sample_steps();
    qint64 reply_id = 0;
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      QCOMPARE(store->schema_version(), 9);
      const qint64 c = store->create_conversation("t", {}, &error);
      QVERIFY(store->append_message(c, "user", "Add", MessageState::Complete, &error));
      reply_id = store->append_message(c, "assistant", {}, MessageState::Streaming, &error);
      QVERIFY2(reply_id, qPrintable(error));
      QVERIFY(
          store->update_message(reply_id, "It is 5.", MessageState::Complete, {}, &error, &steps));
      // An update without steps leaves them.
      QVERIFY(store->update_message(reply_id, "It is 5!", MessageState::Complete, {}, &error));
      // A regenerated reply is a sibling with none of its own.
      QVERIFY(store->add_branch(reply_id, "Again", MessageState::Complete, &error));
      QCOMPARE(store->messages(c).back().tool_steps, QVariantList());
    }
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const QVector<StoredMessage> siblings = store->branches(reply_id);
    QCOMPARE(siblings.size(), 2);
    QCOMPARE(siblings[0].content, QStringLiteral("It is 5!"));
    QCOMPARE(siblings[0].tool_steps, steps);  // JSON round trip: every field as it was
    QCOMPARE(siblings[1].tool_steps, QVariantList());
  }

  void exported_in_markdown_and_json() {
    StoredConversation c;
    c.title = "tools";
    StoredMessage reply;
    reply.role = "assistant";
    reply.content = "It is 5.";
    reply.tool_steps = sample_steps();
    const QString md = QString::fromUtf8(conversation_to_markdown(c, {reply}));
    QVERIFY2(md.contains("Let me add.") && md.contains("Tool call: `add` (ran)") &&
                 md.contains("\"a\": 2") && md.contains("Result:\n\n```\n5\n```") &&
                 md.contains("Tool call: `echo` (denied by the user: not run)"),
             qPrintable(md));
    // A result or argument holding ``` gets a longer fence.
    QVERIFY2(md.contains("````json\n{\n    \"text\": \"```x```\"\n}\n````"), qPrintable(md));
    QVERIFY(md.indexOf("Let me add.") < md.indexOf("It is 5."));
    const QJsonObject json =
        QJsonDocument::fromJson(conversation_to_json(c, {reply}, {reply})).object();
    const QJsonArray exported = json["messages"].toArray()[0].toObject()["tool_steps"].toArray();
    QCOMPARE(exported.toVariantList(), QJsonArray::fromVariantList(sample_steps()).toVariantList());
    QCOMPARE(json["tree"].toArray()[0].toObject()["tool_steps"].toArray().size(), 2);
  }

  void costs_add_up_for_the_panel() {
    StoredMessage user, reply;
    user.role = "user";
    reply.role = "assistant";
    reply.tool_steps = sample_steps();
    const ToolResultCosts costs = tool_result_costs({user, reply});
    QCOMPARE(costs.rows.size(), 2);
    QCOMPARE(costs.tokens, 22);
    QCOMPARE(costs.kv_bytes, 1536 + 32256);
    QCOMPARE(costs.rows[0].toMap()["message_row"].toInt(), 1);
    QCOMPARE(costs.rows[1].toMap()["state"].toString(), QStringLiteral("denied"));
  }

  void arguments_split_as_a_shell_would() {
    const QStringList args = split_arguments("-y \"a b\" 'c d' e\\ f \"q\\\"x\" ''");
    QCOMPARE(args, (QStringList{"-y", "a b", "c d", "e f", "q\"x", ""}));
    QCOMPARE(split_arguments(join_arguments(args)), args);
    QCOMPARE(join_arguments({"-y", "it's"}), QStringLiteral("-y 'it'\\''s'"));
  }

  void settings_write_mcp_json_and_start_the_server() {
    QTemporaryDir dir;
    MemorySettings settings;
    const QString python = QStandardPaths::findExecutable("python3");
    QVERIFY(!python.isEmpty());
    const QString server = QStringLiteral(KVCHAT_SOURCE_DIR "/tests/mcp/fake_mcp_server.py");
    ToolsController tools(dir.path(), settings);
    QCOMPARE(tools.servers().size(), 0);
    QCOMPARE(tools.addServer("math", python, "'" + server + "' only-add", "A=1\nB=two words"),
             QString());
    QVERIFY(tools.addServer("math", "x", "", "").contains("there already"));
    QVERIFY(tools.addServer("bad", "x", "", "NOEQUALS").contains("KEY=value"));
    QVERIFY(tools.addServer("web", "http://127.0.0.1:1/mcp", "-x", "").contains("no arguments"));
    // The file, as another app reads it.
    auto config = kvchat::load_mcp_config(dir.filePath("mcp.json").toStdString());
    QVERIFY(config);
    QCOMPARE(config->servers.size(), size_t(1));
    QCOMPARE(config->servers[0].args, (std::vector<std::string>{server.toStdString(), "only-add"}));
    QCOMPARE(config->servers[0].env.at("B"), std::string("two words"));
    QCOMPARE(QFile(dir.filePath("mcp.json")).permissions() & QFileDevice::ReadOther,
             QFileDevice::Permissions());
    // Started: ready with its one tool, offered to a reply of a conversation that asks.
    QTRY_COMPARE_WITH_TIMEOUT(tools.readyServers(), QStringList{"math"}, 20000);
    const QVariantMap math = tools.servers()[0].toMap();
    QCOMPARE(math["tools"].toList().size(), 1);
    QCOMPARE(math["tools"].toList()[0].toMap()["function"].toString(), QStringLiteral("add"));
    QVERIFY(math["tools"].toList()[0].toMap()["schema"].toString().contains("\"integer\""));
    const ReplyTools reply = tools.reply_tools({"math", "gone"}, true);
    QVERIFY(reply.active());
    QCOMPARE(reply.servers, std::vector<std::string>{"math"});
    QCOMPARE(reply.choice, kvchat::ToolChoiceMode::Required);
    QCOMPARE(reply.max_calls, 8);
    QCOMPARE(reply.max_result_tokens, 8000);
    QVERIFY(!tools.reply_tools({}, false).active());
    // Always allow, revoked.
    tools.allowToolAlways("math/add");
    QVERIFY(tools.reply_tools({"math"}, false).always_allowed.contains("math/add"));
    tools.revokeTool("math/add");
    QVERIFY(tools.reply_tools({"math"}, false).always_allowed.isEmpty());
    // Limits.
    tools.set_max_calls(3);
    tools.set_max_result_tokens(500);
    QCOMPARE(tools.reply_tools({"math"}, false).max_calls, 3);
    QCOMPARE(tools.reply_tools({"math"}, false).max_result_tokens, 500);
    // Disabled: "disabled": true in the file, not offered; removed: gone from the file.
    QCOMPARE(tools.setServerEnabled("math", false), QString());
    QVERIFY(!kvchat::load_mcp_config(dir.filePath("mcp.json").toStdString())->servers[0].enabled);
    QTRY_COMPARE(tools.servers()[0].toMap()["state"].toString(), QStringLiteral("disabled"));
    QVERIFY(!tools.reply_tools({"math"}, false).active());
    // A URL: a "url" entry (nothing listens on port 1: it fails, with the reason).
    QCOMPARE(tools.addServer("web", "http://127.0.0.1:1/mcp", "", ""), QString());
    QCOMPARE(kvchat::load_mcp_config(dir.filePath("mcp.json").toStdString())->servers[1].url,
             std::string("http://127.0.0.1:1/mcp"));
    QTRY_COMPARE_WITH_TIMEOUT(tools.servers()[1].toMap()["state"].toString(),
                              QStringLiteral("failed"), 20000);
    QVERIFY2(tools.servers()[1].toMap()["message"].toString().contains("cannot connect"),
             qPrintable(tools.servers()[1].toMap()["message"].toString()));
    QCOMPARE(tools.removeServer("web"), QString());
    QCOMPARE(tools.removeServer("math"), QString());
    QCOMPARE(kvchat::load_mcp_config(dir.filePath("mcp.json").toStdString())->servers.size(),
             size_t(0));
    QVERIFY(tools.removeServer("math").contains("No server"));
  }

  void a_broken_mcp_json_is_said() {
    QTemporaryDir dir;
    QFile f(dir.filePath("mcp.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"mcpServers\": {\"x\": {\"command\": 1}}}");
    f.close();
    MemorySettings settings;
    ToolsController tools(dir.path(), settings);
    QVERIFY2(tools.config_error().contains("mcpServers.x.command must be a string"),
             qPrintable(tools.config_error()));
    QCOMPARE(tools.servers().size(), 0);
    // What the user wrote is not overwritten by an edit here.
    QVERIFY(tools.addServer("y", "true", "", "").contains("not changed"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("{\"mcpServers\": {\"x\": {\"command\": 1}}}"));
  }
};

QTEST_GUILESS_MAIN(ToolStepsTest)
#include "test_tool_steps.moc"
