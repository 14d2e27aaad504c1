// kvchat-cli models pull without the app: the downloads are Qt code (app/hub), linked into
// kvchat-cli only when the app is built (app/CMakeLists.txt adds
// app/hub/cli/cmd_models_pull.cpp and defines KVCHAT_CLI_HUB).
#ifndef KVCHAT_CLI_HUB
#include "commands.h"

namespace kvchat::cli {

int cmd_models_pull(const Argv&) {
  return fail("models pull needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the "
              "downloads are Qt code");
}

}  // namespace kvchat::cli
#endif
