//===- WSUtils.h - Helpers shared by the ws dialect and its passes -*- C++
//-*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_IR_WSUTILS_H
#define FMHA_DIALECT_WS_IR_WSUTILS_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace ws {

/// The NVPTX address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

/// Threads of a warp.
constexpr int64_t kThreadsPerWarp = 32;
/// Warps of a warpgroup: the unit of wgmma, tcgen05.ld and setmaxnreg.
constexpr int64_t kWarpsPerGroup = 4;
/// The most warps one CTA can have (1024 threads).
constexpr int64_t kMaxWarpsPerCTA = 32;
/// Registers of one SM, shared by the threads of the CTA.
constexpr int64_t kRegistersPerSM = 65536;
/// The register budgets setmaxnreg accepts: multiples of 8 from 24 to 256.
constexpr int64_t kMinRegisterBudget = 24;
constexpr int64_t kMaxRegisterBudget = 256;
constexpr int64_t kRegisterBudgetStep = 8;
/// Whether `regs` is a budget setmaxnreg accepts (what ws.role verifies).
inline bool isValidRegisterBudget(int64_t regs) {
  return regs >= kMinRegisterBudget && regs <= kMaxRegisterBudget &&
         regs % kRegisterBudgetStep == 0;
}

/// CUDA's device-side printf: vprintf(format, packed arguments), declared
/// by ws-insert-hang-reports.
constexpr const char kVPrintfName[] = "vprintf";

/// True when `type` lives in shared memory: memory space 3 or
/// `#gpu.address_space<workgroup>`.
bool isSharedMemory(MemRefType type);

/// True when `type` lives in tensor memory (`#ws.tmem`).
bool isTensorMemory(MemRefType type);

/// Bytes of a statically shaped memref of int or float elements.
int64_t getMemRefBytes(MemRefType type);

/// How TMA moves one block of a swizzled shared-memory layout: rows wider
/// than the swizzle span go as several boxes one span wide, stored one
/// after the other.
struct TMABoxes {
  /// Bytes of one row of a box.
  int64_t spanBytes;
  /// Boxes per block (1 when a row is one box).
  int64_t count;
  /// Bytes of one box.
  int64_t boxBytes;
};
/// The boxes of `block` (a !tile.desc block, swizzled by its
/// #tile.nvmma_shared encoding if any).
TMABoxes getTMABoxes(RankedTensorType block);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_IR_WSUTILS_H
