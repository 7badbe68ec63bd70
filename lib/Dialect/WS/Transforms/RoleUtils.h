//===- RoleUtils.h - Building blocks of the role lowering -------*- C++ -*-===//
//
// Part of fmha. Shared by ws-lower-roles (LowerRoles.cpp) and its
// replica-role merge (ReplicaRoles.cpp), which build arith and scf ops.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_ROLEUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_ROLEUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace ws {

/// An i32 `arith.constant`.
inline Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// Moves `op` into the then-block of a new `scf.if %cond` at its place.
inline void guard(OpBuilder &b, Operation *op, Value cond) {
  b.setInsertionPoint(op);
  auto ifOp = scf::IfOp::create(b, op->getLoc(), cond, /*withElse=*/false);
  op->moveBefore(ifOp.thenBlock()->getTerminator());
}

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_ROLEUTILS_H
