//===- TargetLimits.h - Limits of sm_90a and sm_100a ------------*- C++ -*-===//
//
// Part of fmha. The numbers behind the fmha ops' verifiers: what one CTA of a
// warp-specialized kernel may use on sm_90a (Hopper) and sm_100a (Blackwell).
// Passes that pick or check a kernel configuration use the same constants, so
// the verifier and the code generator agree on what fits.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_TARGET_TARGETLIMITS_H
#define FMHA_TARGET_TARGETLIMITS_H

#include <cstdint>
#include <limits>

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

/// Alignment of every shared-memory buffer: 128-byte swizzling repeats every
/// 1024 bytes, and TMA and wgmma address a swizzled buffer from such a
/// boundary. `ws-allocate-smem` places buffers on it.
constexpr int64_t kSharedBufferAlignment = 1024;

/// Bytes of one mbarrier (a 64-bit word, 8-byte aligned).
constexpr int64_t kMBarrierBytes = 8;

//===----------------------------------------------------------------------===//
// Registers (sm_90a)
//===----------------------------------------------------------------------===//

/// Threads in a warpgroup: the unit that issues one wgmma and that owns one
/// consumer tile.
constexpr int64_t kWarpgroupThreads = 128;

/// Registers of an SM, shared by the warpgroups of its CTA; `setmaxnreg`
/// budgets are multiples of 8.
constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kRegisterBudgetStep = 8;

/// Registers per thread of the producer warpgroup on sm_90a: `setmaxnreg`
/// lowers it to this, so that the consumers can have more
/// (`ws-assign-roles` gives every role its budget).
constexpr int64_t kSm90ProducerRegisters = 40;

/// Registers per thread of each consumer warpgroup on sm_90a after
/// `setmaxnreg`: one producer and two consumer warpgroups use
/// (40 + 2 * 232) * 128 of the 65536 registers of an SM.
constexpr int64_t kSm90ConsumerRegisters = 232;

/// The widest split for kernels whose consumers need more than
/// kSm90ConsumerRegisters: the producer warpgroup at the least `setmaxnreg`
/// allows and two consumer warpgroups at (65536 / 128 - 24) / 2 rounded
/// down to a multiple of 8.
constexpr int64_t kSm90MinProducerRegisters = 24;
constexpr int64_t kSm90MaxConsumerRegisters = 240;

/// The most registers a thread can use.
constexpr int64_t kMaxRegistersPerThread = 255;

/// Registers a GEMM consumer thread needs besides its fp32 accumulator
/// (addresses, loop counters, barrier phases).
constexpr int64_t kSm90GemmReservedRegisters = 8;

/// Registers an attention consumer thread needs besides its S, P and O
/// tiles and the softmax temporaries (a quarter of S for 16-bit P, none
/// for fp8): per 64 query rows of its tile (row max and sum, the rescale
/// factor) and once (the loop's scalars, channel stages and phases).
/// Calibrated with ptxas on the software-pipelined kernels of
/// `--fmha-sm90-pipeline`, causal and with two-sided windows, 16-bit and
/// fp8: the widest accepted 16-bit tiles (head dim 64 with [64, 192], head
/// dim 128 with [64, 160], head dim 256 with [64, 80]) and fp8 [64, 192]
/// at head dim 128 and [64, 128] at 256 compile without spills; the next
/// K/V step at head dim 128 ([64, 176], bf16) spills, and so does fp8
/// [64, 224] (12 bytes without a mask; admitted at head dims 64 and 128).
/// Conservative for 128-row tiles: head dim 64 with [128, 64] fits but is
/// rejected.
constexpr int64_t kSm90AttentionRowRegisters = 16;
constexpr int64_t kSm90AttentionLoopRegisters = 16;
/// Merges of partial attention results (fmha.merge_states, split-KV's last
/// arrival): states whose loads are in flight together; and the rows of a
/// chunk of split-KV's merge (a tile's live rows are merged a chunk at a
/// time: decode tiles have few).
constexpr int64_t kMergeUnroll = 4;
constexpr int64_t kSplitMergeChunkRows = 16;

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

/// K step of one MMA instruction in bytes, whatever the element type: 16
/// elements of bf16 / f16, 32 of fp8 (wgmma m64nNk32 .e4m3 / .e5m2).
constexpr int64_t kMmaKBytes = 32;

/// Granularity of an MMA's N for 16-bit inputs, in elements.
constexpr int64_t kMmaNGranularity = 8;

/// Largest N of one MMA instruction (wgmma and tcgen05).
constexpr int64_t kMaxMmaN = 256;

//===----------------------------------------------------------------------===//
// Problem sizes and launch
//===----------------------------------------------------------------------===//

/// Largest size of a problem dimension (batch, heads, sequence lengths, M,
/// N, K): the kernels take sizes as `i32` parameters and the launch manifest
/// lists them as `i32` scalars.
constexpr int64_t kMaxProblemSize = std::numeric_limits<int32_t>::max();

/// Largest grid size along y and z (CUDA's limit; x allows 2^31 - 1).
constexpr int64_t kMaxGridYZ = 65535;

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// TMA needs every global stride (a row, in bytes) to be a multiple of 16.
constexpr int64_t kTmaStrideAlignmentBytes = 16;

/// Most elements TMA addresses along one dimension of a global tensor
/// (cuTensorMapEncodeTiled's globalDim limit, 2^32).
constexpr int64_t kTmaMaxDimSize = int64_t(1) << 32;

/// Widest vector of a thread's plain global load or store
/// (tile.load_direct, tile.store_direct), aligned to its size: rows those
/// move whole vectors of must start on this many bytes.
constexpr int64_t kMaxDirectVectorBytes = 16;

/// Longest shared-memory swizzle span (128B swizzle): the innermost extent of
/// a TMA box feeding an MMA must be 32, 64 or 128 bytes.
constexpr int64_t kMaxSwizzleBytes = 128;

/// Shortest swizzle span (32B swizzle).
constexpr int64_t kMinSwizzleBytes = 32;

/// The widest swizzle span (128, 64 or 32 bytes) that rows of `rowBytes`
/// bytes fill exactly, or 0 if none does: the layout tile-assign-layouts
/// gives an MMA operand in shared memory, and so the box of the tensor map
/// that loads it.
constexpr int64_t widestSwizzleBytes(int64_t rowBytes) {
  for (int64_t swizzle = kMaxSwizzleBytes; swizzle >= kMinSwizzleBytes;
       swizzle /= 2)
    if (rowBytes % swizzle == 0)
      return swizzle;
  return 0;
}

/// Rows of a swizzle pattern: a TMA box written at a multiple of them lands
/// where it would in a whole block (what splitting a block between the two
/// CTAs of a multicast needs).
constexpr int64_t kSwizzleAtomRows = 8;

//===----------------------------------------------------------------------===//
// Pipelines and warp specialization
//===----------------------------------------------------------------------===//

/// Most pipeline stages (shared-memory buffers) a kernel may have.
constexpr int64_t kMaxStages = 32;

/// Fewest stages of a ring on sm_90a: a consumer releases a slot only after
/// it has waited for the next one (its wgmmas on the slot overlap that
/// wait), so it holds two slots at a time.
constexpr int64_t kSm90MinStages = 2;

/// Most consumer warpgroups per CTA (with one producer warpgroup, 3
/// warpgroups = 384 threads).
constexpr int64_t kMaxConsumerGroups = 2;
/// Most consumer warpgroups per CTA on sm_90a: three 64-row tiles (a
/// 192-row CTA tile, 512 threads with the producer). setmaxnreg gives each
/// (65536 / 128 - 40) / 3 registers rounded down to 152, or 160 with the
/// producer at 24, and ptxas allocates their code within that (attention
/// at head dim 64 with [64, 128] tiles: no spills at 160, 272 bytes at
/// 128). A GEMM consumer's wgmma accumulator is held to the 128 registers
/// a thread of a 512-thread CTA starts with (TargetInfo::
/// getStartRegisters): a 64 x 256 tile fails with C7602, "insufficient
/// registers (128)".
constexpr int64_t kMaxSm90ConsumerGroups = 3;

} // namespace limits
} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_TARGETLIMITS_H
