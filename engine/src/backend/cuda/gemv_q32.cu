// The decode GEMV's chunk kernel (gemv_kernel.cuh) for the
// 32-value block types Q4_1, Q5_0, Q5_1, IQ4_NL.
#include "backend/cuda/gemv_kernel.cuh"

namespace kvchat::cuda::gemv_detail {

cudaError_t gemv_chunked_q32(const DeviceMatrix& w, const float* x, float* y, int n,
                             const GemvArgs& a, cudaStream_t stream) {
  switch (w.type) {
    case TensorType::Q4_1: return launch_n<dev::ChunkQ4_1>(w, x, y, n, a, stream);
    case TensorType::Q5_0: return launch_n<dev::ChunkQ5_0>(w, x, y, n, a, stream);
    case TensorType::Q5_1: return launch_n<dev::ChunkQ5_1>(w, x, y, n, a, stream);
    case TensorType::IQ4_NL: return launch_n<dev::ChunkIq4Nl>(w, x, y, n, a, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace kvchat::cuda::gemv_detail
