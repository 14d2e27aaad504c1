// What every `kvchat-cli models` command starts with: a Qt application for the event loop
// (unless one exists), the Hub endpoint (--endpoint, else $HF_ENDPOINT, else the Hub) and a
// client on it with the access token of $HF_TOKEN (never an argument: those show in `ps`).
#pragma once

#include <QCoreApplication>
#include <memory>
#include <string>

#include "hub/hub_client.h"
#include "hub/hub_endpoint.h"
#include "kvchat/result.h"

namespace kvchat::cli {

class HubCliSession {
 public:
  // The endpoint named by `endpoint_option` ("" = not given), or why it is refused.
  static Result<hub::HubEndpoint> endpoint(const std::string& endpoint_option) {
    const hub::HubEndpoint e =
        hub::HubEndpoint::from_setting(QString::fromStdString(endpoint_option));
    if (!e.ok()) return Error{e.error().toStdString()};
    return e;
  }
  static QString token() { return qEnvironmentVariable("HF_TOKEN").trimmed(); }

  explicit HubCliSession(const hub::HubEndpoint& endpoint) {
    client_.set_endpoint(endpoint);
    client_.set_token(token());
  }
  hub::HubClient& client() { return client_; }

 private:
  static std::unique_ptr<QCoreApplication> make_app() {
    static int argc = 1;
    static char arg0[] = "kvchat-cli";
    static char* argv[] = {arg0, nullptr};
    return QCoreApplication::instance() ? nullptr : std::make_unique<QCoreApplication>(argc, argv);
  }
  std::unique_ptr<QCoreApplication> app_ = make_app();  // first: the client needs it
  hub::HubClient client_;
};

}  // namespace kvchat::cli
