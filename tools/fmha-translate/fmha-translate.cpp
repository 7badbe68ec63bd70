//===- fmha-translate.cpp - Translations out of MLIR ---------------------===//
//
// Part of fmha. Like mlir-translate, plus `--fmha-extract-object`, which writes
// the PTX or cubin that gpu-module-to-binary embedded in a `gpu.binary` op,
// and `--fmha-manifest`, which writes a kernel's JSON launch manifest
// (fmha::writeManifest).
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/Manifest.h"
#include "fmha/InitAllDialects.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Writes the object of the only `gpu.binary` op in `module` to `os`.
static LogicalResult extractObject(Operation *module, llvm::raw_ostream &os) {
  SmallVector<gpu::BinaryOp> binaries;
  module->walk([&](gpu::BinaryOp op) { binaries.push_back(op); });
  if (binaries.size() != 1)
    return module->emitError("expected exactly one gpu.binary op, found ")
           << binaries.size();
  ArrayAttr objects = binaries.front().getObjects();
  if (objects.size() != 1)
    return binaries.front().emitError(
               "expected exactly one object in the gpu.binary, found ")
           << objects.size();
  auto object = cast<gpu::ObjectAttr>(objects[0]);
  os << object.getObject().getValue();
  return success();
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration extract(
      "fmha-extract-object",
      "write the PTX or cubin embedded in the module's gpu.binary op",
      extractObject, [](DialectRegistry &registry) {
        fmha::registerAllFMHADialects(registry);
      });
  TranslateFromMLIRRegistration manifest(
      "fmha-manifest",
      "write the JSON launch manifest of the module's only kernel",
      fmha::writeManifest, [](DialectRegistry &registry) {
        fmha::registerAllFMHADialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "fmha translation driver"));
}
