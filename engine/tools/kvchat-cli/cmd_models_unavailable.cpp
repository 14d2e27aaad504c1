// kvchat-cli models without the app: the Hub client is Qt code (app/hub), linked into
// kvchat-cli only when the app is built (app/hub/CMakeLists.txt defines KVCHAT_CLI_HUB
// and adds app/hub/cli/cmd_models.cpp).
#ifndef KVCHAT_CLI_HUB
#include "commands.h"

namespace kvchat::cli {

int cmd_models(const Argv&) {
  return fail("models needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the Hub "
              "client is Qt code");
}

}  // namespace kvchat::cli
#endif
