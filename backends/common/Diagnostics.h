//===- Diagnostics.h - an MLIR context's diagnostics as text --------------===//

#ifndef TESSERA_BACKENDS_COMMON_DIAGNOSTICS_H
#define TESSERA_BACKENDS_COMMON_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>

namespace mlir::tile {

/// Collects every diagnostic of `context` (location, message, then its
/// notes, a line each) while it lives, for errors that carry them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          collect(diag);
          return success();
        }) {}

  const std::string &text() const { return messages; }

private:
  void collect(Diagnostic &diag);

  std::string messages;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_DIAGNOSTICS_H
