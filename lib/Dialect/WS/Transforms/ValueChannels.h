//===- ValueChannels.h - Results handed between roles ------------*- C++
//-*-===//
//
// Part of fmha. The part of ws-partition-roles that materialises
// `ws.result_channel` (docs/Roles.md): an op's result handed from the role
// that runs the op to the roles that read it, through the slots of a
// channel in tensor or shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_VALUECHANNELS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_VALUECHANNELS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace ws {

/// The ops whose results go through one channel (`ws.result_channel`).
struct ValueChannel {
  /// The ops, in program order: each fills the next slot.
  SmallVector<Operation *> values;
  /// The role that runs them.
  int32_t producer = -1;
  /// A loop-carried value held in the channel (`ws.output_channels`) that
  /// the values are stored into (a handed accumulator: the values' role
  /// rescales it, the role computing it accumulates onto it), or null.
  scf::ForOp loop;
  unsigned position = 0;
  /// The NVMMA layout a shared-memory slot holds a 2-d value in where
  /// tile.dots read the value (the backward's dS as A, fp8 attention's V^T
  /// as B): the readers' dots read the slot in place where they read it
  /// K-major. Null: row-major.
  tile::NvmmaSharedAttr layout;
};

/// The buffer of a slot that holds `value`: in tensor memory for a
/// `#tile.tmem` tensor, in shared memory otherwise.
MemRefType valueBuffer(Value value);

/// Collects and checks the value channels of `func` (one entry per
/// channel, empty for the others). `loadsFill(c)` says whether tile.loads
/// fill channel c; `held(c)` gives the loop-carried value channel c holds
/// (`ws.output_channels`), if any.
FailureOr<SmallVector<ValueChannel>> collectValueChannels(
    FunctionOpInterface func, size_t numChannels,
    function_ref<bool(size_t)> loadsFill,
    function_ref<std::optional<std::pair<scf::ForOp, unsigned>>(size_t)> held);

/// Whether `store` stores a value handed through a shared-memory channel:
/// the store's role issues the TMA store straight from the slot.
bool storesHandedValue(tile::StoreOp store);

/// One role's part of the value channels.
class ValueRole {
public:
  /// `map` maps the program's ops to their copies in the role (index
  /// `role`); `needed` holds the program's values the role needs
  /// (neededValues); `channels` are the kernel's channels.
  ValueRole(OpBuilder &b, int32_t role, const IRMapping &map,
            const DenseSet<Value> &needed, ArrayRef<Value> channels,
            ArrayRef<ValueChannel> valueChannels)
      : b(b), role(role), map(map), needed(needed), channels(channels),
        valueChannels(valueChannels) {}

  /// Before the role is pruned: the producer's slot acquires, stores and
  /// commits; the readers' waits and reads; a handed accumulator's MMAs.
  LogicalResult hand();

  /// After the role is pruned: each value the role hands over is computed
  /// right before it goes into its slot, the waits move to where the
  /// values are read, and the slots go back after their last read.
  void place();

  /// After the loads' releases: the role computing a handed accumulator
  /// takes its slot once more after the loop, as its producer gives it
  /// back once it has read the result.
  void handBack();

  /// Whether the role waits for a slot of a value channel.
  bool readsSlots() const { return !reads.empty(); }

private:
  Operation *copyOf(Operation *op) const { return map.lookup(op); }
  void produce(Value channel, Operation *value, const ValueChannel &vc);
  LogicalResult consume(Value channel, Operation *value, bool read,
                        const ValueChannel &vc);
  void readResult(Value channel, const ValueChannel &vc);
  LogicalResult accumulate(Value channel, const ValueChannel &vc);
  void sinkChains();
  Operation *chainStart(Operation *op) const;
  void releaseReads();
  void commitResultReads();

  OpBuilder &b;
  int32_t role;
  const IRMapping &map;
  const DenseSet<Value> &needed;
  ArrayRef<Value> channels;
  ArrayRef<ValueChannel> valueChannels;
  /// The slots the role fills with a value (for sinking their chains).
  SmallVector<ProducerAcquireOp> fills;
  /// The tensor-memory slots the role reads, in order.
  SmallVector<ConsumerWaitOp> waits;
  /// The waits and acquires whose slots the role reads in place, in order.
  SmallVector<Operation *> reads;
  /// Per loop of a handed accumulator the role computes: whether an
  /// iteration is not the first (its MMAs accumulate).
  DenseMap<Operation *, Value> firstSteps;
  /// The slots of handed accumulators the role takes to read the loop's
  /// result (their producer), given back after the last read.
  SmallVector<ProducerAcquireOp> resultReads;
  /// The MMAs (in their loops) and channels of the handed accumulators the
  /// role computes.
  SmallVector<std::pair<Operation *, Value>> computed;
  /// Per first op of a sunk chain, nothing; per op of one, its first op.
  DenseMap<Operation *, Operation *> chainHeads;
};

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_VALUECHANNELS_H
