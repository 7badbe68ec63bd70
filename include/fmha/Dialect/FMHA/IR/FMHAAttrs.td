#ifndef FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD
#define FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD

include "fmha/Dialect/FMHA/IR/FMHADialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def FMHA_Target : I32EnumAttr<"Target",
    "the NVIDIA GPU architecture a kernel is compiled for", [
      I32EnumAttrCase<"Sm90a", 0, "sm_90a">,
      I32EnumAttrCase<"Sm100a", 1, "sm_100a">
    ]> {
  let cppNamespace = "::mlir::fmha";
  let genSpecializedAttr = 0;
  let description = [{
    The GPU architecture, with its architecture-specific (`a`) features, that
    an fmha kernel targets. It decides which MMA instructions the kernel uses
    and hence which resource limits its configuration must respect:

    * `sm_90a` (Hopper): `wgmma` with fp32 accumulators in registers; a
      consumer warpgroup's accumulators must fit in its register budget.
    * `sm_100a` (Blackwell): `tcgen05.mma` with fp32 accumulators in tensor
      memory (TMEM, 512 columns per SM).

    Both have 232448 bytes (227 KiB) of dynamic shared memory per CTA.

    ```mlir
    fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
        target sm_90a
    ```
  }];
}

def FMHA_TargetAttr : EnumAttr<FMHA_Dialect, FMHA_Target, "target"> {
  let summary = "the NVIDIA GPU architecture a kernel is compiled for";
  let description = [{
    The `Target` enum as an attribute: the bare name (`sm_90a`, `sm_100a`)
    in an op's custom form, `#fmha<target sm_90a>` in the generic form.

    ```mlir
    "fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>)
                        -> tensor<?x?xbf16>,
                    sym_name = "gemm", target = #fmha<target sm_100a>}>
        : () -> ()
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

def FMHA_Schedule : I32EnumAttr<"Schedule",
    "how an attention kernel's CTAs take their query blocks", [
      I32EnumAttrCase<"PerBlock", 0, "per_block">,
      I32EnumAttrCase<"Persistent", 1, "persistent">
    ]> {
  let cppNamespace = "::mlir::fmha";
  let genSpecializedAttr = 0;
  let description = [{
    How the CTAs of an `fmha.attention` kernel are launched and what each
    one computes:

    * `per_block`: a CTA per query block (`consumers * block_m` rows of one
      head); the grid is the number of blocks times heads times batch.
    * `persistent` (`sm_90a` only): at most one CTA per SM, each walking
      work items (a query block, or with masks a pair of blocks, the
      longest with the shortest); the next item's Q and K tiles load while
      the consumers finish the current one.

    ```mlir
    fmha.attention @attn (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                          tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16>
        causal schedule per_block target sm_90a
    ```
  }];
}

def FMHA_ScheduleAttr : EnumAttr<FMHA_Dialect, FMHA_Schedule, "schedule"> {
  let summary = "how an attention kernel's CTAs take their query blocks";
  let description = [{
    The `Schedule` enum as an attribute: the bare name (`per_block`,
    `persistent`) in `fmha.attention`'s custom form,
    `#fmha<schedule persistent>` in the generic form.

    ```mlir
    "fmha.attention"() <{function_type = (tensor<?x?x?x64xbf16>,
                             tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
                             -> tensor<?x?x?x64xbf16>,
                         schedule = #fmha<schedule persistent>,
                         sym_name = "attn", target = #fmha<target sm_90a>}>
        : () -> ()
    ```
  }];
}

//===----------------------------------------------------------------------===//
// GemmSchedule
//===----------------------------------------------------------------------===//

def FMHA_GemmSchedule : I32EnumAttr<"GemmSchedule",
    "how a GEMM kernel's consumer warpgroups share the output tiles", [
      I32EnumAttrCase<"Cooperative", 0, "cooperative">,
      I32EnumAttrCase<"PingPong", 1, "pingpong">
    ]> {
  let cppNamespace = "::mlir::fmha";
  let genSpecializedAttr = 0;
  let description = [{
    How the consumer warpgroups of an `fmha.gemm` kernel divide the work:

    * `cooperative`: the consumers split one CTA tile by rows, each
      computing `block_m` of its `consumers * block_m` rows with the same
      B tile; their main loops run in step, and so do their epilogues.
    * `pingpong` (`sm_90a` only): each consumer computes whole
      `block_m x block_n` tiles of its own, consecutive work items of the
      CTA alternating between the consumers; the producer loads the items'
      A and B tiles in order into one ring (each consumer waits for and
      releases every slot, but reads only its own items'), and the
      consumers' main loops take turns, so one's epilogue (convert and TMA
      store) overlaps the other's MMAs.

    ```mlir
    fmha.gemm @gemm (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
        transpose_b tile [128, 128, 64] stages 5 consumers 2
        schedule pingpong target sm_90a
    ```
  }];
}

def FMHA_GemmScheduleAttr
    : EnumAttr<FMHA_Dialect, FMHA_GemmSchedule, "gemm_schedule"> {
  let summary = "how a GEMM kernel's consumer warpgroups share the output "
                "tiles";
  let description = [{
    The `GemmSchedule` enum as an attribute: the bare name (`cooperative`,
    `pingpong`) in `fmha.gemm`'s custom form,
    `#fmha<gemm_schedule pingpong>` in the generic form.

    ```mlir
    "fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>)
                        -> tensor<?x?xbf16>,
                    schedule = #fmha<gemm_schedule pingpong>,
                    sym_name = "gemm", target = #fmha<target sm_90a>,
                    transpose_b}> : () -> ()
    ```
  }];
}

#endif // FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD
