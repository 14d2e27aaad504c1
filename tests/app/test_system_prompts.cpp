// The system prompt library (issue 29): saved prompts in a real SQLite file, created,
// listed by name, renamed, edited and deleted; empty and duplicate names refused; a
// conversation picked from one keeps the link across a reopen, loses it when its text is
// typed by hand or the prompt is deleted (its text stays); an edit reaches the
// conversations picked from it only when applied; a version-4 file migrates with its
// conversations and prompts intact (no link). Then the library as the window uses it
// (SystemPromptController through ChatController): pick, save as, edit for all or one
// conversation, delete, and the prompt a new conversation starts with.
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include "chat/chat_controller.h"
#include "conversations/system_prompt_controller.h"
#include "conversations/system_prompt_list_model.h"
#include "store/conversation_store.h"

using namespace kvchat::app;

namespace {

// One value `sql` reads from the file, by a connection of its own (null when none).
QVariant raw_value(const QString& path, const QString& sql) {
  QVariant v;
  {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
    db.setDatabaseName(path);
    if (db.open()) {
      QSqlQuery q(db);
      if (q.exec(sql) && q.next()) v = q.value(0);
    }
    db.close();
  }
  QSqlDatabase::removeDatabase(QStringLiteral("raw"));
  return v;
}

bool raw_exec(const QString& path, const QStringList& statements) {
  bool ok = true;
  {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
    db.setDatabaseName(path);
    ok = db.open();
    for (const QString& sql : statements) {
      QSqlQuery q(db);
      if (ok && !q.exec(sql)) {
        qWarning("raw exec failed: %s", qPrintable(sql));
        ok = false;
      }
    }
    db.close();
  }
  QSqlDatabase::removeDatabase(QStringLiteral("raw"));
  return ok;
}

QStringList names(const QVector<StoredSystemPrompt>& prompts) {
  QStringList out;
  for (const StoredSystemPrompt& p : prompts) out << p.name;
  return out;
}

const QString kCoder = QStringLiteral("You are a careful C++ reviewer. Answer briefly.");
const QString kPoet = QStringLiteral("Answer in verse — 한국어 or English, as asked.");

}  // namespace

class TestSystemPrompts : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  // ---- the store ------------------------------------------------------------------------

  void createListRenameEditDelete() {
    const QString path = dir_.filePath(QStringLiteral("crud.sqlite"));
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QVERIFY(store->system_prompts().isEmpty());
    const qint64 poet = store->create_system_prompt(QStringLiteral("  poet "), kPoet, &error);
    QVERIFY2(poet > 0, qPrintable(error));
    const qint64 coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
    QVERIFY2(coder > 0, qPrintable(error));
    // By name, case folded; the name trimmed.
    QCOMPARE(names(store->system_prompts()),
             (QStringList{QStringLiteral("Coder"), QStringLiteral("poet")}));
    auto p = store->system_prompt(poet);
    QVERIFY(p);
    QCOMPARE(p->text, kPoet);
    QCOMPARE(p->used_by, 0);
    QVERIFY(p->created.isValid());
    // Rename and edit.
    QVERIFY2(store->update_system_prompt(poet, QStringLiteral("Poet"), kPoet + QStringLiteral("!"),
                                         &error),
             qPrintable(error));
    p = store->system_prompt(poet);
    QCOMPARE(p->name, QStringLiteral("Poet"));
    QCOMPARE(p->text, kPoet + QStringLiteral("!"));
    QVERIFY(p->updated >= p->created);
    // Delete.
    QVERIFY2(store->delete_system_prompt(coder, &error), qPrintable(error));
    QCOMPARE(names(store->system_prompts()), QStringList{QStringLiteral("Poet")});
    QVERIFY(!store->system_prompt(coder));
    QVERIFY(!store->delete_system_prompt(coder, &error));
    QVERIFY2(error.contains(QStringLiteral("no saved prompt")), qPrintable(error));
    QVERIFY(!store->update_system_prompt(coder, QStringLiteral("x"), {}, &error));
  }

  void emptyAndDuplicateNamesAreRefused() {
    const QString path = dir_.filePath(QStringLiteral("names.sqlite"));
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
    const qint64 poet = store->create_system_prompt(QStringLiteral("Poet"), kPoet, &error);
    QVERIFY(coder > 0 && poet > 0);
    error.clear();
    QCOMPARE(store->create_system_prompt(QStringLiteral("Coder"), {}, &error), 0);
    QVERIFY2(error.contains(QStringLiteral("already named “Coder”")), qPrintable(error));
    error.clear();
    QCOMPARE(store->create_system_prompt(QStringLiteral(" coder "), {}, &error), 0);  // case aside
    QVERIFY2(error.contains(QStringLiteral("already named")), qPrintable(error));
    error.clear();
    QCOMPARE(store->create_system_prompt(QStringLiteral("   "), kCoder, &error), 0);
    QVERIFY2(error.contains(QStringLiteral("the name is empty")), qPrintable(error));
    QCOMPARE(store->create_system_prompt(QString(), kCoder, &error), 0);
    // A rename onto another's name is refused; onto its own (another case) is not.
    QVERIFY(!store->update_system_prompt(poet, QStringLiteral("CODER"), kPoet, &error));
    QVERIFY(!store->update_system_prompt(poet, QString(), kPoet, &error));
    QVERIFY2(store->update_system_prompt(poet, QStringLiteral("POET"), kPoet, &error),
             qPrintable(error));
    QCOMPARE(names(store->system_prompts()),
             (QStringList{QStringLiteral("Coder"), QStringLiteral("POET")}));
    QCOMPARE(raw_value(path, QStringLiteral("SELECT COUNT(*) FROM system_prompts")).toInt(), 2);
  }

  void aPickPersistsAcrossReopen() {
    const QString path = dir_.filePath(QStringLiteral("pick.sqlite"));
    QString error;
    qint64 conversation = 0, other = 0, coder = 0;
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      conversation = store->create_conversation(QStringLiteral("a"), {}, &error);
      other = store->create_conversation(QStringLiteral("b"), QStringLiteral("own"), &error);
      coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
      QVERIFY(conversation && other && coder);
      QCOMPARE(store->conversation_system_prompt_id(conversation), 0);
      QVERIFY2(store->use_system_prompt(conversation, coder, &error), qPrintable(error));
      QVERIFY(!store->use_system_prompt(conversation, coder + 100, &error));
      QVERIFY(!store->use_system_prompt(conversation + 100, coder, &error));
    }
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      QCOMPARE(store->conversation_system_prompt_id(conversation), coder);
      QCOMPARE(store->conversation(conversation)->system_prompt, kCoder);
      QCOMPARE(store->conversation_system_prompt_id(other), 0);
      QCOMPARE(store->conversation(other)->system_prompt, QStringLiteral("own"));
      QCOMPARE(store->system_prompt(coder)->used_by, 1);
      // Linked by hand (Save as: the text is the conversation's already), and unlinked.
      QVERIFY(store->set_conversation_system_prompt_id(other, coder, &error));
      QCOMPARE(store->system_prompt(coder)->used_by, 2);
      QVERIFY(store->set_conversation_system_prompt_id(other, 0, &error));
      QCOMPARE(store->conversation_system_prompt_id(other), 0);
      QVERIFY(!store->set_conversation_system_prompt_id(other, coder + 100, &error));
    }
  }

  void textTypedByHandUnlinks() {
    const QString path = dir_.filePath(QStringLiteral("typed.sqlite"));
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 c = store->create_conversation(QStringLiteral("a"), {}, &error);
    const qint64 coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
    QVERIFY(store->use_system_prompt(c, coder, &error));
    // The same text again (the drawer's Apply) keeps the link.
    QVERIFY(store->set_system_prompt(c, kCoder, &error));
    QCOMPARE(store->conversation_system_prompt_id(c), coder);
    // The saved prompt edited, not applied: the conversation's unchanged text keeps it too.
    QVERIFY(store->update_system_prompt(coder, QStringLiteral("Coder"), kPoet, &error));
    QVERIFY(store->set_system_prompt(c, kCoder, &error));
    QCOMPARE(store->conversation_system_prompt_id(c), coder);
    // The prompt's new text typed in: still picked from it.
    QVERIFY(store->set_system_prompt(c, kPoet, &error));
    QCOMPARE(store->conversation_system_prompt_id(c), coder);
    // Other text: typed by hand, no longer picked from it.
    QVERIFY(store->set_system_prompt(c, QStringLiteral("mine"), &error));
    QCOMPARE(store->conversation_system_prompt_id(c), 0);
    QCOMPARE(store->conversation(c)->system_prompt, QStringLiteral("mine"));
    QVERIFY(!store->set_system_prompt(c + 100, QStringLiteral("x"), &error));
  }

  void anEditReachesConversationsOnlyWhenApplied() {
    const QString path = dir_.filePath(QStringLiteral("apply.sqlite"));
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
    const qint64 a = store->create_conversation(QStringLiteral("a"), {}, &error);
    const qint64 b = store->create_conversation(QStringLiteral("b"), {}, &error);
    const qint64 typed = store->create_conversation(QStringLiteral("c"), kCoder, &error);
    QVERIFY(store->use_system_prompt(a, coder, &error));
    QVERIFY(store->use_system_prompt(b, coder, &error));
    const QString edited = kCoder + QStringLiteral(" Cite the standard.");
    QVERIFY(store->update_system_prompt(coder, QStringLiteral("Coder"), edited, &error));
    QCOMPARE(store->conversation(a)->system_prompt, kCoder);  // not yet
    QCOMPARE(store->apply_system_prompt_text(coder, &error), 2);
    QCOMPARE(store->conversation(a)->system_prompt, edited);
    QCOMPARE(store->conversation(b)->system_prompt, edited);
    QCOMPARE(store->conversation(typed)->system_prompt, kCoder);  // not picked from it
    QCOMPARE(store->apply_system_prompt_text(coder, &error), 0);  // nothing left to change
    QCOMPARE(store->apply_system_prompt_text(coder + 100, &error), -1);
  }

  void deleteLeavesTheConversationsText() {
    const QString path = dir_.filePath(QStringLiteral("delete.sqlite"));
    QString error;
    qint64 c = 0, coder = 0;
    {
      auto store = ConversationStore::open(path, &error);
      QVERIFY2(store, qPrintable(error));
      c = store->create_conversation(QStringLiteral("a"), {}, &error);
      coder = store->create_system_prompt(QStringLiteral("Coder"), kCoder, &error);
      QVERIFY(store->use_system_prompt(c, coder, &error));
      QVERIFY2(store->delete_system_prompt(coder, &error), qPrintable(error));
      QCOMPARE(store->conversation(c)->system_prompt, kCoder);
      QCOMPARE(store->conversation_system_prompt_id(c), 0);
    }
    QVERIFY(
        raw_value(path,
                  QStringLiteral("SELECT system_prompt_id FROM conversations WHERE id = %1").arg(c))
            .isNull());
    QCOMPARE(
        raw_value(path,
                  QStringLiteral("SELECT system_prompt FROM conversations WHERE id = %1").arg(c))
            .toString(),
        kCoder);
    // The foreign key does it too (ON DELETE SET NULL), for a delete made elsewhere.
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 poet = store->create_system_prompt(QStringLiteral("Poet"), kPoet, &error);
    QVERIFY(store->use_system_prompt(c, poet, &error));
    store.reset();
    QVERIFY(raw_exec(path, {QStringLiteral("PRAGMA foreign_keys = ON"),
                            QStringLiteral("DELETE FROM system_prompts WHERE id = %1").arg(poet)}));
    QVERIFY(
        raw_value(path,
                  QStringLiteral("SELECT system_prompt_id FROM conversations WHERE id = %1").arg(c))
            .isNull());
  }

  void aVersion4FileMigratesWithItsConversations() {
    const QString path = dir_.filePath(QStringLiteral("v4.sqlite"));
    QString error;
    {
      auto v4 = ConversationStore::open(path, ConversationStore::migrations().mid(0, 4), &error);
      QVERIFY2(v4, qPrintable(error));
      QCOMPARE(v4->schema_version(), 4);
    }
    // Rows as a version-4 kvchat wrote them (raw SQL: this build's store writes the newest
    // schema's columns).
    QVERIFY(raw_exec(
        path,
        {QStringLiteral("INSERT INTO conversations (id, title, system_prompt, settings_json,"
                        " created_at, updated_at) VALUES (1, 'old one', 'Be terse.', '{}', 1, 2)"),
         QStringLiteral("INSERT INTO conversations (id, title, system_prompt, settings_json,"
                        " created_at, updated_at) VALUES (2, 'no prompt', '', '{}', 3, 4)"),
         QStringLiteral("INSERT INTO messages (conversation_id, position, role, content, state,"
                        " stats_json, created_at) VALUES (1, 0, 'user', 'hello', 'complete', '{}',"
                        " 5)")}));
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->schema_version(), ConversationStore::kSchemaVersion);
    QCOMPARE(store->conversations().size(), 2);
    QCOMPARE(store->conversation(1)->title, QStringLiteral("old one"));
    QCOMPARE(store->conversation(1)->system_prompt, QStringLiteral("Be terse."));
    QCOMPARE(store->conversation(2)->system_prompt, QString());
    QCOMPARE(store->messages(1).size(), 1);
    QCOMPARE(store->messages(1)[0].content, QStringLiteral("hello"));
    QCOMPARE(store->conversation_system_prompt_id(1), 0);
    QVERIFY(store->system_prompts().isEmpty());
    store.reset();
    QCOMPARE(raw_value(path, QStringLiteral("SELECT COUNT(*) FROM conversations"
                                            " WHERE system_prompt_id IS NULL"))
                 .toInt(),
             2);
    // The library works on the migrated file.
    store = ConversationStore::open(path, &error);
    const qint64 terse =
        store->create_system_prompt(QStringLiteral("Terse"), QStringLiteral("Be terse."), &error);
    QVERIFY2(terse > 0, qPrintable(error));
    QVERIFY(store->set_conversation_system_prompt_id(1, terse, &error));
    QCOMPARE(store->system_prompt(terse)->used_by, 1);
  }

  // ---- the library as the window uses it --------------------------------------------------

  void pickSaveAsEditAndDeleteThroughTheChat() {
    QTemporaryDir dir;
    qint64 conversation = 0, coder = 0;
    {
      ChatController chat(dir.path());
      SystemPromptController* prompts = chat.system_prompts();
      QVERIFY(prompts);
      // Save as, with no conversation open: one is opened and uses the new prompt.
      QSignalSpy changed(prompts, &SystemPromptController::currentPromptChanged);
      coder = prompts->saveAs(QStringLiteral("Coder"), kCoder);
      QVERIFY2(coder > 0, qPrintable(prompts->last_error()));
      conversation = chat.current_conversation();
      QVERIFY(conversation > 0);
      QCOMPARE(chat.system_prompt(), kCoder);
      QCOMPARE(prompts->current_prompt_id(), coder);
      QCOMPARE(prompts->current_prompt_name(), QStringLiteral("Coder"));
      QVERIFY(!prompts->current_differs());
      QVERIFY(changed.count() > 0);
      QCOMPARE(prompts->list_model()->rowCount(), 1);
      QCOMPARE(prompts->usedBy(coder), 1);
      // A duplicate and an empty name: refused, with the reason for the dialog.
      QCOMPARE(prompts->saveAs(QStringLiteral("coder"), kPoet), 0);
      QVERIFY2(prompts->last_error().contains(QStringLiteral("“Coder”")),
               qPrintable(prompts->last_error()));
      QCOMPARE(prompts->saveAs(QStringLiteral(" "), kPoet), 0);
      QVERIFY(!prompts->last_error().isEmpty());
      QVERIFY(!prompts->nameProblem(QStringLiteral("CODER")).isEmpty());
      QVERIFY(prompts->nameProblem(QStringLiteral("CODER"), coder).isEmpty());  // its own
      QCOMPARE(prompts->list_model()->rowCount(), 1);
      // Typed by hand: no longer picked from it.
      chat.set_system_prompt(QStringLiteral("mine"));
      QCOMPARE(prompts->current_prompt_id(), 0);
      QVERIFY(prompts->pick(coder));
      QCOMPARE(chat.system_prompt(), kCoder);
      QCOMPARE(prompts->current_prompt_id(), coder);
      // Edited without applying: the conversation keeps its text, and is told it differs.
      QVERIFY(prompts->edit(coder, QStringLiteral("Reviewer"), kPoet, QStringLiteral("none")));
      QCOMPARE(chat.system_prompt(), kCoder);
      QCOMPARE(prompts->current_prompt_name(), QStringLiteral("Reviewer"));
      QVERIFY(prompts->current_differs());
      // Applied to all of them: the open one shows the new text.
      QVERIFY(prompts->edit(coder, QStringLiteral("Reviewer"), kPoet, QStringLiteral("all")));
      QCOMPARE(chat.system_prompt(), kPoet);
      QVERIFY(!prompts->current_differs());
      // A rename onto nothing is refused.
      QVERIFY(!prompts->edit(coder, QString(), kPoet, QStringLiteral("none")));
      QVERIFY(!prompts->last_error().isEmpty());
    }
    // Reopened: the conversation is picked from it still.
    {
      ChatController chat(dir.path());
      QCOMPARE(chat.current_conversation(), conversation);
      QCOMPARE(chat.system_prompts()->current_prompt_id(), coder);
      QCOMPARE(chat.system_prompt(), kPoet);
      // Deleted: the conversation keeps its text.
      QVERIFY(chat.system_prompts()->remove(coder));
      QCOMPARE(chat.system_prompts()->current_prompt_id(), 0);
      QCOMPARE(chat.system_prompt(), kPoet);
      QCOMPARE(chat.system_prompts()->list_model()->rowCount(), 0);
    }
  }

  void editAppliedToTheOpenConversationOnly() {
    QTemporaryDir dir;
    ChatController chat(dir.path());
    SystemPromptController* prompts = chat.system_prompts();
    const qint64 coder = prompts->saveAs(QStringLiteral("Coder"), kCoder);
    const qint64 first = chat.current_conversation();
    QVERIFY(coder > 0 && first > 0);
    QString error;
    QVERIFY(chat.append_exchange(first, QStringLiteral("q"), {}, QStringLiteral("a"), {}, &error));
    chat.newConversation();
    const qint64 second = chat.current_conversation();
    QVERIFY(second != first);
    QVERIFY(prompts->pick(coder));
    QCOMPARE(prompts->usedBy(coder), 2);
    QVERIFY(prompts->edit(coder, QStringLiteral("Coder"), kPoet, QStringLiteral("current")));
    QCOMPARE(chat.system_prompt(), kPoet);
    chat.selectConversation(first);
    QCOMPARE(chat.system_prompt(), kCoder);  // the other one keeps its text
    QCOMPARE(prompts->current_prompt_id(), coder);
    QVERIFY(prompts->current_differs());
    // "None": unlinked, the text kept.
    QVERIFY(prompts->pick(0));
    QCOMPARE(prompts->current_prompt_id(), 0);
    QCOMPARE(chat.system_prompt(), kCoder);
  }

  void aNewConversationStartsWithTheDefaultPrompt() {
    QTemporaryDir dir;
    {
      ChatController chat(dir.path());
      SystemPromptController* prompts = chat.system_prompts();
      QCOMPARE(prompts->default_prompt_id(), 0);
      QVERIFY(prompts->new_conversation_prompt().isEmpty());
      QString error;
      const qint64 poet = prompts->saveAs(QStringLiteral("Poet"), kPoet);
      QVERIFY(poet > 0);
      QVERIFY(chat.append_exchange(chat.current_conversation(), QStringLiteral("q"), {},
                                   QStringLiteral("a"), {}, &error));
      QSignalSpy defaults(prompts, &SystemPromptController::defaultPromptChanged);
      prompts->setDefaultPromptId(poet);
      QCOMPARE(defaults.count(), 1);
      QCOMPARE(prompts->default_prompt_id(), poet);
      chat.newConversation();
      const qint64 fresh = chat.current_conversation();
      QCOMPARE(chat.system_prompt(), kPoet);
      QCOMPARE(prompts->current_prompt_id(), poet);
      // Still an empty conversation: New chat again reuses it, no second one is listed.
      const int listed = chat.conversation_list()->list_model()->rowCount();
      chat.newConversation();
      QCOMPARE(chat.current_conversation(), fresh);
      QCOMPARE(chat.conversation_list()->list_model()->rowCount(), listed);
    }
    {
      // The default is a setting: kept across a restart; deleting the prompt clears it.
      ChatController chat(dir.path());
      SystemPromptController* prompts = chat.system_prompts();
      const qint64 poet = prompts->default_prompt_id();
      QVERIFY(poet > 0);
      QVERIFY(prompts->remove(poet));
      QCOMPARE(prompts->default_prompt_id(), 0);
      QCOMPARE(chat.setting(SystemPromptController::kDefaultSetting, -1).toInt(), -1);
      QCOMPARE(chat.system_prompt(), kPoet);  // the open conversation keeps its text
    }
  }

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSystemPrompts)
#include "test_system_prompts.moc"
