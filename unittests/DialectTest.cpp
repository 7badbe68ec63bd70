//===- DialectTest.cpp - Unit tests of dialect registration --------------===//

#include "fmha/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;

TEST(Registration, LoadsFMHADialects) {
  DialectRegistry registry;
  fmha::registerAllFMHADialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  EXPECT_NE(context.getLoadedDialect("fmha"), nullptr);
  EXPECT_NE(context.getLoadedDialect("tile"), nullptr);
  EXPECT_NE(context.getLoadedDialect("ws"), nullptr);
  EXPECT_NE(context.getLoadedDialect("nvvm"), nullptr);
}
