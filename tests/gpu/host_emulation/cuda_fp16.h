// Empty: host_emulation/cuda_runtime.h has what the chunk readers need.
#pragma once
