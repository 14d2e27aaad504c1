// A remote model named like a file, so that the model controller, the recent list and a
// conversation remember it as they remember a local one: "remote://ENDPOINT/MODEL" (the
// endpoint's id in remote_endpoints.json, the model's id as its /v1/models lists it,
// percent-encoded: ids such as "meta-llama/Llama-3.1-70B-Instruct" hold slashes).
#pragma once

#include <QString>
#include <optional>

namespace kvchat::app {

struct RemoteModelRef {
  QString endpoint_id;
  QString model;
};

QString remote_model_path(const QString& endpoint_id, const QString& model);
bool is_remote_model_path(const QString& path);
// nullopt: not a remote model's path, or a malformed one.
std::optional<RemoteModelRef> parse_remote_model_path(const QString& path);

}  // namespace kvchat::app
