//===- AttentionChecks.h - Checks shared by the attention ops ---*- C++ -*-===//
//
// Part of fmha. The signature and softmax rules that fmha.attention and
// fmha.attention_backward share: element types, the sizes of the dense
// layout, the head dim, the GQA ratio, the mask and the softmax scale.
// Each emits one diagnostic that names the rule and the numbers.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_FMHA_IR_ATTENTIONCHECKS_H
#define LIB_DIALECT_FMHA_IR_ATTENTIONCHECKS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace fmha {
namespace checks {

/// Dimension names of attention's dense tensors: q, o, do and dq; k and v;
/// lse.
inline constexpr StringRef kAttentionQDims[] = {"batch", "heads_q", "seq_q",
                                                "head_dim"};
inline constexpr StringRef kAttentionKVDims[] = {"batch", "heads_kv", "seq_k",
                                                 "head_dim"};
inline constexpr StringRef kAttentionLseDims[] = {"batch", "heads_q",
                                                  "seq_q"};
/// The same in the varlen layout, and the cu_seqlens.
inline constexpr StringRef kVarlenQDims[] = {"total_q", "heads_q", "head_dim"};
inline constexpr StringRef kVarlenKVDims[] = {"total_k", "heads_kv",
                                              "head_dim"};
inline constexpr StringRef kVarlenLseDims[] = {"heads_q", "total_q"};
inline constexpr StringRef kCuSeqlensDims[] = {"batch + 1"};

/// The softmax scale: `scale` when given, else 1 / sqrt(head_dim) (1 while
/// the head dim is unknown or invalid).
double getAttentionScale(FloatAttr scale, int64_t headDim);

/// How many keys before the diagonal a query sees, from the `window`
/// attribute's [left, right]; std::nullopt when unbounded.
std::optional<int64_t> getLeftWindow(std::optional<ArrayRef<int64_t>> window);
/// How many keys after the diagonal a query sees: 0 when `causal`, else
/// the window's right; std::nullopt when unbounded.
std::optional<int64_t> getRightWindow(bool causal,
                                      std::optional<ArrayRef<int64_t>> window);

/// A tensor of an attention signature, by the name the diagnostics use.
struct AttentionTensor {
  StringRef name;
  RankedTensorType type;
};

/// Checks that q's element type is a supported MMA input type and that
/// every tensor of `sameAsQ` has it too, and that `lse` (when given) is
/// f32.
LogicalResult verifyAttentionElementTypes(Operation *op, RankedTensorType q,
                                          ArrayRef<AttentionTensor> sameAsQ,
                                          RankedTensorType lse);

/// Checks the sizes of the dense layout ([batch, heads, seq, head_dim]):
/// k against q (batch, head dim), each of `likeK` against k, each of
/// `likeQ` against q, and `lse` (when given) against q's first three.
LogicalResult verifyDenseAttentionSizes(Operation *op, RankedTensorType q,
                                        RankedTensorType k,
                                        ArrayRef<AttentionTensor> likeQ,
                                        ArrayRef<AttentionTensor> likeK,
                                        RankedTensorType lse);

/// Checks the sizes of the varlen layout ([total, heads, head_dim]): k
/// against q (head dim), each of `likeK` against k, each of `likeQ`
/// against q, and `lse` (when given, [heads_q, total_q]) against q.
LogicalResult verifyVarlenAttentionSizes(Operation *op, RankedTensorType q,
                                         RankedTensorType k,
                                         ArrayRef<AttentionTensor> likeQ,
                                         ArrayRef<AttentionTensor> likeK,
                                         RankedTensorType lse);

/// Checks the cu_seqlens of a varlen kernel: i32, as many entries in both,
/// at least 2 (one sequence) where static.
LogicalResult verifyCuSeqlens(Operation *op, RankedTensorType cuQ,
                              RankedTensorType cuK);

/// Checks that the head dim is static (`tensors` names the tensors that
/// carry it) and one of `supported`; `why` (when not empty) follows the
/// list in the message.
LogicalResult verifyAttentionHeadDim(Operation *op, int64_t headDim,
                                     ArrayRef<int64_t> supported,
                                     StringRef tensors, StringRef why = {});

/// Checks that the query heads split evenly over the K/V heads where both
/// are static.
LogicalResult verifyGqaRatio(Operation *op, int64_t headsQ, int64_t headsKV);

/// Checks the mask (`window` sizes, and right 0 with `causal`) and the
/// softmax scale (positive, finite, scale * log2(e) a normal f32).
LogicalResult verifySoftmax(Operation *op, bool causal,
                            std::optional<ArrayRef<int64_t>> window,
                            FloatAttr scale);

} // namespace checks
} // namespace fmha
} // namespace mlir

#endif // LIB_DIALECT_FMHA_IR_ATTENTIONCHECKS_H
