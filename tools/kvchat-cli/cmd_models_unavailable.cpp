// kvchat-cli models (search, fit, pull) without the app: the Hub client and the downloads
// are Qt code (app/hub, the library kvchat_hub). tools/kvchat-cli/CMakeLists.txt compiles
// hub/cmd_models.cpp and hub/cmd_models_pull.cpp instead of this file when kvchat_hub is
// built (-DKVCHAT_BUILD_APP=ON).
#include "commands.h"

namespace kvchat::cli {

int cmd_models(const Argv&) {
  return fail(
      "models needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the Hub "
      "client is Qt code");
}

int cmd_models_pull(const Argv&) {
  return fail(
      "models pull needs the app build (configure with -DKVCHAT_BUILD_APP=ON and Qt 6): the "
      "downloads are Qt code");
}

}  // namespace kvchat::cli
