// The fast CPU forward pass: tokens processed in batches (prefill shares each weight
// read across the batch), matrix products and attention split across a thread pool,
// AVX2/F16C dot products. Tested against the reference backend.
#pragma once

#include <memory>

#include "backend/backend.h"

namespace kvchat::cpu {

Result<std::unique_ptr<Backend>> make_cpu_backend(const Model& model,
                                                  const BackendOptions& options);

}  // namespace kvchat::cpu
