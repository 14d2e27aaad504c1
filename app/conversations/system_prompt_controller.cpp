#include "conversations/system_prompt_controller.h"

#include "notices/notice_center.h"
#include "settings/settings_access.h"

namespace kvchat::app {

SystemPromptController::SystemPromptController(SystemPromptHost& chat, SettingsAccess& settings,
                                               ConversationStore* store, NoticeCenter& notices,
                                               QObject* parent)
    : QObject(parent), chat_(chat), settings_(settings), store_(store), notices_(notices) {
  refresh();
}

void SystemPromptController::refresh() {
  if (!store_) return;
  reload_list();
  on_conversation_changed();
}

void SystemPromptController::reload_list() {
  if (!store_) return;
  prompts_.reset(store_->system_prompts());
  emit promptsChanged();
}

QVariantList SystemPromptController::prompts() const {
  QVariantList out;
  for (const StoredSystemPrompt& p : prompts_.items()) {
    out.append(QVariantMap{{QStringLiteral("id"), p.id},
                           {QStringLiteral("name"), p.name},
                           {QStringLiteral("text"), p.text},
                           {QStringLiteral("usedBy"), p.used_by}});
  }
  return out;
}

void SystemPromptController::on_conversation_changed() {
  const qint64 conversation = chat_.current_conversation();
  current_prompt_id_ =
      store_ && conversation ? store_->conversation_system_prompt_id(conversation) : 0;
  emit currentPromptChanged();
}

QString SystemPromptController::current_prompt_name() const {
  const StoredSystemPrompt* p = prompts_.find(current_prompt_id_);
  return p ? p->name : QString();
}

bool SystemPromptController::current_differs() const {
  const StoredSystemPrompt* p = prompts_.find(current_prompt_id_);
  return p && p->text != chat_.system_prompt();
}

qint64 SystemPromptController::default_prompt_id() const {
  const qint64 id = settings_.setting(kDefaultSetting, 0).toLongLong();
  return prompts_.find(id) ? id : 0;  // a deleted one is no default
}

QString SystemPromptController::new_conversation_prompt() const {
  const StoredSystemPrompt* p = prompts_.find(default_prompt_id());
  return p ? p->text : QString();
}

void SystemPromptController::start_conversation(qint64 conversation_id) {
  const qint64 id = default_prompt_id();
  if (!store_ || !id || !conversation_id) return;
  const auto conversation = store_->conversation(conversation_id);
  if (!conversation || !conversation->system_prompt.isEmpty()) return;
  QString error;
  if (!store_->use_system_prompt(conversation_id, id, &error)) {
    notices_.show_error(tr("The default system prompt was not applied: %1").arg(error));
  }
  reload_list();  // its count of conversations
}

QString SystemPromptController::nameProblem(const QString& name, qint64 except_id) const {
  const QString trimmed = name.trimmed();
  if (trimmed.isEmpty()) return tr("Give the prompt a name.");
  for (const StoredSystemPrompt& p : prompts_.items()) {
    if (p.id != except_id && p.name.compare(trimmed, Qt::CaseInsensitive) == 0)
      return tr("A saved prompt is already named “%1”. Choose another name.").arg(p.name);
  }
  return {};
}

void SystemPromptController::set_last_error(const QString& error) {
  if (error == last_error_) return;
  last_error_ = error;
  emit lastErrorChanged();
}

qint64 SystemPromptController::saveAs(const QString& name, const QString& text) {
  if (!store_) {
    set_last_error(tr("Nothing can be saved: the database could not be opened."));
    return 0;
  }
  if (const QString problem = nameProblem(name); !problem.isEmpty()) {
    set_last_error(problem);
    return 0;
  }
  QString error;
  const qint64 id = store_->create_system_prompt(name, text, &error);
  if (!id) {
    set_last_error(tr("The prompt was not saved: %1").arg(error));
    return 0;
  }
  set_last_error({});
  reload_list();
  pick(id);  // the open conversation uses what it was saved from
  return id;
}

bool SystemPromptController::pick(qint64 id) {
  if (!store_) return false;
  QString error;
  if (!id) {
    const qint64 conversation = chat_.current_conversation();
    if (conversation && !store_->set_conversation_system_prompt_id(conversation, 0, &error)) {
      notices_.show_error(tr("The system prompt was not changed: %1").arg(error));
      return false;
    }
    refresh();
    return true;
  }
  const StoredSystemPrompt* p = prompts_.find(id);
  if (!p) return false;
  const QString text = p->text;
  chat_.set_system_prompt(text);  // opens a conversation when none is; says its errors
  const qint64 conversation = chat_.current_conversation();
  if (!conversation || chat_.system_prompt() != text) return false;
  if (!store_->set_conversation_system_prompt_id(conversation, id, &error)) {
    notices_.show_error(tr("The system prompt was not changed: %1").arg(error));
    return false;
  }
  refresh();
  return true;
}

bool SystemPromptController::edit(qint64 id, const QString& name, const QString& text,
                                  const QString& applyTo) {
  if (!store_ || !prompts_.find(id)) return false;
  if (const QString problem = nameProblem(name, id); !problem.isEmpty()) {
    set_last_error(problem);
    return false;
  }
  QString error;
  if (!store_->update_system_prompt(id, name, text, &error)) {
    set_last_error(tr("The prompt was not saved: %1").arg(error));
    return false;
  }
  set_last_error({});
  const qint64 conversation = chat_.current_conversation();
  const bool open_uses_it =
      conversation && store_->conversation_system_prompt_id(conversation) == id;
  if (applyTo == QLatin1String("all")) {
    if (store_->apply_system_prompt_text(id, &error) < 0) {
      notices_.show_error(
          tr("The prompt is saved, but its conversations keep their old text: %1").arg(error));
    }
    if (open_uses_it) chat_.set_system_prompt(text);  // the window shows the new text
  } else if (applyTo == QLatin1String("current")) {
    reload_list();
    pick(id);
  }
  reload_list();
  refresh();
  return true;
}

bool SystemPromptController::remove(qint64 id) {
  if (!store_) return false;
  const bool was_default = default_prompt_id() == id;
  QString error;
  if (!store_->delete_system_prompt(id, &error)) {
    set_last_error(tr("The prompt was not deleted: %1").arg(error));
    notices_.show_error(last_error_);
    return false;
  }
  set_last_error({});
  if (was_default) settings_.save_setting(kDefaultSetting, QVariant());
  reload_list();
  if (was_default) emit defaultPromptChanged();
  refresh();
  return true;
}

int SystemPromptController::usedBy(qint64 id) const {
  const StoredSystemPrompt* p = prompts_.find(id);
  return p ? p->used_by : 0;
}

void SystemPromptController::setDefaultPromptId(qint64 id) {
  if (id && !prompts_.find(id)) return;
  if (id == default_prompt_id()) return;
  settings_.save_setting(kDefaultSetting, id ? QVariant(id) : QVariant());
  emit defaultPromptChanged();
}

}  // namespace kvchat::app
