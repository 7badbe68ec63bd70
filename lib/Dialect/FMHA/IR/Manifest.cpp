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
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
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

/// The chip of `gpuModule`'s #nvvm.target, or "unknown".
static std::string getChip(gpu::GPUModuleOp gpuModule) {
  if (ArrayAttr targets = gpuModule.getTargetsAttr())
    if (!targets.empty())
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]))
        return nvvm.getChip().str();
  return "unknown";
}

/// Adds what launching `kernel` takes to `launch`: its entry, block,
/// cluster and dynamic shared memory, and its parameters and grid.
static LogicalResult writeLaunch(Operation *kernel,
                                 llvm::json::Object &launch) {
  for (StringRef name :
       {StringRef(FMHADialect::ParamsAttrHelper::getNameStr()),
        StringRef(FMHADialect::GridAttrHelper::getNameStr())}) {
    FailureOr<Attribute> value = getContract(kernel, name);
    if (failed(value))
      return failure();
    launch[name.drop_front(StringRef("fmha.").size())] = toJSON(*value);
  }
  auto threads = kernel->getAttrOfType<IntegerAttr>(
      ws::WSDialect::NumThreadsAttrHelper::getNameStr());
  auto smem = kernel->getAttrOfType<IntegerAttr>(
      ws::WSDialect::SmemBytesAttrHelper::getNameStr());
  if (!threads)
    return kernel->emitError("kernel has no ws.num_threads: run the whole "
                             "pipeline before writing its manifest");
  // The cluster shape ws-lower-roles gave the kernel, else a CTA alone.
  llvm::json::Array cluster{1, 1, 1};
  if (auto dims = kernel->getAttrOfType<DenseI32ArrayAttr>(
          NVVM::NVVMDialect::getClusterDimAttrName())) {
    cluster.clear();
    for (int32_t dim : dims.asArrayRef())
      cluster.push_back(dim);
  }
  launch["entry"] = SymbolTable::getSymbolName(kernel).getValue();
  launch["block"] = llvm::json::Array{threads.getInt(), 1, 1};
  launch["cluster"] = std::move(cluster);
  launch["dynamic_smem"] = smem ? smem.getInt() : 0;
  return success();
}

/// Adds the tensors and the caller's sizes of `kernels` to `manifest`: a
/// tensor several kernels declare must be declared alike; the sizes are
/// the union, in order of first appearance.
static LogicalResult writeTensors(ArrayRef<Operation *> kernels,
                                  llvm::json::Object &manifest) {
  StringRef tensorsName = FMHADialect::TensorsAttrHelper::getNameStr();
  StringRef sizesName = FMHADialect::SizesAttrHelper::getNameStr();
  llvm::StringMap<Attribute> tensors;
  llvm::json::Object tensorsJson;
  llvm::json::Array sizesJson;
  llvm::StringSet<> sizes;
  for (Operation *kernel : kernels) {
    FailureOr<Attribute> value = getContract(kernel, tensorsName);
    if (failed(value))
      return failure();
    for (NamedAttribute tensor : cast<DictionaryAttr>(*value)) {
      StringRef name = tensor.getName().getValue();
      auto [it, inserted] = tensors.try_emplace(name, tensor.getValue());
      if (!inserted && it->second != tensor.getValue())
        return kernel->emitError("tensor '")
               << name << "' is declared as " << tensor.getValue()
               << " here and as " << it->second
               << " by an earlier launch: the launches of one manifest "
                  "share their tensors";
      tensorsJson[name] = toJSON(tensor.getValue());
    }
    if (!kernel->hasAttr(sizesName))
      continue;
    FailureOr<Attribute> kernelSizes = getContract(kernel, sizesName);
    if (failed(kernelSizes))
      return failure();
    for (Attribute size : cast<ArrayAttr>(*kernelSizes))
      if (sizes.insert(cast<StringAttr>(size).getValue()).second)
        sizesJson.push_back(toJSON(size));
  }
  manifest["tensors"] = std::move(tensorsJson);
  if (!sizesJson.empty())
    manifest["sizes"] = std::move(sizesJson);
  return success();
}

/// Writes the manifest of the kernels `gpuModule` launches in turn
/// (`fmha.launches`): their tensors once, then a launch each.
static LogicalResult writeLaunchesManifest(gpu::GPUModuleOp gpuModule,
                                           ArrayAttr launches,
                                           ArrayRef<Operation *> contracts,
                                           llvm::raw_ostream &os) {
  SmallVector<Operation *> kernels;
  for (Attribute launch : launches)
    kernels.push_back(gpuModule.lookupSymbol(cast<FlatSymbolRefAttr>(launch)));
  for (Operation *kernel : contracts)
    if (!llvm::is_contained(kernels, kernel))
      return kernel->emitError("kernel has a launch contract but is not "
                               "among its gpu.module's fmha.launches");
  llvm::json::Object manifest;
  if (failed(writeTensors(kernels, manifest)))
    return failure();
  llvm::json::Array launchesJson;
  for (Operation *kernel : kernels) {
    llvm::json::Object launch;
    if (failed(writeLaunch(kernel, launch)))
      return failure();
    launchesJson.push_back(std::move(launch));
  }
  std::string target = getChip(gpuModule);
  // The module is `<name>_module` (fmha-expand-kernels' createKernelShell).
  StringRef name = gpuModule.getName();
  name.consume_back("_module");
  manifest["format"] = "fmha-manifest/1";
  manifest["name"] = name;
  manifest["target"] = target;
  manifest["cubin"] = (name + "." + target + ".cubin").str();
  manifest["launches"] = std::move(launchesJson);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return success();
}

LogicalResult fmha::writeManifest(Operation *module, llvm::raw_ostream &os) {
  StringRef tensorsName = FMHADialect::TensorsAttrHelper::getNameStr();
  StringRef launchesName = FMHADialect::LaunchesAttrHelper::getNameStr();
  SmallVector<std::pair<Operation *, gpu::GPUModuleOp>> kernels;
  SmallVector<gpu::GPUModuleOp> launchModules;
  module->walk([&](gpu::GPUModuleOp gpuModule) {
    if (gpuModule->hasAttr(launchesName))
      launchModules.push_back(gpuModule);
    gpuModule.walk([&](Operation *op) {
      if (op->hasAttr(tensorsName))
        kernels.push_back({op, gpuModule});
    });
  });
  if (launchModules.size() > 1)
    return module->emitError("expected one gpu.module with fmha.launches, "
                             "found ")
           << launchModules.size();
  if (launchModules.size() == 1) {
    gpu::GPUModuleOp gpuModule = launchModules.front();
    SmallVector<Operation *> contracts;
    for (auto [kernel, parent] : kernels) {
      if (parent != gpuModule)
        return kernel->emitError("kernel with a launch contract outside the "
                                 "gpu.module of fmha.launches: a manifest "
                                 "describes one module's launches");
      contracts.push_back(kernel);
    }
    return writeLaunchesManifest(
        gpuModule, gpuModule->getAttrOfType<ArrayAttr>(launchesName), contracts,
        os);
  }
  if (kernels.size() != 1)
    return module->emitError("expected exactly one kernel with a launch "
                             "contract (")
           << tensorsName << "), found " << kernels.size();
  auto [kernel, gpuModule] = kernels.front();
  llvm::json::Object manifest;
  FailureOr<Attribute> tensors = getContract(kernel, tensorsName);
  if (failed(tensors))
    return failure();
  manifest["tensors"] = toJSON(*tensors);
  // Sizes the caller passes, where the kernel has any (optional).
  StringRef sizesName = FMHADialect::SizesAttrHelper::getNameStr();
  if (kernel->hasAttr(sizesName)) {
    FailureOr<Attribute> sizes = getContract(kernel, sizesName);
    if (failed(sizes))
      return failure();
    manifest["sizes"] = toJSON(*sizes);
  }
  if (failed(writeLaunch(kernel, manifest)))
    return failure();
  std::string target = getChip(gpuModule);
  StringRef entry = SymbolTable::getSymbolName(kernel).getValue();
  manifest["format"] = "fmha-manifest/1";
  manifest["name"] = entry;
  manifest["target"] = target;
  manifest["cubin"] = (entry + "." + target + ".cubin").str();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return success();
}
