//===- ExpandGemm.cpp - fmha.gemm to a tile program -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fmha;

/// The launch contract of a GEMM kernel, without what only the later passes
/// know (block size, shared memory, target binary).
static std::string gemmManifest(GemmOp op) {
  namespace json = llvm::json;
  std::string in = dtypeName(op.getAType().getElementType());
  std::string out = dtypeName(op.getCType().getElementType());
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  int64_t rowsPerCTA = blockM * op.getNumConsumerGroups();
  // A and B rows of block_k elements fill exactly one swizzle span (the
  // verifier allows 32, 64 or 128 bytes); tile-assign-layouts picks the same.
  int64_t swizzle =
      blockK * op.getAType().getElementType().getIntOrFloatBitWidth() / 8;
  json::Value m = sizeJSON(op.getM(), "M"), n = sizeJSON(op.getN(), "N"),
              k = sizeJSON(op.getK(), "K");
  json::Object manifest{
      {"name", op.getSymName()},
      {"tensors", json::Object{{"a", json::Object{{"shape", json::Array{m, k}},
                                                  {"dtype", in},
                                                  {"role", "input"}}},
                               {"b", json::Object{{"shape", json::Array{n, k}},
                                                  {"dtype", in},
                                                  {"role", "input"}}},
                               {"c", json::Object{{"shape", json::Array{m, n}},
                                                  {"dtype", out},
                                                  {"role", "output"}}}}},
      {"params",
       json::Array{
           json::Object{{"kind", "tensor_map"},
                        {"tensor", "a"},
                        {"box", json::Array{blockM, blockK}},
                        {"swizzle", swizzle}},
           json::Object{{"kind", "tensor_map"},
                        {"tensor", "b"},
                        {"box", json::Array{blockN, blockK}},
                        {"swizzle", swizzle}},
           json::Object{{"kind", "tensor_map"},
                        {"tensor", "c"},
                        {"box", json::Array{blockM, blockN}},
                        {"swizzle", 0}},
           json::Object{{"kind", "scalar"}, {"dtype", "i32"}, {"value", m}},
           json::Object{{"kind", "scalar"}, {"dtype", "i32"}, {"value", n}},
           json::Object{{"kind", "scalar"}, {"dtype", "i32"}, {"value", k}}}},
      {"grid",
       json::Array{json::Object{{"ceildiv", json::Array{m, rowsPerCTA}}},
                   json::Object{{"ceildiv", json::Array{n, blockN}}}, 1}}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(manifest));
  return text;
}

LogicalResult fmha::expandGemm(GemmOp op, OpBuilder &b) {
  if (!op.getTransposeB())
    return op.emitOpError("B given as [K, N] is not expanded yet; pass B as "
                          "[N, K] with transpose_b");
  if (op.getTarget() != Target::Sm90a)
    return op.emitOpError("GEMM kernels are expanded for sm_90a only so far");

  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Type inType = op.getAType().getElementType();
  Type outType = op.getCType().getElementType();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  int64_t consumers = op.getNumConsumerGroups();

  auto aDesc = tile::TensorDescType::get(
      RankedTensorType::get({blockM, blockK}, inType));
  auto bDesc = tile::TensorDescType::get(
      RankedTensorType::get({blockN, blockK}, inType));
  auto cDesc = tile::TensorDescType::get(
      RankedTensorType::get({blockM, blockN}, outType));
  KernelShell shell = createKernelShell(b, op, op.getSymName(), op.getTarget(),
                                        {aDesc, bDesc, cDesc, i32, i32, i32});
  gpu::GPUFuncOp func = shell.func;
  func->setAttr("fmha.manifest", b.getStringAttr(gemmManifest(op)));
  func->setAttr("fmha.stages", b.getI64IntegerAttr(op.getStagesOrDefault()));
  Value a = func.getArgument(0), bArg = func.getArgument(1),
        c = func.getArgument(2), k = func.getArgument(5);

  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value pidM = tile::ProgramIdOp::create(
      b, loc, tile::GridDimAttr::get(ctx, tile::GridDim::x));
  Value pidN = tile::ProgramIdOp::create(
      b, loc, tile::GridDimAttr::get(ctx, tile::GridDim::y));
  SmallVector<Value> rows;
  Value m0 = arith::MulIOp::create(b, loc, pidM, constant(blockM * consumers));
  for (int64_t i = 0; i < consumers; ++i)
    rows.push_back(i == 0
                       ? m0
                       : arith::AddIOp::create(b, loc, m0, constant(i * blockM))
                             .getResult());
  Value n0 = arith::MulIOp::create(b, loc, pidN, constant(blockN));
  Value kTiles = arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, k, constant(blockK - 1)),
      constant(blockK));

  auto accType = RankedTensorType::get({blockM, blockN}, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getFloatAttr(f32, 0.0)));
  SmallVector<Value> inits(consumers, zero);
  auto loop =
      scf::ForOp::create(b, loc, constant(0), kTiles, constant(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kOffset =
        arith::MulIOp::create(b, loc, loop.getInductionVar(), constant(blockK));
    SmallVector<Value> aTiles;
    for (Value row : rows)
      aTiles.push_back(tile::LoadOp::create(b, loc, a, {row, kOffset}));
    Value bTile = tile::LoadOp::create(b, loc, bArg, {n0, kOffset});
    SmallVector<Value> results;
    for (auto [aTile, acc] : llvm::zip(aTiles, loop.getRegionIterArgs()))
      results.push_back(tile::DotOp::create(b, loc, aTile, bTile, acc,
                                            UnitAttr(), b.getUnitAttr()));
    scf::YieldOp::create(b, loc, results);
  }
  for (auto [acc, row] : llvm::zip(loop.getResults(), rows)) {
    Value result = acc;
    if (outType != f32)
      result = arith::TruncFOp::create(
          b, loc, RankedTensorType::get({blockM, blockN}, outType), acc);
    tile::StoreOp::create(b, loc, c, {row, n0}, result);
  }
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}
