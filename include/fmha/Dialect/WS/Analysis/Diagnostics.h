//===- Diagnostics.h - How the ws checkers report -----------------*- C++
//-*-===//
//
// Part of fmha. The one set of helpers through which ws-verify-protocol and
// ws-verify-phases word their messages: places ("12:5"), counts ("2
// slots"), ordinals, roles ("role 'load'", "role 'load' of CTA 1") and the
// ops they point at ("'ws.mbarrier_wait' at 12:5"), so that both checkers
// name things alike.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_ANALYSIS_DIAGNOSTICS_H
#define FMHA_DIALECT_WS_ANALYSIS_DIAGNOSTICS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include <optional>
#include <string>

namespace mlir {
namespace ws {

/// "line:col" of the first file location in `loc`, or the location printed.
std::string describeLoc(Location loc);

/// "1 slot", "2 slots": `n` and `word`, in the plural unless `n` is 1.
std::string plural(int64_t n, StringRef word);

/// "1st", "2nd", "3rd", "4th", ...
std::string ordinal(int64_t n);

/// "role 'load'", or "role 'load' of CTA 1" for the copy of the role that
/// CTA `cta` of a cluster runs.
std::string describeRole(RoleOp role, std::optional<unsigned> cta = {});

/// "'ws.mbarrier_wait' at 12:5": an op by its name and place.
std::string describeOp(Operation *op);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_ANALYSIS_DIAGNOSTICS_H
