#include "offload_report.h"

#include <cmath>
#include <cstdio>

#include "cli_common.h"

namespace kvchat::cli {

Result<std::optional<OffloadRequest>> read_offload_request(const Args& args) {
  if (!args.has("--gpu-memory")) {
    if (args.has("--gpu-layers")) {
      return Error{"--gpu-layers needs --gpu-memory GiB (the device's free memory to plan for)"};
    }
    return std::optional<OffloadRequest>();
  }
  auto gib = args.get_double("--gpu-memory", 0);
  if (!gib) return gib.error();
  // 2^20 GiB is past any device: a bound that only rejects typos.
  if (!std::isfinite(*gib) || *gib <= 0 || *gib > (1 << 20)) {
    return Error{"--gpu-memory takes the device's free memory in GiB (more than 0)"};
  }
  OffloadRequest r;
  r.device_free_bytes = static_cast<uint64_t>(*gib * static_cast<double>(1ull << 30));
  auto layers = parse_gpu_layers(args.get("--gpu-layers", "auto"));
  if (!layers) return layers.error();
  r.gpu_layers = *layers;
  return std::optional<OffloadRequest>(r);
}

void print_offload(const OffloadPlan& p) {
  auto bytes = [](uint64_t b) { return grouped(b) + " bytes (" + gib_text(b) + ")"; };
  std::printf("gpu           %s\n", p.summary.c_str());
  std::printf("  layers      %d of %d on the GPU (%s), %d on the CPU\n", p.gpu_layers, p.n_layers,
              p.requested ? "asked for" : "auto: the most that fit", p.n_layers - p.gpu_layers);
  std::printf("  GPU         weights %s + KV %s\n", bytes(p.device_weight_bytes).c_str(),
              bytes(p.device_kv_bytes).c_str());
  std::printf("              + scratch %s (estimate) + head-room %s = %s of %s free: %s\n",
              gib_text(p.device_scratch_bytes).c_str(), gib_text(p.device_reserve_bytes).c_str(),
              gib_text(p.device_total_bytes()).c_str(), gib_text(p.device_free_bytes).c_str(),
              p.fits ? "fits" : "does not fit");
  std::printf("  CPU         weights %s + KV %s\n", bytes(p.host_weight_bytes).c_str(),
              bytes(p.host_kv_bytes).c_str());
}

nlohmann::json offload_json(const OffloadPlan& p) {
  return {{"gpu_layers", p.gpu_layers},
          {"n_layers", p.n_layers},
          {"gpu_layers_requested", p.requested},
          {"fits", p.fits},
          {"device_weights_bytes", p.device_weight_bytes},
          {"device_kv_bytes", p.device_kv_bytes},
          {"device_scratch_bytes", p.device_scratch_bytes},
          {"device_reserve_bytes", p.device_reserve_bytes},
          {"device_total_bytes", p.device_total_bytes()},
          {"device_free_bytes", p.device_free_bytes},
          {"host_weights_bytes", p.host_weight_bytes},
          {"host_kv_bytes", p.host_kv_bytes},
          {"summary", p.summary}};
}

}  // namespace kvchat::cli
