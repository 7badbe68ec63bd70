#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def FMHA_Dialect : Dialect {
  let name = "fmha";
  let cppNamespace = "::mlir::fmha";
  let summary = "Kernel-level attention and GEMM ops: what to compute.";
  let description = [{
    Kernel-level attention and GEMM ops: what to compute.
  }];
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

class FMHA_Op<string mnemonic, list<Trait> traits = []>
    : Op<FMHA_Dialect, mnemonic, traits>;
class FMHA_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FMHA_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}
class FMHA_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<FMHA_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
