// Host emulation (test equipment): the half / bf16 types and intrinsics live in
// kvchat_emu/intrinsics.h, which cuda_runtime.h includes.
#pragma once

#include "cuda_runtime.h"
