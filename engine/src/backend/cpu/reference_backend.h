// The plain reference forward pass (llama2.c style): one token at a time, one thread,
// every weight row dequantized to f32 and dotted with scalar code. Slow and obvious;
// every faster path is tested against it.
#pragma once

#include <memory>

#include "backend/backend.h"

namespace kvchat::cpu {

Result<std::unique_ptr<Backend>> make_reference_backend(const Model& model,
                                                        const BackendOptions& options);

}  // namespace kvchat::cpu
