//===- RoleAssignment.h - Warp roles written on a tile program --*- C++ -*-===//
//
// Part of fmha. The attributes by which a tile program says which warp role
// runs what (docs/Roles.md): ws-assign-roles writes them, a user may write
// them by hand, ws-partition-roles materialises them. The names are those
// WSDialect.td declares (`discardableAttrs`), which the dialect verifies
// for type and place; verifyRoleAssignment checks them against the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_IR_ROLEASSIGNMENT_H
#define FMHA_DIALECT_WS_IR_ROLEASSIGNMENT_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// On a kernel: the roles to split it into, an array of `#ws.role_spec`.
/// Ops name a role by its index in this list.
constexpr StringLiteral kRolesAttrName =
    WSDialect::RolesAttrHelper::getNameStr();
/// On a kernel: the slots of each channel, in channel order (an i32 array).
constexpr StringLiteral kChannelStagesAttrName =
    WSDialect::ChannelStagesAttrHelper::getNameStr();
/// On an op of the tile program: the roles that run it (an i32 array of role
/// indices). An op without it runs in every role that needs its results.
constexpr StringLiteral kPartitionAttrName =
    WSDialect::PartitionAttrHelper::getNameStr();
/// On an `scf.for`: per loop-carried value, the roles that compute it (an
/// array of i32 arrays); the other roles drop the value.
constexpr StringLiteral kPartitionOutputsAttrName =
    WSDialect::PartitionOutputsAttrHelper::getNameStr();
/// On an `scf.for`: per loop-carried value, the channel whose slot holds it
/// (an i32 array, -1 for none): a tensor-memory accumulator that the role
/// computing it accumulates in the slot, and the roles reading the loop's
/// result wait for.
constexpr StringLiteral kOutputChannelsAttrName =
    WSDialect::OutputChannelsAttrHelper::getNameStr();
/// On a `tile.load`: the index of the channel whose slot it fills (an i32).
constexpr StringLiteral kLoadChannelAttrName =
    WSDialect::LoadChannelAttrHelper::getNameStr();
/// On a `tile.load` of a `ws.multicast` kernel: the copy lands in both CTAs
/// of the cluster (a unit attribute).
constexpr StringLiteral kMulticastLoadAttrName =
    WSDialect::MulticastLoadAttrHelper::getNameStr();

/// On an op with one result: the index of the channel whose slot the result
/// goes through (an i32), from the one role that runs the op (its
/// `ws.partition`) to the roles that need it (a value channel).
constexpr StringLiteral kResultChannelAttrName =
    WSDialect::ResultChannelAttrHelper::getNameStr();
/// On a kernel: per channel, the index of an earlier channel whose buffers
/// its buffers overlay, or -1 (an i32 array).
constexpr StringLiteral kChannelAliasesAttrName =
    WSDialect::ChannelAliasesAttrHelper::getNameStr();

/// The roles of `func` (its `ws.roles`), empty when it has none.
SmallVector<RoleSpecAttr> getRoles(Operation *func);

/// The roles that run `op` (its `ws.partition`), empty when it has none.
ArrayRef<int32_t> getPartition(Operation *op);

/// Sets `op`'s `ws.partition` to `roles`.
void setPartition(Operation *op, ArrayRef<int32_t> roles);

/// Whether role `role` computes loop-carried value `position` of `loop`:
/// true when the loop has no `ws.partition_outputs`.
bool computesOutput(scf::ForOp loop, unsigned position, int32_t role);

/// The channel whose slot holds loop-carried value `position` of `loop`
/// (its `ws.output_channels` entry), or -1.
int32_t getOutputChannel(scf::ForOp loop, unsigned position);

/// The channel the result of `op` goes through (its `ws.result_channel`),
/// or -1.
int32_t getResultChannel(Operation *op);

/// The channel whose buffers channel `channel` of `func` overlays (its
/// `ws.channel_aliases` entry), or -1.
int32_t getChannelAlias(Operation *func, size_t channel);

/// Checks the role assignment of `func` before anything is built from it:
/// `ws.roles` entries, `ws.channel_stages` (1 to 32 slots, as a channel),
/// `ws.partition` indices in range, one `ws.partition_outputs` and
/// `ws.output_channels` entry per loop-carried value (a channel index or
/// -1), `ws.channel_aliases` (one entry per channel, -1 or an earlier
/// channel), each `ws.result_channel` in range on an op of one role and,
/// with `opLevel`, each `tile.load` with a channel in range and one role. The
/// error is reported at the op, naming `pass`.
LogicalResult verifyRoleAssignment(FunctionOpInterface func, StringRef pass,
                                   bool opLevel);

/// Removes the role-assignment attributes from `root` and the ops in it.
void clearRoleAssignment(Operation *root);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_IR_ROLEASSIGNMENT_H
