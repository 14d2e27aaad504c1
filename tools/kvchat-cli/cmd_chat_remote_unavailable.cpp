// chat --remote where kvchat_remote is not built (the GPU check build).
#include "commands.h"

namespace kvchat::cli {

int cmd_chat_remote(const Argv&) {
  return fail("chat --remote is not in this build (kvchat_remote: cpp-httplib was not built in)");
}

}  // namespace kvchat::cli
