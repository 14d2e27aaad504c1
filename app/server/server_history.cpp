#include "server/server_history.h"

#include <QString>
#include <algorithm>
#include <utility>

namespace kvchat::app {

void ServerHistory::carry(const ServerStats& stats, std::vector<ServerRequestRecord> log,
                          size_t max_log) {
  earlier_log_ = log_with_earlier(std::move(log), max_log);
  earlier_ = with_earlier(stats);
}

void ServerHistory::clear() {
  earlier_ = ServerStats{};
  earlier_log_.clear();
}

ServerStats ServerHistory::with_earlier(ServerStats now) const {
  now.requests += earlier_.requests;
  now.rejected_busy += earlier_.rejected_busy;
  now.client_hang_ups += earlier_.client_hang_ups;
  now.connections_refused += earlier_.connections_refused;
  now.requests_timed_out += earlier_.requests_timed_out;
  now.prompt_tokens_evaluated += earlier_.prompt_tokens_evaluated;
  now.decode_batches += earlier_.decode_batches;
  now.decode_steps += earlier_.decode_steps;
  now.max_decode_batch = std::max(now.max_decode_batch, earlier_.max_decode_batch);
  return now;
}

std::vector<ServerRequestRecord> ServerHistory::log_with_earlier(
    std::vector<ServerRequestRecord> now, size_t max) const {
  for (size_t i = 0; i < earlier_log_.size() && now.size() < max; ++i) {
    now.push_back(earlier_log_[i]);
  }
  if (now.size() > max) now.resize(max);
  return now;
}

void ServerHistory::drop_message_texts() {
  for (ServerRequestRecord& r : earlier_log_) r.message_text.clear();
}

QVariantMap request_record_map(const ServerRequestRecord& r) {
  return QVariantMap{{QStringLiteral("time"), qint64(r.time_unix_ms)},
                     {QStringLiteral("method"), QString::fromStdString(r.method)},
                     {QStringLiteral("route"), QString::fromStdString(r.route)},
                     {QStringLiteral("status"), r.status},
                     {QStringLiteral("prompt_tokens"), r.prompt_tokens},
                     {QStringLiteral("completion_tokens"), r.completion_tokens},
                     {QStringLiteral("duration_ms"), qint64(r.duration_ms)},
                     {QStringLiteral("client_address"), QString::fromStdString(r.client_address)},
                     {QStringLiteral("user_agent"), QString::fromStdString(r.user_agent)},
                     {QStringLiteral("model"), QString::fromStdString(r.model)},
                     {QStringLiteral("session"), r.session},
                     {QStringLiteral("message_text"), QString::fromStdString(r.message_text)}};
}

}  // namespace kvchat::app
