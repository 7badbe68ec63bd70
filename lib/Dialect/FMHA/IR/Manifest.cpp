//===- Manifest.cpp - The launch manifest of a compiled kernel ------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/Manifest.h"
#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fmha;

/// The JSON of a launch-contract attribute (verified by verifyLaunchAttr):
/// dictionaries, arrays, booleans, integers and strings.
static llvm::json::Value toJSON(Attribute attr) {
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return flag.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.getValue();
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array result;
    for (Attribute element : array)
      result.push_back(toJSON(element));
    return result;
  }
  llvm::json::Object result;
  for (NamedAttribute entry : cast<DictionaryAttr>(attr))
    result[entry.getName().getValue()] = toJSON(entry.getValue());
  return result;
}

/// The launch-contract attribute `name` of `kernel`, checked.
static FailureOr<Attribute> getContract(Operation *kernel, StringRef name) {
  Attribute value = kernel->getAttr(name);
  if (!value)
    return kernel->emitError("kernel has no ")
           << name << ": fmha-expand-kernels records its launch contract";
  NamedAttribute attr(StringAttr::get(kernel->getContext(), name), value);
  if (failed(verifyLaunchAttr(attr, [&] { return kernel->emitError(); })))
    return failure();
  return value;
}

LogicalResult fmha::writeManifest(Operation *module, llvm::raw_ostream &os) {
  StringRef tensorsName = FMHADialect::TensorsAttrHelper::getNameStr();
  SmallVector<std::pair<Operation *, gpu::GPUModuleOp>> kernels;
  module->walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](Operation *op) {
      if (op->hasAttr(tensorsName))
        kernels.push_back({op, gpuModule});
    });
  });
  if (kernels.size() != 1)
    return module->emitError("expected exactly one kernel with a launch "
                             "contract (")
           << tensorsName << "), found " << kernels.size();
  auto [kernel, gpuModule] = kernels.front();
  llvm::json::Object manifest;
  for (StringRef name :
       {tensorsName, StringRef(FMHADialect::ParamsAttrHelper::getNameStr()),
        StringRef(FMHADialect::GridAttrHelper::getNameStr())}) {
    FailureOr<Attribute> value = getContract(kernel, name);
    if (failed(value))
      return failure();
    manifest[name.drop_front(StringRef("fmha.").size())] = toJSON(*value);
  }
  // Sizes the caller passes, where the kernel has any (optional).
  StringRef sizesName = FMHADialect::SizesAttrHelper::getNameStr();
  if (kernel->hasAttr(sizesName)) {
    FailureOr<Attribute> sizes = getContract(kernel, sizesName);
    if (failed(sizes))
      return failure();
    manifest["sizes"] = toJSON(*sizes);
  }
  auto threads = kernel->getAttrOfType<IntegerAttr>(
      ws::WSDialect::NumThreadsAttrHelper::getNameStr());
  auto smem = kernel->getAttrOfType<IntegerAttr>(
      ws::WSDialect::SmemBytesAttrHelper::getNameStr());
  if (!threads)
    return kernel->emitError("kernel has no ws.num_threads: run the whole "
                             "pipeline before writing its manifest");
  std::string target = "unknown";
  if (ArrayAttr targets = gpuModule.getTargetsAttr())
    if (!targets.empty())
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]))
        target = nvvm.getChip().str();
  // The cluster shape ws-lower-roles gave the kernel, else a CTA alone.
  llvm::json::Array cluster{1, 1, 1};
  if (auto dims = kernel->getAttrOfType<DenseI32ArrayAttr>(
          NVVM::NVVMDialect::getClusterDimAttrName())) {
    cluster.clear();
    for (int32_t dim : dims.asArrayRef())
      cluster.push_back(dim);
  }
  StringRef entry = SymbolTable::getSymbolName(kernel).getValue();
  manifest["format"] = "fmha-manifest/1";
  manifest["name"] = entry;
  manifest["entry"] = entry;
  manifest["target"] = target;
  manifest["cubin"] = (entry + "." + target + ".cubin").str();
  manifest["block"] = llvm::json::Array{threads.getInt(), 1, 1};
  manifest["cluster"] = std::move(cluster);
  manifest["dynamic_smem"] = smem ? smem.getInt() : 0;
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return success();
}
