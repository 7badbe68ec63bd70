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

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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

//===----------------------------------------------------------------------===//
// Token-level mutations
//===----------------------------------------------------------------------===//

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {
/// A token of the MLIR text: an identifier-like run with its sigil (`%x`,
/// `@f`, `!ch`, `#acc`, `ws.role`, `128`, `x64xbf16`) or one other byte.
struct Token {
  size_t begin, end;
};
} // namespace

static bool isWordByte(uint8_t c) {
  return std::isalnum(c) || c == '_' || c == '.' || c == '$' || c == '-';
}

static std::vector<Token> tokenize(const std::string &text) {
  std::vector<Token> tokens;
  for (size_t i = 0; i < text.size();) {
    uint8_t c = text[i];
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (isWordByte(c) || std::strchr("%@!#^", c))
      while (j < text.size() && isWordByte(text[j]))
        ++j;
    tokens.push_back({i, j});
    i = j;
  }
  return tokens;
}

/// Edits that keep the text closer to valid IR than byte flips do: a token
/// replaced by another token of the same kind from the input (an SSA value
/// by another, a keyword by another), two tokens swapped, a number moved to
/// an edge value, a line deleted or duplicated. Half of the time, libFuzzer's
/// own mutations instead.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::minstd_rand rng(seed);
  if (size < 2 || rng() % 2)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<char *>(data + 1), size - 1);
  std::vector<Token> tokens = tokenize(text);
  if (tokens.size() < 2)
    return LLVMFuzzerMutate(data, size, maxSize);
  auto str = [&](const Token &t) {
    return text.substr(t.begin, t.end - t.begin);
  };
  auto pick = [&]() -> const Token & { return tokens[rng() % tokens.size()]; };
  static const char *const kNumbers[] = {"0",
                                         "1",
                                         "-1",
                                         "2",
                                         "3",
                                         "31",
                                         "32",
                                         "64",
                                         "127",
                                         "128",
                                         "255",
                                         "256",
                                         "4096",
                                         "65536",
                                         "232448",
                                         "2147483647",
                                         "-2147483648",
                                         "4294967296",
                                         "9223372036854775807"};
  switch (rng() % 6) {
  case 0: { // a token of the same kind
    const Token &t = pick();
    std::vector<const Token *> same;
    for (const Token &u : tokens)
      if (text[u.begin] == text[t.begin] ||
          (std::isalpha(uint8_t(text[u.begin])) &&
           std::isalpha(uint8_t(text[t.begin]))))
        same.push_back(&u);
    text.replace(t.begin, t.end - t.begin, str(*same[rng() % same.size()]));
    break;
  }
  case 1: { // swap two tokens
    Token a = pick(), b = pick();
    if (a.begin > b.begin)
      std::swap(a, b);
    if (a.begin == b.begin)
      break;
    std::string sa = str(a), sb = str(b);
    text.replace(b.begin, b.end - b.begin, sa);
    text.replace(a.begin, a.end - a.begin, sb);
    break;
  }
  case 2: { // a number to an edge value
    std::vector<const Token *> numbers;
    for (const Token &u : tokens)
      if (std::isdigit(uint8_t(text[u.begin])))
        numbers.push_back(&u);
    if (numbers.empty())
      break;
    const Token &t = *numbers[rng() % numbers.size()];
    text.replace(t.begin, t.end - t.begin,
                 kNumbers[rng() % std::size(kNumbers)]);
    break;
  }
  case 3: { // delete a token
    const Token &t = pick();
    text.erase(t.begin, t.end - t.begin);
    break;
  }
  default: { // delete or duplicate a line
    size_t at = pick().begin;
    size_t begin = text.rfind('\n', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string line = text.substr(begin, end - begin);
    if (rng() % 2) {
      text.erase(begin, end - begin);
    } else {
      size_t to = text.rfind('\n', pick().begin);
      text.insert(to == std::string::npos ? 0 : to + 1, line);
    }
    break;
  }
  }
  if (text.size() + 1 > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data + 1, text.data(), text.size());
  return text.size() + 1;
}

//===----------------------------------------------------------------------===//
// The target
//===----------------------------------------------------------------------===//

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
