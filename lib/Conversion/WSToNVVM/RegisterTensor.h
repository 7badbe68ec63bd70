//===- RegisterTensor.h - Register tensors in WS-to-NVVM --------*- C++ -*-===//
//
// Part of fmha. A tensor in a register layout as the lowering sees it: the
// layout's `tile::RegisterLayoutAttrInterface` applied to the tensor's
// shape, the struct its values are lowered to, and the run-time coordinates
// of the thread's values. The lowering of register ops is written against
// this once, whatever the layout.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_REGISTERTENSOR_H
#define FMHA_LIB_CONVERSION_WSTONVVM_REGISTERTENSOR_H

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir {
class TypeConverter;

namespace ws {

/// A register tensor of one warpgroup. Its values (see
/// `tile::RegisterLayoutAttrInterface`) are lowered to an LLVM struct of the
/// layout's register shape: a struct per fragment for a 2-d register shape
/// (what wgmma takes), else one flat struct.
class RegisterTensor {
public:
  /// `type` as a register tensor, if the lowering handles its layout: a
  /// register layout over one warpgroup (the threads of a role's
  /// warpgroup), or a row or column vector (`#tile.slice<dim = 1>` or
  /// `<dim = 0>`) of one.
  static std::optional<RegisterTensor> get(Type type);
  /// The type of `value` as a register tensor.
  static std::optional<RegisterTensor> get(Value value) {
    return get(value.getType());
  }

  RankedTensorType getType() const { return type; }
  tile::RegisterLayoutAttrInterface getLayout() const { return layout; }
  /// The layout as a slice (`#tile.slice`, a row or column vector), or
  /// null.
  tile::SliceAttr getSlice() const;
  /// The layout as a row slice (`#tile.slice<dim = 1>`), or null.
  tile::SliceAttr getRowSlice() const;
  /// Whether this is the vector `tile.reduce ... axis dim` makes of the 2-d
  /// register tensor `parent`: a row vector for `dim` 1, a column vector
  /// for 0.
  bool isSliceOf(const RegisterTensor &parent, unsigned dim) const;
  /// Whether this is a row vector of the 2-d register tensor `parent`.
  bool isRowSliceOf(const RegisterTensor &parent) const {
    return isSliceOf(parent, 1);
  }

  /// The values each thread holds.
  int64_t getNumValues() const { return offsets.size(); }
  /// The values of one fragment (the inner struct of a 2-d register
  /// shape), or all of them.
  int64_t getValuesPerFragment() const { return registerShape.back(); }
  /// Where value `value` sits in the lowered struct.
  SmallVector<int64_t, 2> getPosition(int64_t value) const;
  /// The positions of all values, in value order.
  SmallVector<SmallVector<int64_t, 2>> getPositions() const;
  /// The coordinates of value `value` relative to the thread's origin.
  ArrayRef<int64_t> getOffsets(int64_t value) const { return offsets[value]; }

  /// The LLVM struct of `element`s that holds a thread's values.
  Type getStructType(Type element) const;
  /// A thread's values as their lowered struct (the type `converter` gives
  /// the tensor): value `v` is what `valueAt(v)` builds, called in value
  /// order.
  Value buildStruct(OpBuilder &b, Location loc, const TypeConverter &converter,
                    function_ref<Value(int64_t v)> valueAt) const;

  /// The thread's index among the layout's threads (`%tid.x` modulo their
  /// count: roles start on warpgroup boundaries).
  Value buildThreadIndex(OpBuilder &b, Location loc) const;
  /// The coordinates of the thread's first value (see
  /// `RegisterLayoutAttrInterface::buildThreadOrigin`).
  SmallVector<OpFoldResult, 2> buildThreadOrigin(OpBuilder &b,
                                                 Location loc) const;

private:
  RegisterTensor(RankedTensorType type,
                 tile::RegisterLayoutAttrInterface layout);

  RankedTensorType type;
  tile::RegisterLayoutAttrInterface layout;
  SmallVector<int64_t, 2> registerShape;
  SmallVector<SmallVector<int64_t, 2>> offsets;
};

/// The i32 coordinate `origin + offset` (a constant where `origin` is one).
Value buildCoordinate(OpBuilder &b, Location loc, OpFoldResult origin,
                      int64_t offset);

/// The static value of `origin`, if it has one.
std::optional<int64_t> getStaticCoordinate(OpFoldResult origin);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_REGISTERTENSOR_H
