// SystemPromptListModel: the saved system prompts (by name), for QML: the Settings
// drawer's picker and the library dialog. Mutated only on the GUI thread, from the store.
#pragma once

#include <QAbstractListModel>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

class SystemPromptListModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

 public:
  enum Roles { IdRole = Qt::UserRole + 1, NameRole, TextRole, UsedByRole, UpdatedRole };
  using QAbstractListModel::QAbstractListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void reset(QVector<StoredSystemPrompt> prompts);
  const QVector<StoredSystemPrompt>& items() const { return items_; }
  const StoredSystemPrompt* find(qint64 id) const;
  int row_of(qint64 id) const;
  // For QML: the row of a prompt (-1 when it is not listed), its id / name / text at a row.
  Q_INVOKABLE int rowOf(qint64 id) const { return row_of(id); }
  Q_INVOKABLE qint64 idAt(int row) const;
  Q_INVOKABLE QString nameAt(int row) const;
  Q_INVOKABLE QString textAt(int row) const;

 signals:
  void countChanged();

 private:
  QVector<StoredSystemPrompt> items_;
};

}  // namespace kvchat::app
