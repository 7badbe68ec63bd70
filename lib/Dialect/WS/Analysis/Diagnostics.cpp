//===- Diagnostics.cpp - How the ws checkers report -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/Analysis/Diagnostics.h"

using namespace mlir;
using namespace mlir::ws;

std::string ws::describeLoc(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (Twine(file.getLine()) + ":" + Twine(file.getColumn())).str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::string ws::plural(int64_t n, StringRef word) {
  return (Twine(n) + " " + word + (n == 1 ? "" : "s")).str();
}

std::string ws::ordinal(int64_t n) {
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1)
      suffix = "st";
    else if (n % 10 == 2)
      suffix = "nd";
    else if (n % 10 == 3)
      suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string ws::describeRole(RoleOp role, std::optional<unsigned> cta) {
  std::string text = ("role '" + role.getRoleName() + "'").str();
  if (cta)
    text += " of CTA " + std::to_string(*cta);
  return text;
}

std::string ws::describeOp(Operation *op) {
  return ("'" + op->getName().getStringRef() + "' at " +
          describeLoc(op->getLoc()))
      .str();
}
