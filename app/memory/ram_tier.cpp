#include "memory/ram_tier.h"

namespace kvchat::app {

std::shared_ptr<KvRamTier> app_ram_tier() {
  static const std::shared_ptr<KvRamTier> tier = std::make_shared<KvRamTier>();
  return tier;
}

QString ram_tier_prefix(qint64 conversation) { return QStringLiteral("c%1/").arg(conversation); }

QList<qint64> ram_tier_conversations(const KvRamTier& tier) {
  QList<qint64> out;
  for (const KvTierEntry& e : tier.entries()) {
    if (e.key.size() < 3 || e.key[0] != 'c') continue;
    const size_t slash = e.key.find('/');
    if (slash == std::string::npos) continue;
    bool ok = false;
    const qint64 id = QString::fromStdString(e.key.substr(1, slash - 1)).toLongLong(&ok);
    if (ok && !out.contains(id)) out << id;
  }
  return out;
}

}  // namespace kvchat::app
