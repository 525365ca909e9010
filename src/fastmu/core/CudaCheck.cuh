// Error checking of CUDA runtime calls (the CUDA transport and the detailed
// engine on the GPU).
#pragma once

#include <string>

#include <cuda_runtime.h>

#include "fastmu/core/Error.hh"

namespace fastmu::cuda {

// Throws fastmu::Error naming the call when `err` is not cudaSuccess.
inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(err));
  }
}

}  // namespace fastmu::cuda

#define FASTMU_CUDA_CHECK(call) ::fastmu::cuda::check((call), #call)
