//===- TargetInfo.h - What fmha knows of the GPU it compiles for -*- C++
//-*-===//
//
// Part of fmha. One object answers every question a pass asks about the GPU
// a kernel is compiled for: the architecture and its instructions, the
// on-chip limits (TargetLimits.h), the register budgets of roles and the
// kind of accumulator layout. It is built from the `#nvvm.target` of the
// kernel's `gpu.module` (what `fmha-expand-kernels` attaches), so the IR
// says what the kernel targets and passes read it from there.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_TARGET_TARGETINFO_H
#define FMHA_TARGET_TARGETINFO_H

#include "fmha/Target/TargetLimits.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace fmha {

/// The architectures fmha compiles for.
enum class Arch {
  /// Hopper: wgmma from registers and shared memory, setmaxnreg.
  Sm90a,
  /// Blackwell: tcgen05.mma with accumulators in tensor memory.
  Sm100a,
};

/// The target of one kernel. Cheap to copy.
class TargetInfo {
public:
  /// The target a chip name denotes as `#nvvm.target` spells it (`sm_90a`,
  /// `sm_100a`); nothing for chips fmha does not compile for.
  static std::optional<TargetInfo> fromChip(StringRef chip);

  /// The target of the kernel `op` belongs to: the `#nvvm.target` of the
  /// closest enclosing `gpu.module` (or `op` itself). Errors at `op`, named
  /// after `pass`, say what is missing or wrong and how to attach a target.
  static FailureOr<TargetInfo> lookup(Operation *op, StringRef pass);

  Arch getArch() const { return arch; }
  /// The chip as `#nvvm.target` and ptxas spell it: `sm_90a`, `sm_100a`.
  StringRef getChip() const;

  /// wgmma (warpgroup MMA, accumulators in registers).
  bool hasWgmma() const { return arch == Arch::Sm90a; }
  /// tcgen05.mma with accumulators in tensor memory.
  bool hasTensorMemory() const { return arch == Arch::Sm100a; }
  /// An MMA issued for a pair of CTAs (tcgen05 `cta_group::2`).
  bool hasCtaPairMma() const { return hasTensorMemory(); }
  /// Where MMA accumulators live: in the consumers' registers (wgmma) or
  /// in tensor memory (tcgen05).
  bool accumulatesInTensorMemory() const { return hasTensorMemory(); }

  /// Rows of the accumulator tile one consumer's MMA covers: a warpgroup's
  /// wgmma is m64, a tcgen05.mma m128.
  int64_t getMmaM() const {
    return hasTensorMemory() ? 2 * limits::kWgmmaM : limits::kWgmmaM;
  }
  /// Registers per thread of a consumer warpgroup after `setmaxnreg`, where
  /// accumulators live in registers (0 where they do not).
  int64_t getConsumerRegisters() const {
    return hasWgmma() ? limits::kSm90ConsumerRegisters : 0;
  }

  /// Dynamic shared memory one CTA may use, in bytes.
  int64_t getMaxSharedMemoryBytes() const {
    return limits::kMaxSharedMemoryBytes;
  }
  /// Tensor memory columns of an SM (0 without tensor memory).
  int64_t getTensorMemoryColumns() const {
    return hasTensorMemory() ? limits::kSm100TmemColumns : 0;
  }
  /// Fewest pipeline stages a kernel's operand rings may have.
  int64_t getMinStages() const {
    return arch == Arch::Sm90a ? limits::kSm90MinStages : 1;
  }

private:
  explicit TargetInfo(Arch arch) : arch(arch) {}
  Arch arch;
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_TARGETINFO_H
