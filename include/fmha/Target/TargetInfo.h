//===- TargetInfo.h - What fmha knows of the GPU it targets -----*- C++ -*-===//
//
// Part of fmha. One object answers every question a pass asks about the GPU
// a kernel is compiled for: the architecture and its instructions, the
// on-chip limits (TargetLimits.h), the register budgets of roles and the
// layout of MMA accumulators. It is built from the `#nvvm.target` of the
// kernel's `gpu.module` (what `fmha-expand-kernels` attaches), so the IR
// says what the kernel targets and passes read it from there; no pass takes
// a target option, and no code outside this class branches on the
// architecture.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_TARGET_TARGETINFO_H
#define FMHA_TARGET_TARGETINFO_H

#include "fmha/Target/TargetLimits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <algorithm>
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

  /// Every target fmha compiles for, in the order of `Arch`.
  static SmallVector<TargetInfo, 2> getAll();

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
  /// The layout of an MMA accumulator of type `acc` (a `tile` encoding):
  /// `#tile.wgmma_acc<instr_n = N, warpgroups = 1>` with wgmma (the
  /// registers of one warpgroup; M a multiple of 64), `#tile.tmem<128, N,
  /// unpacked>` with tensor memory (blocks of one tcgen05.mma D tile; M a
  /// multiple of 128). N is 8 to 256 in steps of 8. Errors at `where` when
  /// the target has no layout for the tile.
  FailureOr<Attribute> getAccumulatorLayout(RankedTensorType acc,
                                            Operation *where) const;

  /// Registers per thread that `ws-assign-roles` gives a role that only
  /// issues loads or MMAs (the producer warp; sm_100a's load and MMA warps),
  /// applied with `setmaxnreg`, in a kernel whose `consumers`
  /// register-computing warpgroups need `consumerNeed` per thread (0: not
  /// known): the least the target allows when they need more than the
  /// default split gives.
  int64_t getProducerRegisters(int64_t consumerNeed = 0,
                               int64_t consumers = 2) const {
    return consumerNeed > getConsumerRegisters(0, consumers)
               ? limits::kSm90MinProducerRegisters
               : limits::kSm90ProducerRegisters;
  }
  /// Registers per thread that `ws-assign-roles` gives each of `consumers`
  /// warpgroups that compute in registers (sm_90a's consumers, which hold
  /// the accumulators; sm_100a's epilogues), applied with `setmaxnreg`,
  /// when they need `need` per thread (0: not known): the default split's
  /// budget, or the widest split's when the need exceeds it. Three
  /// consumers share the register file at less than two.
  int64_t getConsumerRegisters(int64_t need = 0, int64_t consumers = 2) const {
    int64_t budget =
        std::min(limits::kSm90ConsumerRegisters,
                 registerShare(limits::kSm90ProducerRegisters, consumers));
    return need > budget ? std::max(budget, getMaxConsumerRegisters(consumers))
                         : budget;
  }
  /// The most registers per thread each of `consumers` register-computing
  /// warpgroups can get (the producer at its least): what a kernel's
  /// consumers may need.
  int64_t getMaxConsumerRegisters(int64_t consumers = 2) const {
    return std::min(
        limits::kSm90MaxConsumerRegisters,
        registerShare(limits::kSm90MinProducerRegisters, consumers));
  }
  /// Registers per thread of a kernel with `consumers` consumer warpgroups
  /// and a producer warpgroup when it starts, before setmaxnreg: the
  /// register file over its threads (128 with three consumers).
  int64_t getStartRegisters(int64_t consumers) const {
    return limits::kRegistersPerSM /
           ((consumers + 1) * limits::kWarpgroupThreads);
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
  /// Registers per thread of each of `consumers` warpgroups that share an
  /// SM's register file with a producer warpgroup at `producer`, as a
  /// `setmaxnreg` budget.
  static int64_t registerShare(int64_t producer, int64_t consumers) {
    int64_t share =
        (limits::kRegistersPerSM / limits::kWarpgroupThreads - producer) /
        std::max<int64_t>(consumers, 1);
    return share / limits::kRegisterBudgetStep * limits::kRegisterBudgetStep;
  }
  Arch arch;
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_TARGETINFO_H
