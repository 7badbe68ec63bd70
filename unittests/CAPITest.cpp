//===- CAPITest.cpp - Unit tests of fmha's C API ---------------------------===//
//
// Every diagnostic of fmha's C API reaches the caller's callback, never
// stderr: option errors (whose reasons MLIR's option parser prints to
// stderr), verifier errors, and errors of the last pass that upstream
// reports without failing (a toolkit that does not exist).
//
//===----------------------------------------------------------------------===//

#include "fmha-c/FMHA.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include "gtest/gtest.h"

#include <string>

namespace {

constexpr char kGemm[] =
    "fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>\n"
    "    transpose_b target sm_90a\n";

constexpr char kGemmSm100[] =
    "fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>\n"
    "    transpose_b target sm_100a\n";

/// What the callbacks of one compile received.
struct Received {
  std::string object;
  std::string diagnostics;
  int objectCalls = 0;
  int diagnosticCalls = 0;
};

void onObject(MlirStringRef text, void *userData) {
  auto *received = static_cast<Received *>(userData);
  received->object.assign(text.data, text.length);
  ++received->objectCalls;
}

void onDiagnostics(MlirStringRef text, void *userData) {
  auto *received = static_cast<Received *>(userData);
  received->diagnostics.assign(text.data, text.length);
  ++received->diagnosticCalls;
}

/// Compiles `source` with `options`; returns what the callbacks got and,
/// in `stderrText`, what went to stderr meanwhile.
Received compile(const char *source, const char *options, bool &ok,
                 std::string &stderrText) {
  Received received;
  MlirContext context = mlirContextCreate();
  testing::internal::CaptureStderr();
  ok = mlirLogicalResultIsSuccess(fmhaCompile(
      context, mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString(options), onObject, onDiagnostics,
      &received));
  stderrText = testing::internal::GetCapturedStderr();
  mlirContextDestroy(context);
  return received;
}

struct OptionCase {
  const char *options;
  const char *reason;
};

class BadOptions : public testing::TestWithParam<OptionCase> {};

TEST_P(BadOptions, ReachTheCallbackNotStderr) {
  bool ok = true;
  std::string stderrText;
  Received received = compile(kGemm, GetParam().options, ok, stderrText);
  EXPECT_FALSE(ok);
  EXPECT_EQ(received.objectCalls, 0);
  EXPECT_EQ(received.diagnosticCalls, 1);
  EXPECT_NE(received.diagnostics.find(GetParam().reason), std::string::npos)
      << received.diagnostics;
  EXPECT_EQ(stderrText, "");
}

INSTANTIATE_TEST_SUITE_P(
    CAPI, BadOptions,
    testing::Values(
        OptionCase{"binary=elf",
                   "option 'binary' takes none, isa or bin, got 'elf'"},
        OptionCase{"wait-timeout=soon",
                   "option 'wait-timeout' takes a number of microseconds"},
        OptionCase{"replica-roles=maybe",
                   "option 'replica-roles' takes true or false, got 'maybe'"},
        OptionCase{"colour=blue", "no such option colour"},
        OptionCase{"binary=none", "needs binary=isa or binary=bin"}));

TEST(CAPI, VerifierErrorReachesTheCallback) {
  bool ok = true;
  std::string stderrText;
  Received received = compile(
      "fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>\n"
      "    tile [64, 512, 64] target sm_90a\n",
      "", ok, stderrText);
  EXPECT_FALSE(ok);
  EXPECT_NE(received.diagnostics.find("<source>:1:1: error: 'fmha.gemm' op "
                                      "block_n 512"),
            std::string::npos)
      << received.diagnostics;
  EXPECT_EQ(stderrText, "");
}

TEST(CAPI, MissingToolkitFails) {
  // gpu-module-to-binary reports this error but succeeds; the compile used
  // to return the object and drop the error.
  bool ok = true;
  std::string stderrText;
  Received received =
      compile(kGemm, "binary=bin toolkit=/nonexistent", ok, stderrText);
  EXPECT_FALSE(ok);
  EXPECT_EQ(received.objectCalls, 0);
  EXPECT_NE(received.diagnostics.find("/nonexistent"), std::string::npos)
      << received.diagnostics;
  EXPECT_EQ(stderrText, "");
}

TEST(CAPI, CompilesForTheKernelsTarget) {
  bool ok = false;
  std::string stderrText;
  Received received = compile(kGemmSm100, "", ok, stderrText);
  EXPECT_TRUE(ok) << received.diagnostics;
  EXPECT_EQ(received.objectCalls, 1);
  EXPECT_NE(received.object.find(".target sm_100a"), std::string::npos);
  EXPECT_NE(received.object.find("tcgen05.mma"), std::string::npos);
  EXPECT_EQ(stderrText, "");
}

TEST(CAPI, KernelWithoutTargetSaysHowToAttachOne) {
  bool ok = true;
  std::string stderrText;
  Received received = compile(
      "module attributes {gpu.container_module} {\n"
      "  gpu.module @k {\n"
      "    gpu.func @k() kernel {\n"
      "      %ch = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>\n"
      "      gpu.return\n"
      "    }\n"
      "  }\n"
      "}\n",
      "", ok, stderrText);
  EXPECT_FALSE(ok);
  EXPECT_NE(received.diagnostics.find("'gpu.module' op has no target: attach "
                                      "one with --nvvm-attach-target"),
            std::string::npos)
      << received.diagnostics;
  EXPECT_EQ(stderrText, "");
}

TEST(CAPI, BuildPipelineHandsOptionErrorsToTheCallback) {
  MlirContext context = mlirContextCreate();
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  Received received;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(mlirLogicalResultIsFailure(fmhaBuildPipeline(
      opm, mlirStringRefCreateFromCString("sm90"),
      mlirStringRefCreateFromCString("wait-timeout=-1"), onDiagnostics,
      &received)));
  EXPECT_TRUE(mlirLogicalResultIsFailure(fmhaBuildPipeline(
      opm, mlirStringRefCreateFromCString("sm80"),
      mlirStringRefCreateFromCString(""), onDiagnostics, &received)));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(received.diagnostics.find("unknown pipeline target 'sm80'"),
            std::string::npos)
      << received.diagnostics;
  EXPECT_EQ(received.diagnosticCalls, 2);
  // The names the pipeline had per target still give it; empty is the
  // pipeline's own name.
  for (const char *target : {"", "sm90", "sm100"})
    EXPECT_TRUE(mlirLogicalResultIsSuccess(
        fmhaBuildPipeline(opm, mlirStringRefCreateFromCString(target),
                          mlirStringRefCreateFromCString("binary=none"),
                          onDiagnostics, &received)))
        << target;
  EXPECT_EQ(received.diagnosticCalls, 2);
  mlirPassManagerDestroy(pm);
  mlirContextDestroy(context);
}

} // namespace
