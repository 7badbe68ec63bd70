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

/// The kernel attribute of 2-CTA mode (a unit attribute on the kernel,
/// set by fmha-expand-kernels for `fmha.gemm ... ctas 2`): the kernel runs
/// in clusters of two CTAs that issue each MMA together
/// (`tcgen05.mma.cta_group::2`, docs/Development.md, "SM100").
constexpr const char kCtaPairAttrName[] = "ws.cta_pair";

/// Marks a kernel launched in clusters of two CTAs along x that run the
/// same program and share blocks by TMA multicast (a unit attribute on the
/// function, set by fmha-expand-kernels for `fmha.gemm ... multicast 2`):
/// the `ws.tma_load {multicast}` copies of a channel land in both CTAs, and
/// its slots are released by both CTAs' commits (docs/Development.md,
/// "SM100").
constexpr const char kMulticastAttrName[] = "ws.multicast";

/// The unit attribute ws-lower-roles puts on each op that the first thread
/// of its role alone issues (TMA copies, MMAs, `leader` arrivals) once it has
/// put the op under a test of that thread: out of its role, the op then
/// still runs in that thread alone.
constexpr const char kLeaderGuardedAttrName[] = "ws.leader_guarded";

/// What a `ws.mbarrier_wait` made by ws-insert-mbarriers waits for, for
/// diagnostics only (ws-verify-phases' messages, the hang reports of
/// ws-insert-hang-reports): the ring ("full" or "empty") and the
/// index of its channel.
constexpr const char kRingAttrName[] = "ws.ring";
constexpr const char kChannelAttrName[] = "ws.channel";

/// What ws-insert-hang-reports puts on each `ws.mbarrier_wait`, and
/// convert-ws-to-nvvm lowers to a bounded wait: the format string of the
/// wait's hang report (a symbol reference to a global of the gpu.module),
/// and after how many microseconds it is printed (an i64).
constexpr const char kHangReportAttrName[] = "ws.hang_report";
constexpr const char kWaitTimeoutAttrName[] = "ws.wait_timeout";
/// The unit attribute ws-insert-hang-reports puts on each gpu.module it
/// instruments: its replica roles stay apart, so that every report names
/// its role.
constexpr const char kHangReportsAttrName[] = "ws.hang_reports";
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
