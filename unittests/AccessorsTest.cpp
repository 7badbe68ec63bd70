//===- AccessorsTest.cpp - Unit tests of the dialects' C++ accessors -----===//
//
// Part of fmha. Later passes read kernel configs and buffer sizes through
// these accessors; the values are worked out by hand here.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;

namespace {
class AccessorsTest : public ::testing::Test {
protected:
  AccessorsTest() {
    DialectRegistry registry;
    fmha::registerAllFMHADialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  template <typename OpT> OpT parseOne(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return OpT();
    OpT result;
    module->walk([&](OpT op) { result = op; });
    return result;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(AccessorsTest, GemmConfig) {
  auto gemm = parseOne<fmha::GemmOp>(
      "fmha.gemm @g (tensor<?x4096xbf16>, tensor<4096x2048xbf16>) -> "
      "tensor<?x2048xbf16> tile [128, 128, 64] stages 3 consumers 2 "
      "target sm_90a");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm.getK(), 4096);
  EXPECT_EQ(gemm.getN(), 2048);
  EXPECT_EQ(gemm.getBlockM(), 128);
  EXPECT_EQ(gemm.getBlockN(), 128);
  EXPECT_EQ(gemm.getBlockK(), 64);
  EXPECT_EQ(gemm.getStagesOrDefault(), 3);
  EXPECT_EQ(gemm.getNumConsumerGroups(), 2);
  // One 128x128 fp32 accumulator per consumer thread, 128*128/128
  // registers, and 8 for addresses and loop state.
  EXPECT_EQ(gemm.getConsumerRegisters(), 128 + 8);
  // 3 stages of (2*128 + 128) x 64 bf16, plus 2 bf16 epilogue tiles and a
  // full and an empty barrier (8 bytes each) per stage.
  EXPECT_EQ(gemm.getSharedMemoryUsage().getTotalBytes(),
            3 * (2 * 128 + 128) * 64 * 2 + 2 * 128 * 128 * 2 + 2 * 3 * 8);
}

TEST_F(AccessorsTest, AttentionDefaults) {
  auto attn = parseOne<fmha::AttentionOp>(
      "fmha.attention @a (tensor<?x32x?x128xf16>, tensor<?x8x?x128xf16>, "
      "tensor<?x8x?x128xf16>) -> tensor<?x32x?x128xf16> target sm_90a");
  ASSERT_TRUE(attn);
  EXPECT_EQ(attn.getHeadDim(), 128);
  EXPECT_EQ(attn.getNumHeadsQ(), 32);
  EXPECT_EQ(attn.getNumHeadsKV(), 8);
  EXPECT_FALSE(attn.hasLse());
  EXPECT_NEAR(attn.getScaleOrDefault(), 1.0 / std::sqrt(128.0), 1e-12);
}

TEST_F(AccessorsTest, AttentionResources) {
  // Head dim 256 on the sm_90a defaults: tile [64, 64], 2 consumers, and the
  // most stages up to 2 that fit.
  auto attn = parseOne<fmha::AttentionOp>(
      "fmha.attention @a (tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>, "
      "tensor<?x8x?x256xbf16>) -> tensor<?x8x?x256xbf16> target sm_90a");
  ASSERT_TRUE(attn);
  EXPECT_EQ(attn.getBlockM(), 64);
  EXPECT_EQ(attn.getBlockN(), 64);
  EXPECT_EQ(attn.getStagesOrDefault(), 2);
  // K and V rings (2 stages of 64x256 bf16 each), one 64x256 bf16 Q tile per
  // consumer that also stages its O, and a full and an empty barrier per
  // slot of the two rings: what ws-allocate-smem gives the kernel.
  EXPECT_EQ(attn.getSharedMemoryUsage().getTotalBytes(),
            2 * 2 * 64 * 256 * 2 + 2 * 64 * 256 * 2 + 2 * (2 + 1) * 8);
  // S 32, P 16 and O 128 registers per thread, and 12 for the row state.
  EXPECT_EQ(attn.getConsumerRegisters(), 32 + 16 + 128 + 12);
}

TEST_F(AccessorsTest, ChannelAndDescriptorBytes) {
  Builder b(&context);
  auto smem = b.getI64IntegerAttr(3);
  auto a = MemRefType::get({128, 64}, b.getBF16Type(), nullptr, smem);
  auto c = MemRefType::get({256, 64}, b.getBF16Type(), nullptr, smem);
  auto channel = ws::ChannelType::get(&context, {a, c}, 4);
  EXPECT_EQ(channel.getSlotBytes(), (128 + 256) * 64 * 2);
  EXPECT_FALSE(channel.isTensorMemory());

  auto desc = tile::TensorDescType::get(
      RankedTensorType::get({128, 64}, b.getBF16Type()), 4);
  EXPECT_EQ(desc.getGlobalRank(), 4u);
  EXPECT_EQ(desc.getBlockBytes(), 128 * 64 * 2);
}
