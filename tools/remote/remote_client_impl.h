// RemoteClient's state, shared by its two source files (remote_client.cpp: models and
// chat; remote_memory_fetch.cpp: the memory pages). Internal to kvchat_remote.
#pragma once

#include <string>

#include "kvchat/remote_client.h"
#include "openai_error.h"
#include "remote_http.h"

namespace kvchat {

struct RemoteClient::Impl {
  remote::RemoteHttp http;
  std::string origin;  // http.url().origin(), kept for RemoteClient::origin()'s reference
  // What the user reads: never the key, whatever the server echoed.
  Error error(const std::string& words) const {
    return Error{remote::without_key(words, http.key())};
  }
  // A non-200 answer in words (a redirect, or the status and the body's message).
  Error refusal(const remote::HttpAnswer& a) const {
    if (a.status >= 300 && a.status < 400) return error(http.redirect_in_words(a));
    return error(remote::http_error_in_words(a.status, a.body, !http.key().empty()));
  }
};

}  // namespace kvchat
