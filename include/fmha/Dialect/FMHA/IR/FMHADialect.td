#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"

def FMHA_Dialect : Dialect {
  let name = "fmha";
  let cppNamespace = "::mlir::fmha";
  let summary = "Kernel-level attention and GEMM ops: what to compute.";
  let description = [{
    Kernel-level attention and GEMM ops: what to compute.

    The `fmha` dialect is the entry point for other ML compilers: each op is a
    module-level symbol that declares one GPU kernel by its name, its
    signature (builtin tensor types, `?` for sizes known only at run time) and
    its configuration (tile sizes, pipeline stages, consumer warpgroups, the
    target architecture). The verifiers reject signatures the kernels do not
    support and configurations that do not fit the target (shared memory,
    registers, tensor memory), naming the limit and the numbers. Omitted
    configuration fields take defaults that always fit.

    `fmha-expand-kernels` turns each op into a `tile` program, which the
    `ws` dialect warp-specializes before the NVVM-to-PTX tail.

    ### Discardable attributes

    `fmha-expand-kernels` hands an op's configuration to the later passes,
    and its launch contract to the manifest, as attributes of the kernel
    (the function) it builds. They are declared
    here (C++ reads and writes them through the generated helpers,
    `FMHADialect::StagesAttrHelper` and so on; the ws passes, which include
    no fmha header, through the names of `fmha/Target/KernelAttrs.h`) and
    verified wherever they appear: type, range, and that they sit on a
    function (`fmha.launches` on a `gpu.module`); any other `fmha.*`
    attribute is an error.

    | attribute | type | meaning |
    |---|---|---|
    | `fmha.stages` | integer from 1 to 32 | the pipeline stages of the kernel's streamed operands |
    | `fmha.item_slots` | integer from 1 to 2 | the slots of a ring filled once per work item (a persistent kernel's Q tiles: this item's and the next one's) |
    | `fmha.consumer_registers` | integer from 1 to 255 | the registers per thread the kernel's register-computing warpgroups need (the op's estimate); `ws-assign-roles` gives the roles the target's register split for it |
    | `fmha.descriptors_at_use` | unit | the lowering computes each wgmma descriptor where its wgmma is issued, rather than letting LLVM hoist the loop-invariant ones out of the main loop (registers a kernel at its register limit cannot spare) |
    | `fmha.tensors` | dictionary | the tensors the caller passes, by name: `{shape = [sizes: integers or symbols], dtype = "bf16" (or "i32", ...), role = "input" or "output"}` |
    | `fmha.params` | array | the kernel's parameters in order: `{kind = "tensor_map", tensor, box, swizzle}` (optionally `dims`, the tensor's dimensions in the map's order), `{kind = "scalar", dtype, value}`, `{kind = "memref" or "pointer", tensor}` |
    | `fmha.grid` | array of 3 | the grid: integers, symbols, `"num_sms"` or `{ceildiv, mul or min = [x, y]}` |
    | `fmha.sizes` | array of strings | size symbols the caller passes as integers beside the tensors, for sizes no tensor's shape has (varlen attention's batch and longest query sequence) |
    | `fmha.launches` | array of symbols | on a `gpu.module` of several kernels that one call launches in turn (`fmha.attention_backward`'s): the kernels of the module, in launch order; the manifest lists them as its `launches` |

    `fmha.tensors`, `fmha.params`, `fmha.grid` and `fmha.sizes` are the kernel's launch
    contract: `fmha-translate --fmha-manifest` writes the JSON manifest
    (docs/Manifest.md) from them and from what the lowering recorded on the
    final kernel (`ws.num_threads`, `ws.smem_bytes`, `nvvm.cluster_dim`, the
    `gpu.module`'s `#nvvm.target`), in one place
    (`fmha/Dialect/FMHA/IR/Manifest.h`).

    ```mlir
    module {
      fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                            tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16>
          causal target sm_90a
      fmha.gemm @proj (tensor<?x4096xbf16>, tensor<4096x4096xbf16>)
          -> tensor<?x4096xbf16> transpose_b target sm_90a
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // Declared above, in the description's table: keep the two in step.
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$stages,
    "::mlir::IntegerAttr":$item_slots,
    "::mlir::IntegerAttr":$consumer_registers,
    "::mlir::UnitAttr":$descriptors_at_use,
    "::mlir::DictionaryAttr":$tensors,
    "::mlir::ArrayAttr":$params,
    "::mlir::ArrayAttr":$grid,
    "::mlir::ArrayAttr":$sizes,
    "::mlir::ArrayAttr":$launches
  );
  let useDefaultTypePrinterParser = 0;
}

class FMHA_Op<string mnemonic, list<Trait> traits = []>
    : Op<FMHA_Dialect, mnemonic, traits>;

/// Base class of the kernel declarations: module-level symbols whose name is
/// the kernel's and whose signature is a function type of builtin tensors.
class FMHA_KernelOp<string mnemonic, list<Trait> traits = []>
    : FMHA_Op<mnemonic, !listconcat(traits, [
        Symbol, HasParent<"::mlir::ModuleOp">])> {
  let hasVerifier = 1;
}
class FMHA_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FMHA_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
