// The GPU side of `memory` and `models fit`: --gpu-memory GiB (the device's free memory
// to plan against) and --gpu-layers N|auto read from the options, the offload planner's
// answer (backend/offload_plan.h) as text lines and as JSON fields.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "args.h"
#include "backend/offload_plan.h"
#include "kvchat/result.h"

namespace kvchat::cli {

inline const std::set<std::string> kOffloadOptions = {"--gpu-memory", "--gpu-layers"};

struct OffloadRequest {
  uint64_t device_free_bytes = 0;
  int32_t gpu_layers = -1;  // < 0: auto
};
// Empty without --gpu-memory (--gpu-layers alone is an error: nothing to plan against).
Result<std::optional<OffloadRequest>> read_offload_request(const Args& args);

// "gpu           28 of 32 layers fit in 7.60 GiB free (auto)" and the device/host lines.
void print_offload(const OffloadPlan& plan);
// gpu_layers, n_layers, gpu_layers_requested, fits, device_/host_ weights and KV bytes,
// device_scratch_bytes, device_reserve_bytes, device_free_bytes, summary.
nlohmann::json offload_json(const OffloadPlan& plan);

}  // namespace kvchat::cli
