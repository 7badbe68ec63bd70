//===- PartitionUtils.h - Building blocks of role partitioning ---*- C++
//-*-===//
//
// Part of fmha. What every target's ws-partition-roles does the same way:
// loads into a channel slot, in-place reads of a slot, pruning a role.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// Turns `loads` into TMA copies into one slot of `channel`: acquired before
/// the first, committed `by tma` with their bytes after the last. The loads
/// stay for their other users (canonicalization drops them once unused).
/// The copies of the loads `multicast` accepts are TMA multicast copies
/// (`ws.tma_load ... multicast`).
void produceLoads(OpBuilder &b, Value channel,
                  MutableArrayRef<tile::LoadOp> loads,
                  function_ref<bool(tile::LoadOp)> multicast = nullptr);

/// Waits for one slot of `channel` before the first of `loads` and replaces
/// them by in-place reads of its buffers (`ws.as_tensor`); returns the
/// wait's token.
Value consumeLoads(OpBuilder &b, Value channel,
                   MutableArrayRef<tile::LoadOp> loads);

/// Whether `value` is a constant of zeros (a splat).
bool isZeroConstant(Value value);

/// Makes every loop-carried value of `loop` yield its own iteration
/// argument: the loop then computes nothing but its side effects.
void dropCarried(scf::ForOp loop);

/// Drops what a role does not need: dead ops and unused loop values.
void cleanUpRole(RoleOp role);

/// A buffer of `type`'s shape and element type in shared memory.
MemRefType sharedBufferFor(RankedTensorType type);

/// The shared-memory buffers of a channel slot that `loads` fill, in order.
SmallVector<MemRefType> sharedBuffersFor(ArrayRef<tile::LoadOp> loads);

/// Checks what ws-assign-roles (`pass`) decides the roles and channels of
/// `func` from, before it decides anything: the register budgets `producerRegs`
/// and `consumerRegs` (a valid ws.role budget, or 0 for the target's), the
/// kernel's `fmha.stages` and
/// `fmha.item_slots` (fmha::verifyKernelAttr) and, when the kernel has no
/// `fmha.stages`, the option `optionStages`; the error names the attribute
/// or option and its range.
LogicalResult verifyPartitionOptions(FunctionOpInterface func, StringRef pass,
                                     unsigned optionStages,
                                     unsigned producerRegs,
                                     unsigned consumerRegs);

/// The stages of a kernel's rings: its `fmha.stages` attribute (set by
/// fmha-expand-kernels from the op's configuration), else `fallback` (the
/// pass option).
unsigned stagesOf(FunctionOpInterface func, unsigned fallback);

/// The registers per thread a kernel's consumers need: its
/// `fmha.consumer_registers` attribute (set by fmha-expand-kernels from the
/// op's estimate), else 0 (not known).
int64_t consumerRegistersOf(FunctionOpInterface func);

/// The slots of a ring filled once per work item of a loop around the main
/// loop (a persistent kernel's Q tiles): the kernel's `fmha.item_slots`
/// attribute, else 1.
unsigned itemSlotsOf(FunctionOpInterface func);

/// The shared-memory buffer a consumer stages the value of `store` in for
/// its TMA store, allocated at `b`'s insertion point.
Value allocStaging(OpBuilder &b, tile::StoreOp store);

/// Visits each value that `roots` are computed from once, walking backwards
/// from the roots: `visit(v, next)` appends to `next` the values to go on
/// to (usually some of the operands of v's defining op).
void walkBackward(ArrayRef<Value> roots,
                  function_ref<void(Value, SmallVectorImpl<Value> &)> visit);

/// The last op of `block` that loads from the tensor-memory buffer
/// `buffer` (a `tile.convert_layout` of a `ws.as_tensor` of it or of a view
/// of it), or null: where a reader may release the buffer's slot.
Operation *lastTensorMemoryRead(Value buffer, Block *block);

/// A role that holds a copy of the tile program, and the map from the
/// program's ops to their copies.
struct RoleCopy {
  RoleOp role;
  IRMapping map;

  /// The copy of `op`, an op of the program.
  template <typename OpT> OpT lookup(OpT op) const {
    return cast<OpT>(map.lookup(op.getOperation()));
  }
};

/// What every partition does the same way around its per-kind choices: the
/// tile program in the body of `func` (its ops but the terminator) is
/// copied into each role of a ws.warp_specialize created before the
/// terminator, then erased. Until `createKernel`, the builder inserts at the
/// start of the body, where what the roles share goes (channels, staging
/// buffers).
class RolePartition {
public:
  explicit RolePartition(FunctionOpInterface func);

  OpBuilder &getBuilder() { return builder; }

  /// Creates the ws.warp_specialize the roles go into, before the body's
  /// terminator.
  WarpSpecializeOp createKernel();

  /// A new role `name` of `warps` warps and `regs` registers at the end of
  /// the ws.warp_specialize, holding a copy of the program; the builder
  /// inserts at the start of the copy.
  RoleCopy addRole(StringRef name, int64_t warps, int64_t regs);

  /// Erases the program the roles copied, and the constants of the body no
  /// role uses (canonicalizing the roles hoists constants into the body).
  void eraseProgram(bool eraseUnusedConstants);

private:
  Block &body;
  OpBuilder builder;
  Location loc;
  SmallVector<Operation *> program;
  Block *kernelBody = nullptr;
};

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H
