//===- fmha-opt.cpp - fmha's optimizer driver ----------------------------===//
//
// Part of fmha. Like mlir-opt, with fmha's dialects and passes plus the
// upstream dialects and passes of the NVVM-to-PTX tail.
//
//===----------------------------------------------------------------------===//

#include "fmha/InitAllDialects.h"
#include "fmha/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "fmha version " FMHA_VERSION_STRING "\n"
       << "  built against LLVM/MLIR " LLVM_VERSION_STRING "\n";
  });
  mlir::DialectRegistry registry;
  mlir::fmha::registerAllFMHADialects(registry);
  mlir::fmha::registerAllFMHAPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fmha optimizer driver\n", registry));
}
