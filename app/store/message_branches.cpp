// Branches in the store (schema step 5 -> 6, store/schema.cpp): a conversation's messages
// are a tree (parent_id); each group of siblings shows one (selected), and the path shown
// (shown = 1) runs from the first message down each group's selected one. Every write
// that changes which messages are shown recomputes that path in the same transaction.
// A subtree is deleted here with one recursive query (parent_id is not a foreign key).
//
// Every recursive query here is bounded whatever the parent links hold: it joins UNION
// (not UNION ALL) over the message id alone, so SQLite queues each id once and the
// recursion ends after at most the conversation's messages, and it stays inside the
// conversation. A loop of parent links (a damaged file) then ends instead of running
// forever; open() also finds such loops and mends them (repair_message_trees, below).
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/conversation_store.h"
#include "util/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::now_ms;
using sql::set_error;
using sql::text_value;
using sql::WriteTransaction;

// Where a message sits in the tree: its conversation, parent (NULL for a first message),
// place, role, number among its siblings and whether it is the one shown of them.
struct Place {
  qint64 conversation_id = 0;
  QVariant parent;
  qint64 position = 0;
  QString role;
  int version = 0;
  bool selected = false;
};

bool locate(QSqlDatabase& db, qint64 message_id, Place* place, const QString& what,
            QString* error) {
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("SELECT conversation_id, parent_id, position, role, version, selected"
                           " FROM messages WHERE id = ?"),
            {message_id}, what, error))
    return false;
  if (!q.next()) {
    set_error(error, QStringLiteral("%1: no message %2").arg(what, QString::number(message_id)));
    return false;
  }
  place->conversation_id = q.value(0).toLongLong();
  place->parent = q.value(1).isNull() ? QVariant() : QVariant(q.value(1).toLongLong());
  place->position = q.value(2).toLongLong();
  place->role = q.value(3).toString();
  place->version = q.value(4).toInt();
  place->selected = q.value(5).toInt() != 0;
  return true;
}

// The siblings of a place (the message itself included), as a WHERE clause and its values.
const char* kSiblings = "conversation_id = ? AND position = ? AND parent_id IS ?";
QVariantList sibling_values(const Place& p) { return {p.conversation_id, p.position, p.parent}; }

// The path shown, recomputed from the selections: from the selected first message down
// each selected child. Cleared first, so the partial unique index never sees two rows at
// one place.
bool refresh_shown(QSqlDatabase& db, qint64 conversation_id, const QString& what, QString* error) {
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral("UPDATE messages SET shown = 0 WHERE conversation_id = ? AND shown = 1"),
            {conversation_id}, what, error))
      return false;
  }
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral("WITH RECURSIVE path(id) AS ("
                             "  SELECT id FROM messages WHERE conversation_id = ?"
                             "    AND parent_id IS NULL AND selected = 1"
                             "  UNION SELECT c.id FROM messages AS c JOIN path"
                             "    ON c.parent_id = path.id"
                             "    WHERE c.selected = 1 AND c.conversation_id = ?)"
                             " UPDATE messages SET shown = 1 WHERE id IN (SELECT id FROM path)"),
              {conversation_id, conversation_id}, what, error);
}

// `updated` moves as for any message change: now, later than every stored time.
bool touch(QSqlDatabase& db, qint64 conversation_id, const QString& what, QString* error) {
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral(
                  "UPDATE conversations"
                  " SET updated_at = MAX(?, COALESCE((SELECT MAX(updated_at) FROM conversations),"
                  " 0) + 1) WHERE id = ?"),
              {now_ms(), conversation_id}, what, error);
}

// Deletes the messages below `message_id` in its conversation (with_itself: and the
// message; without, the message stays even when a loop leads back to it).
bool delete_subtree(QSqlDatabase& db, qint64 message_id, qint64 conversation_id, bool with_itself,
                    const QString& what, QString* error) {
  QSqlQuery q(db);
  const QString start =
      with_itself
          ? QStringLiteral("SELECT ?")
          : QStringLiteral("SELECT id FROM messages WHERE parent_id = ? AND conversation_id = ?");
  QVariantList values{message_id};
  if (!with_itself) values << conversation_id;
  values << conversation_id;
  if (!with_itself) values << message_id;
  return exec(q,
              QStringLiteral("WITH RECURSIVE sub(id) AS (%1"
                             "  UNION SELECT c.id FROM messages AS c JOIN sub"
                             "    ON c.parent_id = sub.id WHERE c.conversation_id = ?)"
                             " DELETE FROM messages WHERE id IN (SELECT id FROM sub)%2")
                  .arg(start, with_itself ? QString() : QStringLiteral(" AND id <> ?")),
              values, what, error);
}

QVector<StoredMessage> read_messages(QSqlQuery& q) {
  QVector<StoredMessage> out;
  while (q.next()) {
    StoredMessage m = stored_message_from_row(q);
    m.version_count = q.value(12).toInt();
    out.append(std::move(m));
  }
  return out;
}

}  // namespace

qint64 ConversationStore::add_branch(qint64 message_id, const QString& content, MessageState state,
                                     QString* error) {
  const QString what = QStringLiteral("add a branch");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  Place p;
  if (!locate(db, message_id, &p, what, error)) return 0;
  int version = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("SELECT COALESCE(MAX(version), -1) + 1 FROM messages WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              sibling_values(p), what, error) ||
        !q.next())
      return 0;
    version = q.value(0).toInt();
  }
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = 0 WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              sibling_values(p), what, error))
      return 0;
  }
  qint64 id = 0;
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral("INSERT INTO messages (conversation_id, position, role, content, state,"
                           " stats_json, created_at, version, parent_id, selected, shown)"
                           " VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, 1, 0)"),
            {p.conversation_id, p.position, p.role, text_value(content), stored_state_name(state),
             now_ms(), version, p.parent},
            what, error))
      return 0;
    id = q.lastInsertId().toLongLong();
  }
  if (!refresh_shown(db, p.conversation_id, what, error) ||
      !touch(db, p.conversation_id, what, error) || !tx.commit(error))
    return 0;
  return id;
}

bool ConversationStore::select_branch(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("switch the branch");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  if (!locate(db, message_id, &p, what, error)) return false;
  if (p.selected) return tx.commit(error);
  {
    QSqlQuery q(db);
    QVariantList values{message_id};
    values += sibling_values(p);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = (id = ?) WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
  }
  return refresh_shown(db, p.conversation_id, what, error) &&
         touch(db, p.conversation_id, what, error) && tx.commit(error);
}

bool ConversationStore::delete_messages_after(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("delete messages");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  return locate(db, message_id, &p, what, error) &&
         delete_subtree(db, message_id, p.conversation_id, /*with_itself=*/false, what, error) &&
         touch(db, p.conversation_id, what, error) && tx.commit(error);
}

bool ConversationStore::delete_message(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("delete message");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  if (!locate(db, message_id, &p, what, error) ||
      !delete_subtree(db, message_id, p.conversation_id, /*with_itself=*/true, what, error))
    return false;
  {
    // The later siblings close the gap.
    QSqlQuery q(db);
    QVariantList values = sibling_values(p);
    values << p.version;
    if (!exec(q,
              QStringLiteral("UPDATE messages SET version = version - 1 WHERE %1 AND version > ?")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
  }
  if (p.selected) {
    // The last of the others is shown (when there is one).
    QSqlQuery q(db);
    QVariantList values = sibling_values(p);
    values += sibling_values(p);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = 1 WHERE id ="
                             " (SELECT id FROM messages WHERE %1 ORDER BY version DESC LIMIT 1)"
                             " AND %1")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
    if (!refresh_shown(db, p.conversation_id, what, error)) return false;
  }
  return touch(db, p.conversation_id, what, error) && tx.commit(error);
}

QVector<StoredMessage> ConversationStore::branches(qint64 message_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1, 0 FROM messages AS m JOIN messages AS x ON x.id = ?"
                           " WHERE m.conversation_id = x.conversation_id"
                           "   AND m.position = x.position AND m.parent_id IS x.parent_id"
                           " ORDER BY m.version")
                .arg(QLatin1String(kMessageColumns)),
            {message_id}, {}, nullptr))
    return {};
  QVector<StoredMessage> out = read_messages(q);
  for (StoredMessage& m : out) m.version_count = static_cast<int>(out.size());
  return out;
}

QVector<StoredMessage> ConversationStore::message_tree(qint64 conversation_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  // A message's place is its depth: parents come before their children.
  if (!exec(q,
            QStringLiteral("SELECT %1, (SELECT COUNT(*) FROM messages AS s"
                           "  WHERE s.conversation_id = m.conversation_id"
                           "    AND s.position = m.position AND s.parent_id IS m.parent_id)"
                           " FROM messages AS m WHERE m.conversation_id = ?"
                           " ORDER BY m.position, m.parent_id, m.version")
                .arg(QLatin1String(kMessageColumns)),
            {conversation_id}, {}, nullptr))
    return {};
  return read_messages(q);
}

// ---- the check at open: loops and lost parents mended ------------------------------------

namespace {

// One message's place, as the check reads it.
struct TreeRow {
  qint64 id = 0, conversation_id = 0;
  bool has_parent = false;
  qint64 parent_id = 0;
  qint64 position = 0;
  int version = 0;
  bool selected = false;
};

// A part of a conversation that no first message reaches, and where it is cut off.
struct TreeFault {
  int entry = 0;  // the row that gets a new parent; its subtree comes with it
  QString what;   // what was wrong, for the report
};

// Every message's conversation and parent links; each row's children in sibling order.
struct Tree {
  std::vector<TreeRow> rows;
  std::unordered_map<qint64, int> by_id;
  std::vector<std::vector<int>> children;  // a row's children in the same conversation
  std::vector<char> whole;                 // reached from a first message
  std::vector<TreeFault> faults;
};

QString id_list(const std::vector<qint64>& ids) {
  QStringList out;
  for (size_t i = 0; i < ids.size() && i < 12; ++i) out << QString::number(ids[i]);
  if (ids.size() > 12) out << QStringLiteral("... (%1 in all)").arg(ids.size());
  return out.join(QStringLiteral(", "));
}

// Siblings in the order the window shows them: by place, number, then id.
bool sibling_order(const Tree& t, int a, int b) {
  const TreeRow& x = t.rows[a];
  const TreeRow& y = t.rows[b];
  if (x.position != y.position) return x.position < y.position;
  if (x.version != y.version) return x.version < y.version;
  return x.id < y.id;
}

bool read_tree(QSqlDatabase& db, Tree* t, const QString& what, QString* error) {
  QSqlQuery q(db);
  q.setForwardOnly(true);
  if (!exec(q,
            QStringLiteral("SELECT id, conversation_id, parent_id IS NOT NULL,"
                           " COALESCE(parent_id, 0), position, version, selected FROM messages"),
            {}, what, error))
    return false;
  while (q.next()) {
    TreeRow r;
    r.id = q.value(0).toLongLong();
    r.conversation_id = q.value(1).toLongLong();
    r.has_parent = q.value(2).toInt() != 0;
    r.parent_id = q.value(3).toLongLong();
    r.position = q.value(4).toLongLong();
    r.version = q.value(5).toInt();
    r.selected = q.value(6).toInt() != 0;
    t->by_id.emplace(r.id, static_cast<int>(t->rows.size()));
    t->rows.push_back(r);
  }
  const int n = static_cast<int>(t->rows.size());
  t->children.assign(n, {});
  t->whole.assign(n, 0);
  // The parent of each row within its conversation (-1: none, or not a valid one).
  std::vector<int> parent(n, -1);
  for (int i = 0; i < n; ++i) {
    const TreeRow& r = t->rows[i];
    if (!r.has_parent) continue;
    const auto it = t->by_id.find(r.parent_id);
    if (it != t->by_id.end() && t->rows[it->second].conversation_id == r.conversation_id) {
      parent[i] = it->second;
      t->children[it->second].push_back(i);
    }
  }
  for (std::vector<int>& kids : t->children) {
    if (kids.size() > 1)
      std::sort(kids.begin(), kids.end(), [&](int a, int b) { return sibling_order(*t, a, b); });
  }
  // Up from every row until a first message (whole), a row already known, a row of this
  // walk (a loop) or a parent that is missing or in another conversation: each row is
  // walked once.
  enum : char { kNew = 0, kWalking = 1, kWhole = 2, kCut = 3 };
  std::vector<char> state(n, kNew);
  std::vector<int> walk;
  std::vector<size_t> place(n, 0);
  for (int start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    walk.clear();
    char outcome = kCut;
    for (int j = start;;) {
      if (state[j] == kWhole || state[j] == kCut) {
        outcome = state[j];
        break;
      }
      if (state[j] == kWalking) {  // a loop: the rows of this walk from j on
        std::vector<qint64> ids;
        int entry = j;
        for (size_t k = place[j]; k < walk.size(); ++k) {
          const int m = walk[k];
          ids.push_back(t->rows[m].id);
          const TreeRow& a = t->rows[m];
          const TreeRow& b = t->rows[entry];
          if (a.position < b.position || (a.position == b.position && a.id < b.id)) entry = m;
        }
        std::sort(ids.begin(), ids.end());
        t->faults.push_back(
            {entry, ids.size() == 1
                        ? QStringLiteral("message %1 was its own parent").arg(ids[0])
                        : QStringLiteral("messages %1 were each other's parents in a loop")
                              .arg(id_list(ids))});
        break;
      }
      state[j] = kWalking;
      place[j] = walk.size();
      walk.push_back(j);
      const TreeRow& r = t->rows[j];
      if (!r.has_parent) {
        outcome = kWhole;
        break;
      }
      if (parent[j] < 0) {
        const bool elsewhere = t->by_id.count(r.parent_id) != 0;
        t->faults.push_back(
            {j, elsewhere ? QStringLiteral("message %1's parent %2 is in another conversation")
                                .arg(r.id)
                                .arg(r.parent_id)
                          : QStringLiteral("message %1's parent %2 does not exist")
                                .arg(r.id)
                                .arg(r.parent_id)});
        break;
      }
      j = parent[j];
    }
    for (int m : walk) state[m] = outcome;
  }
  for (int i = 0; i < n; ++i) t->whole[i] = state[i] == kWhole;
  return true;
}

// A new place for one row: parent (NULL: a first message), depth, number and choice.
struct NewPlace {
  qint64 id = 0;
  QVariant parent;
  qint64 position = 0;
  int version = 0;
  bool selected = false;
};

// The repairs of one conversation's faults; `said` gets a line per fault.
std::vector<NewPlace> mend_conversation(Tree& t, qint64 conversation_id,
                                        const std::vector<const TreeFault*>& faults,
                                        QStringList* said) {
  std::vector<NewPlace> out;
  const int n = static_cast<int>(t.rows.size());
  // The path shown of what is whole: the selected first message down each selected child.
  std::vector<int> path;
  {
    int cur = -1;
    for (int i = 0; i < n; ++i) {
      const TreeRow& r = t.rows[i];
      if (r.conversation_id == conversation_id && !r.has_parent && t.whole[i] && r.selected)
        if (cur < 0 || sibling_order(t, i, cur)) cur = i;
    }
    while (cur >= 0 && path.size() < size_t(n)) {
      path.push_back(cur);
      int next = -1;
      for (int c : t.children[cur]) {
        if (t.rows[c].selected && t.whole[c]) {
          next = c;
          break;
        }
      }
      cur = next;
    }
  }
  // Groups of siblings the repairs join: (parent row or -1, place) -> (members, top version).
  std::map<std::pair<int, qint64>, std::pair<int, int>> groups;
  auto group_of = [&](int parent, qint64 position) -> std::pair<int, int>& {
    const auto key = std::make_pair(parent, position);
    auto it = groups.find(key);
    if (it != groups.end()) return it->second;
    std::pair<int, int> g{0, -1};
    auto count = [&](int i) {
      if (!t.whole[i] || t.rows[i].position != position) return;
      ++g.first;
      g.second = std::max(g.second, t.rows[i].version);
    };
    if (parent >= 0) {
      for (int c : t.children[parent]) count(c);
    } else {
      for (int i = 0; i < n; ++i)
        if (t.rows[i].conversation_id == conversation_id && !t.rows[i].has_parent) count(i);
    }
    return groups.emplace(key, g).first->second;
  };
  std::vector<char> placed(n, 0);
  for (const TreeFault* f : faults) {
    const int e = f->entry;
    if (placed[e]) continue;
    // After the message shown one place above it (the path's last when it is shorter); a
    // first message when it sits at the top or nothing is whole.
    int new_parent = -1;
    qint64 position = path.empty() ? 1 : t.rows[path[0]].position;
    if (!path.empty() && t.rows[e].position - 1 >= t.rows[path[0]].position) {
      const qint64 k = std::min<qint64>(t.rows[e].position - 1 - t.rows[path[0]].position,
                                        qint64(path.size()) - 1);
      new_parent = path[size_t(k)];
      position = t.rows[new_parent].position + 1;
    }
    std::pair<int, int>& g = group_of(new_parent, position);
    NewPlace top;
    top.id = t.rows[e].id;
    top.parent = new_parent >= 0 ? QVariant(t.rows[new_parent].id) : QVariant();
    top.position = position;
    top.version = g.second + 1;
    top.selected = g.first == 0;  // the only one of its group is the one shown
    ++g.first;
    g.second = top.version;
    out.push_back(top);
    placed[e] = 1;
    said->append(QStringLiteral("%1; message %2 now %3")
                     .arg(f->what, QString::number(t.rows[e].id),
                          new_parent >= 0
                              ? QStringLiteral("follows message %1").arg(t.rows[new_parent].id)
                              : QStringLiteral("is a first message")));
    // Below it, down every branch: depths from its own, each group of siblings numbered
    // 0.. in its old order with one of them chosen (the last chosen before, else the last).
    std::vector<std::pair<int, qint64>> queue{{e, position}};
    for (size_t head = 0; head < queue.size(); ++head) {
      const auto [u, depth] = queue[head];
      std::vector<int> kids;
      for (int c : t.children[u])
        if (c != e && !placed[c]) kids.push_back(c);
      int chosen = kids.empty() ? -1 : kids.back();
      for (int c : kids)
        if (t.rows[c].selected) chosen = c;
      for (size_t v = 0; v < kids.size(); ++v) {
        const int c = kids[v];
        placed[c] = 1;
        out.push_back({t.rows[c].id, QVariant(t.rows[u].id), depth + 1, int(v), c == chosen});
        queue.push_back({c, depth + 1});
      }
    }
  }
  return out;
}

}  // namespace

QString ConversationStore::repair_message_trees(QString* error) {
  const QString what = QStringLiteral("check the message tree");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  {
    Tree t;  // a read first: a whole tree (the usual case) takes no write lock
    if (!read_tree(db, &t, what, error)) return {};
    if (t.faults.empty()) return {};
  }
  WriteTransaction tx(db);
  if (!tx.begin(error)) return {};
  Tree t;  // again under the write lock: another store may have mended it meanwhile
  if (!read_tree(db, &t, what, error)) return {};
  if (t.faults.empty()) {
    tx.commit(error);
    return {};
  }
  std::map<qint64, std::vector<const TreeFault*>> by_conversation;
  for (const TreeFault& f : t.faults)
    by_conversation[t.rows[f.entry].conversation_id].push_back(&f);
  QStringList report;
  for (auto& [conversation_id, faults] : by_conversation) {
    std::sort(faults.begin(), faults.end(), [&](const TreeFault* a, const TreeFault* b) {
      const TreeRow& x = t.rows[a->entry];
      const TreeRow& y = t.rows[b->entry];
      return x.position != y.position ? x.position < y.position : x.id < y.id;
    });
    QStringList said;
    const std::vector<NewPlace> places = mend_conversation(t, conversation_id, faults, &said);
    {
      // The path is cleared first: the partial unique index never sees two rows at a place.
      QSqlQuery q(db);
      if (!exec(q, QStringLiteral("UPDATE messages SET shown = 0 WHERE conversation_id = ?"),
                {conversation_id}, what, error))
        return {};
    }
    QSqlQuery q(db);
    if (!q.prepare(QStringLiteral("UPDATE messages SET parent_id = ?, position = ?, version = ?,"
                                  " selected = ? WHERE id = ?"))) {
      set_error(error, QStringLiteral("%1: %2").arg(what, sql::error_text(q.lastError())));
      return {};
    }
    for (const NewPlace& p : places) {
      q.bindValue(0, p.parent);  // invalid: NULL
      q.bindValue(1, p.position);
      q.bindValue(2, p.version);
      q.bindValue(3, p.selected ? 1 : 0);
      q.bindValue(4, p.id);
      if (!q.exec()) {
        set_error(error, QStringLiteral("%1: %2").arg(what, sql::error_text(q.lastError())));
        return {};
      }
    }
    if (!refresh_shown(db, conversation_id, what, error)) return {};
    QString title;
    {
      QSqlQuery tq(db);
      if (exec(tq, QStringLiteral("SELECT title FROM conversations WHERE id = ?"),
               {conversation_id}, what, nullptr) &&
          tq.next())
        title = tq.value(0).toString();
    }
    report << QStringLiteral("in \u201c%1\u201d (conversation %2): %3")
                  .arg(title, QString::number(conversation_id), said.join(QStringLiteral("; ")));
  }
  if (!tx.commit(error)) return {};
  return QStringLiteral(
             "The message tree was damaged (kvchat never writes one like it) and has been "
             "mended, no message lost: %1.")
      .arg(report.join(QStringLiteral("; ")));
}

}  // namespace kvchat::app
