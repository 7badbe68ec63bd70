//===- fmha-fuzz.cpp - libFuzzer target for fmha-opt ---------------------===//
//
// Part of fmha. Feeds one input through what fmha-opt does with it: the
// first byte picks a pass pipeline from pipelines.def, the rest is parsed as
// MLIR with fmha's dialects registered and verified; if it verifies, the
// pipeline runs (verifying after each pass) and the result is printed to a
// null stream. Errors are expected and dropped; a crash, an ASan report or an
// input that runs past libFuzzer's -timeout is a bug. Nothing is caught.
//
// FMHA_FUZZ_VERBOSE=1 in the environment prints the pipeline and the
// diagnostics of each input, so that a crashing input can be replayed with
// fmha-opt (docs/Development.md, "Fuzzing").
//
//===----------------------------------------------------------------------===//

#include "fmha/InitAllDialects.h"
#include "fmha/InitAllPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

static const char *const kPipelines[] = {
#define FMHA_FUZZ_PIPELINE(text) text,
#include "pipelines.def"
#undef FMHA_FUZZ_PIPELINE
};

/// LLVM's BumpPtrAllocator poisons new slabs and unpoisons what it hands out
/// when it is compiled with ASan, as the allocator code inlined into fmha's
/// instrumented code is, but not in the uninstrumented libMLIR.so: memory
/// that libMLIR allocates from a slab that fmha's code started then reads
/// as poisoned. Ignoring manual poisoning drops these false reports.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static DialectRegistry *registry;
static bool verbose;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  registry = new DialectRegistry();
  fmha::registerAllFMHADialects(*registry);
  fmha::registerAllFMHAPasses();
  const char *env = std::getenv("FMHA_FUZZ_VERBOSE");
  verbose = env && *env && *env != '0';
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *pipeline = kPipelines[data[0] % std::size(kPipelines)];
  // MLIR's lexer expects the NUL that fmha-opt's file buffers end with.
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  if (verbose)
    llvm::errs() << "fmha-fuzz: --pass-pipeline='" << pipeline << "'\n";

  // A fresh context per input: nothing carries over from one to the next.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  std::optional<ScopedDiagnosticHandler> quiet;
  if (!verbose)
    quiet.emplace(&context, [](Diagnostic &) { return success(); });

  // Parses and verifies, as fmha-opt does.
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context));
  if (!module)
    return 0;
  llvm::raw_null_ostream null;
  module->print(null);

  // What `fmha-opt --pass-pipeline=...` runs, verifying after each pass.
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline);
  if (failed(parsed)) {
    llvm::errs() << "fmha-fuzz: bad pipeline in pipelines.def: " << pipeline
                 << "\n";
    std::abort();
  }
  PassManager pm(&context, ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    return 0;
  module->print(null);
  return 0;
}
