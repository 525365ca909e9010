// Portability macros: one implementation of the step physics serves host and device.
#pragma once

#if defined(__CUDACC__)
#define FASTMU_HOST_DEVICE __host__ __device__
#define FASTMU_DEVICE __device__
#define FASTMU_FORCEINLINE __forceinline__
#else
#define FASTMU_HOST_DEVICE
#define FASTMU_DEVICE
#define FASTMU_FORCEINLINE inline __attribute__((always_inline))
#endif

#define FASTMU_HD FASTMU_HOST_DEVICE
