//===- TargetLimits.h - Limits of sm_90a and sm_100a ------------*- C++ -*-===//
//
// Part of fmha. The numbers behind the fmha ops' verifiers: what one CTA of a
// warp-specialized kernel may use on sm_90a (Hopper) and sm_100a (Blackwell).
// Passes that pick or check a kernel configuration use the same constants, so
// the verifier and the code generator agree on what fits.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_TARGETLIMITS_H
#define FMHA_DIALECT_FMHA_IR_TARGETLIMITS_H

#include <cstdint>

namespace mlir {
namespace fmha {
namespace limits {

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// Dynamic shared memory one CTA may use on sm_90a and sm_100a: 227 KiB, the
/// 228 KiB of an SM less the 1 KiB the driver reserves per CTA
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin).
constexpr int64_t kMaxSharedMemoryBytes = 232448;

/// Shared memory a kernel sets aside for its mbarriers (pipeline full/empty
/// barriers of every stage, the consumers' barriers) and their alignment.
constexpr int64_t kBarrierBytes = 1024;

//===----------------------------------------------------------------------===//
// Registers (sm_90a)
//===----------------------------------------------------------------------===//

/// Threads in a warpgroup: the unit that issues one wgmma and that owns one
/// consumer tile.
constexpr int64_t kWarpgroupThreads = 128;

/// Registers per thread a consumer warpgroup gets on sm_90a after
/// `setmaxnreg` moves registers from the producer warpgroup (which keeps 24).
constexpr int64_t kSm90ConsumerRegisterBudget = 240;

/// fp32 accumulator registers per consumer thread that fit in that budget;
/// the other 16 hold addresses, loop counters and softmax statistics.
constexpr int64_t kSm90MaxAccumulatorRegisters = 224;

//===----------------------------------------------------------------------===//
// Tensor memory (sm_100a)
//===----------------------------------------------------------------------===//

/// Tensor memory columns of an SM on sm_100a: 128 lanes x 512 columns of
/// 32-bit cells, which hold the fp32 accumulators of tcgen05.mma.
constexpr int64_t kSm100TmemColumns = 512;

//===----------------------------------------------------------------------===//
// MMA shapes
//===----------------------------------------------------------------------===//

/// M of one wgmma instruction: a warpgroup computes 64 rows at a time, so a
/// consumer tile has 64 or 128 rows.
constexpr int64_t kWgmmaM = 64;

/// Largest consumer tile height (block_m) the kernels support.
constexpr int64_t kMaxBlockM = 128;

/// K step of one MMA instruction for 16-bit inputs (bf16, f16), in elements.
constexpr int64_t kMmaK16Bit = 16;

/// Granularity of an MMA's N for 16-bit inputs, in elements.
constexpr int64_t kMmaNGranularity = 8;

/// Largest N of one MMA instruction (wgmma and tcgen05).
constexpr int64_t kMaxMmaN = 256;

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// TMA needs every global stride (a row, in bytes) to be a multiple of 16.
constexpr int64_t kTmaStrideAlignmentBytes = 16;

/// Most elements TMA addresses along one dimension of a global tensor
/// (cuTensorMapEncodeTiled's globalDim limit, 2^32).
constexpr int64_t kTmaMaxDimSize = int64_t(1) << 32;

/// Longest shared-memory swizzle span (128B swizzle): the innermost extent of
/// a TMA box feeding an MMA must be 32, 64 or 128 bytes.
constexpr int64_t kMaxSwizzleBytes = 128;

/// Shortest swizzle span (32B swizzle).
constexpr int64_t kMinSwizzleBytes = 32;

//===----------------------------------------------------------------------===//
// Pipelines and warp specialization
//===----------------------------------------------------------------------===//

/// Most pipeline stages (shared-memory buffers) a kernel may have.
constexpr int64_t kMaxStages = 8;

/// Most consumer warpgroups per CTA (with one producer warpgroup, 3
/// warpgroups = 384 threads).
constexpr int64_t kMaxConsumerGroups = 2;

} // namespace limits
} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_IR_TARGETLIMITS_H
