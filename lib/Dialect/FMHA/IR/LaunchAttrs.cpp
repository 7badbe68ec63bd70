//===- LaunchAttrs.cpp - The kernel attributes of the launch contract -----===//
//
// Part of fmha. Checks `fmha.tensors`, `fmha.params` and `fmha.grid`, the
// launch contract fmha-expand-kernels records on a kernel and from which
// the manifest is written (Manifest.h, docs/Manifest.md): the form of each
// entry the manifest's format defines.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {
/// Reports the first entry of a contract attribute that breaks its form.
class ContractChecker {
public:
  ContractChecker(StringRef name, function_ref<InFlightDiagnostic()> emitError)
      : name(name), emitError(emitError) {}

  /// Fails, saying that `what` must be `expected`, when `ok` is false.
  LogicalResult expect(bool ok, const Twine &what, const Twine &expected,
                       Attribute got) {
    if (ok)
      return success();
    return emitError() << "'" << name << "': " << what << " must be "
                       << expected << ", got " << got;
  }
  /// A size or grid expression: an integer, a symbol, or `{ceildiv | mul |
  /// min = [x, y]}`.
  LogicalResult expression(Attribute attr, const Twine &what);
  /// One of `choices`.
  LogicalResult oneOf(DictionaryAttr entry, StringRef key,
                      ArrayRef<StringRef> choices, const Twine &what);
  LogicalResult tensor(NamedAttribute tensor);
  LogicalResult param(Attribute param, size_t index);

private:
  StringRef name;
  function_ref<InFlightDiagnostic()> emitError;
};
} // namespace

LogicalResult ContractChecker::expression(Attribute attr, const Twine &what) {
  if (isa<IntegerAttr, StringAttr>(attr))
    return success();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  bool ok = dict && dict.size() == 1 &&
            llvm::is_contained({"ceildiv", "mul", "min"},
                               dict.begin()->getName().getValue());
  auto args = ok ? dyn_cast<ArrayAttr>(dict.begin()->getValue()) : nullptr;
  if (failed(expect(args && args.size() == 2, what,
                    "an integer, a symbol or {ceildiv | mul | min = [x, y]}",
                    attr)))
    return failure();
  return success(succeeded(expression(args[0], what)) &&
                 succeeded(expression(args[1], what)));
}

LogicalResult ContractChecker::oneOf(DictionaryAttr entry, StringRef key,
                                     ArrayRef<StringRef> choices,
                                     const Twine &what) {
  auto value = dyn_cast_or_null<StringAttr>(entry.get(key));
  std::string expected = "one of " + llvm::join(choices, ", ");
  return expect(value && llvm::is_contained(choices, value.getValue()),
                what + " " + key, expected, entry);
}

LogicalResult ContractChecker::tensor(NamedAttribute tensor) {
  std::string what = ("tensor '" + tensor.getName().getValue() + "'").str();
  auto entry = dyn_cast<DictionaryAttr>(tensor.getValue());
  auto shape =
      entry ? dyn_cast_or_null<ArrayAttr>(entry.get("shape")) : nullptr;
  if (failed(expect(bool(shape), what,
                    "{shape = [sizes or symbols], dtype, role}",
                    tensor.getValue())))
    return failure();
  if (failed(oneOf(entry, "dtype",
                   {"bf16", "f16", "f32", "f8e4m3", "f8e5m2", "i32"}, what)) ||
      failed(
          oneOf(entry, "role", {"input", "output", "scratch", "zeroed"}, what)))
    return failure();
  // The caller's tensors bind sizes and symbols; the runtime sizes its
  // scratch tensors by expressions of them.
  StringRef role = cast<StringAttr>(entry.get("role")).getValue();
  if (role == "scratch" || role == "zeroed") {
    for (Attribute size : shape)
      if (failed(expression(size, what + " shape")))
        return failure();
    return success();
  }
  return expect(llvm::all_of(shape,
                             [](Attribute size) {
                               return isa<IntegerAttr, StringAttr>(size);
                             }),
                what, "{shape = [sizes or symbols], dtype, role}",
                tensor.getValue());
}

LogicalResult ContractChecker::param(Attribute param, size_t index) {
  std::string what = "parameter #" + std::to_string(index);
  auto entry = dyn_cast<DictionaryAttr>(param);
  if (failed(expect(bool(entry), what, "a dictionary", param)) ||
      failed(oneOf(entry, "kind", {"tensor_map", "scalar", "pointer", "memref"},
                   what)))
    return failure();
  StringRef kind = cast<StringAttr>(entry.get("kind")).getValue();
  if (kind == "scalar") {
    if (failed(oneOf(entry, "dtype", {"i32", "i64", "f32"}, what)))
      return failure();
    Attribute value = entry.get("value");
    return value ? expression(value, what + " value")
                 : expect(false, what, "a scalar with a value", param);
  }
  if (failed(expect(isa_and_nonnull<StringAttr>(entry.get("tensor")), what,
                    "a " + kind + " naming its tensor", param)))
    return failure();
  if (kind == "memref")
    return expect(!entry.get("strided") || isa<BoolAttr>(entry.get("strided")),
                  what, "a memref whose 'strided' is a boolean", param);
  if (kind != "tensor_map")
    return success();
  auto box = dyn_cast_or_null<ArrayAttr>(entry.get("box"));
  auto swizzle = dyn_cast_or_null<IntegerAttr>(entry.get("swizzle"));
  // The tensor's dimensions in the map's order, outermost first: a
  // permutation of 0 .. rank - 1.
  if (Attribute dims = entry.get("dims")) {
    auto list = dyn_cast<ArrayAttr>(dims);
    SmallVector<int64_t> order;
    if (list)
      for (Attribute dim : list)
        if (auto value = dyn_cast<IntegerAttr>(dim))
          order.push_back(value.getInt());
    SmallVector<int64_t> sorted(order);
    llvm::sort(sorted);
    bool permutation = list && order.size() == list.size();
    for (auto [i, dim] : llvm::enumerate(sorted))
      permutation &= dim == static_cast<int64_t>(i);
    if (failed(expect(permutation, what + " dims",
                      "a permutation of the tensor's dimensions", dims)))
      return failure();
  }
  return expect(box && !box.empty() &&
                    llvm::all_of(box, llvm::IsaPred<IntegerAttr>) && swizzle &&
                    llvm::is_contained({0, 32, 64, 128}, swizzle.getInt()),
                what,
                "a tensor_map with a box of integers and a swizzle of 0, "
                "32, 64 or 128",
                param);
}

LogicalResult
fmha::verifyLaunchAttr(NamedAttribute attr,
                       function_ref<InFlightDiagnostic()> emitError) {
  StringRef name = attr.getName().getValue();
  ContractChecker check(name, emitError);
  Attribute value = attr.getValue();
  if (name == FMHADialect::TensorsAttrHelper::getNameStr()) {
    auto tensors = dyn_cast<DictionaryAttr>(value);
    if (failed(check.expect(bool(tensors), "the tensors",
                            "a dictionary of tensors by name", value)))
      return failure();
    for (NamedAttribute tensor : tensors)
      if (failed(check.tensor(tensor)))
        return failure();
    return success();
  }
  if (name == FMHADialect::ParamsAttrHelper::getNameStr()) {
    auto params = dyn_cast<ArrayAttr>(value);
    if (failed(check.expect(bool(params), "the parameters", "an array", value)))
      return failure();
    for (auto [index, param] : llvm::enumerate(params))
      if (failed(check.param(param, index)))
        return failure();
    return success();
  }
  if (name == FMHADialect::SizesAttrHelper::getNameStr()) {
    auto sizes = dyn_cast<ArrayAttr>(value);
    return check.expect(
        sizes && llvm::all_of(sizes,
                              [](Attribute size) {
                                auto name = dyn_cast<StringAttr>(size);
                                return name && !name.getValue().empty();
                              }),
        "the caller's sizes", "an array of symbols", value);
  }
  if (name == FMHADialect::GridAttrHelper::getNameStr()) {
    auto grid = dyn_cast<ArrayAttr>(value);
    if (failed(check.expect(grid && grid.size() == 3, "the grid",
                            "an array of three expressions", value)))
      return failure();
    for (Attribute size : grid)
      if (failed(check.expression(size, "a grid size")))
        return failure();
  }
  return success();
}
