// SystemPromptController: the system prompt library as QML sees it (`systemPrompts`):
// the saved prompts (SystemPromptListModel, by name), which one the open conversation
// was picked from, saving the conversation's prompt under a name, picking one, editing
// one (its new text applied to the conversations picked from it, to the open one only, or
// to none), deleting one (the conversations keep their text), and the prompt a new
// conversation starts with (a setting). The open conversation and its text are the
// chat's (SystemPromptHost, ChatController): a pick goes through its set_system_prompt,
// which says its own errors. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QVariantList>

#include "conversations/system_prompt_list_model.h"
#include "store/conversation_store.h"

namespace kvchat::app {

class NoticeCenter;
class SettingsAccess;

// What the library needs from the chat that holds the open conversation.
class SystemPromptHost {
 public:
  virtual qint64 current_conversation() const = 0;
  virtual QString system_prompt() const = 0;  // the open conversation's text
  // The open conversation's text (a new conversation opened when none is); says its errors
  // and tells the window (currentConversationChanged).
  virtual void set_system_prompt(const QString& prompt) = 0;

 protected:
  ~SystemPromptHost() = default;
};

class SystemPromptController : public QObject {
  Q_OBJECT
  Q_PROPERTY(kvchat::app::SystemPromptListModel* model READ list_model CONSTANT)
  // The same for a ComboBox: [{id, name, text, usedBy}], by name.
  Q_PROPERTY(QVariantList prompts READ prompts NOTIFY promptsChanged)
  // The saved prompt the open conversation was picked from (0: none, its own text).
  // A double for QML (qmllint 6.4 has no qlonglong): ids stay far below 2^53.
  Q_PROPERTY(double currentPromptId READ current_prompt_id NOTIFY currentPromptChanged)
  Q_PROPERTY(QString currentPromptName READ current_prompt_name NOTIFY currentPromptChanged)
  // Picked from a saved prompt whose text has changed since (edited without applying).
  Q_PROPERTY(bool currentDiffers READ current_differs NOTIFY currentPromptChanged)
  // The saved prompt a new conversation starts with (0: none); the setting
  // "system_prompts/default".
  Q_PROPERTY(qint64 defaultPromptId READ default_prompt_id WRITE setDefaultPromptId NOTIFY
                 defaultPromptChanged)
  // Why the last save, edit or delete was refused ("" after one that was not), for the
  // dialog to show.
  Q_PROPERTY(QString lastError READ last_error NOTIFY lastErrorChanged)

 public:
  static inline const QString kDefaultSetting = QStringLiteral("system_prompts/default");

  // store may be null (the database could not be opened): the library stays empty.
  SystemPromptController(SystemPromptHost& chat, SettingsAccess& settings, ConversationStore* store,
                         NoticeCenter& notices, QObject* parent = nullptr);

  SystemPromptListModel* list_model() { return &prompts_; }
  QVariantList prompts() const;
  qint64 current_prompt_id() const { return current_prompt_id_; }
  QString current_prompt_name() const;
  bool current_differs() const;
  qint64 default_prompt_id() const;
  QString last_error() const { return last_error_; }

  // The list read again from the store, and the open conversation's link.
  void refresh();
  // The chat opened another conversation or changed its text.
  void on_conversation_changed();
  // The text a new conversation starts with: the default prompt's ("" when none).
  QString new_conversation_prompt() const;
  // A conversation being opened as new (ChatController::newConversation): with no text of
  // its own it gets the default prompt's, linked. The chat tells the window after.
  void start_conversation(qint64 conversation_id);

  // Why `name` cannot name a saved prompt (prompt `except_id` aside: its own name): empty,
  // or taken (case aside); "" when it can.
  Q_INVOKABLE QString nameProblem(const QString& name, qint64 except_id = 0) const;
  // Saves `text` (the box's) as a new prompt named `name`, and the open conversation uses
  // it. The new id, 0 when refused (lastError).
  Q_INVOKABLE qint64 saveAs(const QString& name, const QString& text);
  // The open conversation's text becomes the saved prompt's, linked to it (a new
  // conversation when none is open). 0: unlinked, its text kept.
  Q_INVOKABLE bool pick(qint64 id);
  // A new name and text. applyTo: "all" (every conversation picked from it, the open one
  // too), "current" (the open conversation only, which then is picked from it), "none".
  Q_INVOKABLE bool edit(qint64 id, const QString& name, const QString& text,
                        const QString& applyTo);
  // The conversations picked from it keep their text; a default it was is cleared.
  Q_INVOKABLE bool remove(qint64 id);
  // How many conversations were picked from the prompt.
  Q_INVOKABLE int usedBy(qint64 id) const;
  Q_INVOKABLE void setDefaultPromptId(qint64 id);

 signals:
  void currentPromptChanged();
  void defaultPromptChanged();
  void lastErrorChanged();
  void promptsChanged();  // the list was read again (a prompt saved, edited, deleted, picked)

 private:
  void set_last_error(const QString& error);
  void reload_list();  // prompts_ from the store; promptsChanged
  SystemPromptHost& chat_;
  SettingsAccess& settings_;
  ConversationStore* store_;
  NoticeCenter& notices_;
  SystemPromptListModel prompts_;
  qint64 current_prompt_id_ = 0;
  QString last_error_;
};

}  // namespace kvchat::app
