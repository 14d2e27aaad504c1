// A conversation written out for the person who owns it: Markdown (to read, print or paste)
// or JSON (every stored field, to process or import elsewhere). Qt Core only, no window:
// the Export entry of the conversation list's context menu calls these through
// ChatController::exportConversation.
#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

#include "store/conversation_store.h"

namespace kvchat::app {

enum class ExportFormat { Markdown, Json };

// "json" (any case, with or without a dot) or a path ending in .json: Json; else Markdown.
ExportFormat export_format_for(const QString& path_or_suffix);

// "# <title>", an export line, the system prompt (when set) as a quote, then one
// "## You" / "## Assistant" section per message of `messages` (the branch shown) with its text
// exactly as stored (a reply that was stopped or cut short is marked after its text). UTF-8.
QByteArray conversation_to_markdown(const StoredConversation& conversation,
                                    const QVector<StoredMessage>& messages);

// {"format": "kvchat-conversation", "version": 2, "title", "system_prompt", "created",
//  "updated", "settings", "messages": [{"role", "content", "state", "created", "stats"}],
//  "tree": [{"id", "parent", "branch", "branches", "selected", "shown", "role", "content",
//  "state", "created", "stats"}]} (times in ISO 8601 UTC). "messages" is the branch shown
// (as version 1 had it); "tree" every message of every branch (`tree`, the store's
// message_tree: parents before their children; "parent" null for a first message;
// "branch" its 0-based place among its siblings, "branches" how many there are;
// "selected" the sibling shown; "shown" on the branch shown). Indented UTF-8.
QByteArray conversation_to_json(const StoredConversation& conversation,
                                const QVector<StoredMessage>& messages,
                                const QVector<StoredMessage>& tree = {});

// A file name for the export: the title without characters file systems refuse, at most
// 60 characters, "conversation" when nothing is left, and the format's suffix.
QString export_file_name(const QString& title, ExportFormat format);

// Writes `bytes` to `path` whole or not at all (a temporary file renamed over it).
// False with *error (the path and the reason) when it could not.
bool write_export_file(const QString& path, const QByteArray& bytes, QString* error);

}  // namespace kvchat::app
