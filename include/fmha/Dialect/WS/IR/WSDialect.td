#ifndef FMHA_DIALECT_WS_IR_WSDIALECT_TD
#define FMHA_DIALECT_WS_IR_WSDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def WS_Dialect : Dialect {
  let name = "ws";
  let cppNamespace = "::mlir::ws";
  let summary = "Warp specialization: roles, channels and barriers, who computes concurrently.";
  let description = [{
    Warp specialization: roles, channels and barriers, who computes concurrently.
  }];
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

class WS_Op<string mnemonic, list<Trait> traits = []>
    : Op<WS_Dialect, mnemonic, traits>;
class WS_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<WS_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}
class WS_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<WS_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FMHA_DIALECT_WS_IR_WSDIALECT_TD
