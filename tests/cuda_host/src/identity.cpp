// How the plugin loader (engine/src/backend/cuda_plugin.cpp) tells this build from the real
// plugin: it looks this symbol up in the file it loaded, so `kvchat-cli info` can say that
// the CUDA backend it runs is the host emulation (behaviour, never speed).
extern "C" __attribute__((visibility("default"))) const char kvchat_cuda_host_emulation[] =
    "kvchat CUDA host emulation: the backend's kernels run by a grid emulator on the CPU";
