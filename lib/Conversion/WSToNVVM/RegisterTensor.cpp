//===- RegisterTensor.cpp - Register tensors in WS-to-NVVM ----------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "RegisterTensor.h"
#include "Values.h"

#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::ws;

std::optional<int64_t> ws::getStaticCoordinate(OpFoldResult origin) {
  if (auto attr = dyn_cast<Attribute>(origin))
    return cast<IntegerAttr>(attr).getInt();
  return std::nullopt;
}

Value ws::buildCoordinate(OpBuilder &b, Location loc, OpFoldResult origin,
                          int64_t offset) {
  if (std::optional<int64_t> value = getStaticCoordinate(origin))
    return i32Const(b, loc, *value + offset);
  Value base = cast<Value>(origin);
  if (offset == 0)
    return base;
  return LLVM::AddOp::create(b, loc, base, i32Const(b, loc, offset));
}

RegisterTensor::RegisterTensor(RankedTensorType type,
                               tile::RegisterLayoutAttrInterface layout)
    : type(type), layout(layout),
      registerShape(layout.getRegisterShape(type.getShape())) {
  for (int64_t v = 0, e = layout.getValuesPerThread(type.getShape()); v < e;
       ++v)
    offsets.push_back(layout.getValueOffsets(type.getShape(), v));
}

std::optional<RegisterTensor> RegisterTensor::get(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  auto layout =
      dyn_cast_or_null<tile::RegisterLayoutAttrInterface>(tensor.getEncoding());
  if (!layout || layout.getNumWarps() != kWarpsPerGroup)
    return std::nullopt;
  if (auto slice = dyn_cast<tile::SliceAttr>(layout);
      slice && slice.getDim() > 1)
    return std::nullopt;
  return RegisterTensor(tensor, layout);
}

tile::SliceAttr RegisterTensor::getSlice() const {
  return dyn_cast<tile::SliceAttr>(layout);
}

tile::SliceAttr RegisterTensor::getRowSlice() const {
  tile::SliceAttr slice = getSlice();
  return slice && slice.getDim() == 1 ? slice : tile::SliceAttr();
}

bool RegisterTensor::isSliceOf(const RegisterTensor &parent,
                               unsigned dim) const {
  tile::SliceAttr slice = getSlice();
  return slice && slice.getDim() == dim && slice.getParent() == parent.layout &&
         type.getShape()[0] == parent.type.getShape()[1 - dim];
}

SmallVector<int64_t, 2> RegisterTensor::getPosition(int64_t value) const {
  if (registerShape.size() == 1)
    return {value};
  return {value / registerShape[1], value % registerShape[1]};
}

SmallVector<SmallVector<int64_t, 2>> RegisterTensor::getPositions() const {
  SmallVector<SmallVector<int64_t, 2>> positions;
  for (int64_t v = 0; v < getNumValues(); ++v)
    positions.push_back(getPosition(v));
  return positions;
}

Value RegisterTensor::buildStruct(
    OpBuilder &b, Location loc, const TypeConverter &converter,
    function_ref<Value(int64_t v)> valueAt) const {
  Value result = LLVM::UndefOp::create(b, loc, converter.convertType(type));
  for (int64_t v = 0; v < getNumValues(); ++v)
    result =
        LLVM::InsertValueOp::create(b, loc, result, valueAt(v), getPosition(v));
  return result;
}

Type RegisterTensor::getStructType(Type element) const {
  MLIRContext *ctx = type.getContext();
  Type inner = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(registerShape.back(), element));
  if (registerShape.size() == 1)
    return inner;
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(registerShape[0], inner));
}

Value RegisterTensor::buildThreadIndex(OpBuilder &b, Location loc) const {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return LLVM::URemOp::create(
      b, loc, tid, i32Const(b, loc, kThreadsPerWarp * layout.getNumWarps()));
}

SmallVector<OpFoldResult, 2>
RegisterTensor::buildThreadOrigin(OpBuilder &b, Location loc) const {
  return layout.buildThreadOrigin(b, loc, type.getShape(),
                                  buildThreadIndex(b, loc));
}
