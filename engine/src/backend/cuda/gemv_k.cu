// The decode GEMV's chunk kernel (gemv_kernel.cuh) for the
// super-block types Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS.
#include "backend/cuda/gemv_kernel.cuh"

namespace kvchat::cuda::gemv_detail {

cudaError_t gemv_chunked_k(const DeviceMatrix& w, const float* x, float* y, int n,
                           const GemvArgs& a, cudaStream_t stream) {
  switch (w.type) {
    case TensorType::Q2_K: return launch_n<dev::ChunkQ2_K>(w, x, y, n, a, stream);
    case TensorType::Q3_K: return launch_n<dev::ChunkQ3_K>(w, x, y, n, a, stream);
    case TensorType::Q4_K: return launch_n<dev::ChunkQ4_K>(w, x, y, n, a, stream);
    case TensorType::Q5_K: return launch_n<dev::ChunkQ5_K>(w, x, y, n, a, stream);
    case TensorType::Q6_K: return launch_n<dev::ChunkQ6_K>(w, x, y, n, a, stream);
    case TensorType::IQ4_XS: return launch_n<dev::ChunkIq4Xs>(w, x, y, n, a, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace kvchat::cuda::gemv_detail
