// kvchat-cli models (search, fit, pull) without the app: the Hub client and the downloads
// are Qt code (app/hub), linked into kvchat-cli only when the app is built
// (app/hub/CMakeLists.txt defines KVCHAT_CLI_HUB and adds app/hub/cli/cmd_models.cpp;
// app/CMakeLists.txt adds app/hub/cli/cmd_models_pull.cpp).
#ifndef KVCHAT_CLI_HUB
#include "commands.h"

namespace kvchat::cli {

int cmd_models(const Argv&) {
  return fail("models needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the Hub "
              "client is Qt code");
}

int cmd_models_pull(const Argv&) {
  return fail("models pull needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the "
              "downloads are Qt code");
}

}  // namespace kvchat::cli
#endif
