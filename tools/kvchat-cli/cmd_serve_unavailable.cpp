// kvchat-cli serve without the server library: the GPU check (-DKVCHAT_GPU_CHECK=ON) builds
// on a bare CUDA machine without cpp-httplib, so tools/kvchat-cli/CMakeLists.txt compiles
// this file instead of cmd_serve.cpp when kvchat_server is not built.
#include "commands.h"

namespace kvchat::cli {

int cmd_serve(const Argv&) {
  return fail("serve needs the server library (cpp-httplib), which this build leaves out");
}

}  // namespace kvchat::cli
