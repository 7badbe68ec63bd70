//===- fmha-translate.cpp - Translations out of MLIR ---------------------===//
//
// Part of fmha. Like mlir-translate, plus `--fmha-extract-object`, which writes
// the PTX or cubin that gpu-module-to-binary embedded in a `gpu.binary` op,
// and `--fmha-manifest`, which writes a kernel's JSON launch manifest.
//
//===----------------------------------------------------------------------===//

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

/// Completes the launch contract each kernel recorded (`fmha.manifest`) with
/// what the lowering decided, and writes one JSON manifest (docs/Manifest.md)
/// for the module's only kernel.
static LogicalResult writeManifest(Operation *module, llvm::raw_ostream &os) {
  SmallVector<std::pair<Operation *, gpu::GPUModuleOp>> kernels;
  module->walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](Operation *op) {
      if (op->hasAttr("fmha.manifest"))
        kernels.push_back({op, gpuModule});
    });
  });
  if (kernels.size() != 1)
    return module->emitError("expected exactly one kernel with an "
                             "fmha.manifest attribute, found ")
           << kernels.size();
  auto [kernel, gpuModule] = kernels.front();
  auto text = kernel->getAttrOfType<StringAttr>("fmha.manifest");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.getValue());
  if (!parsed)
    return kernel->emitError("fmha.manifest is not valid JSON: ")
           << llvm::toString(parsed.takeError());
  llvm::json::Object *manifest = parsed->getAsObject();
  if (!manifest)
    return kernel->emitError("fmha.manifest is not a JSON object");
  auto threads = kernel->getAttrOfType<IntegerAttr>("ws.num_threads");
  auto smem = kernel->getAttrOfType<IntegerAttr>("ws.smem_bytes");
  if (!threads)
    return kernel->emitError("kernel has no ws.num_threads: run the whole "
                             "pipeline before writing its manifest");
  std::string target = "unknown";
  if (ArrayAttr targets = gpuModule.getTargetsAttr())
    if (!targets.empty())
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]))
        target = nvvm.getChip().str();
  StringRef entry = SymbolTable::getSymbolName(kernel).getValue();
  (*manifest)["format"] = "fmha-manifest/1";
  (*manifest)["entry"] = entry;
  (*manifest)["target"] = target;
  (*manifest)["cubin"] = (entry + "." + target + ".cubin").str();
  (*manifest)["block"] = llvm::json::Array{threads.getInt(), 1, 1};
  // The kernel's cluster shape where its expansion chose one (2-CTA mode),
  // else a CTA alone.
  if (!manifest->get("cluster"))
    (*manifest)["cluster"] = llvm::json::Array{1, 1, 1};
  (*manifest)["dynamic_smem"] = smem ? smem.getInt() : 0;
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*manifest))) << "\n";
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
      writeManifest, [](DialectRegistry &registry) {
        fmha::registerAllFMHADialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "fmha translation driver"));
}
