//===- Stages.h - the backend stages, on IR text --------------------------===//
//
// Entry points for drivers that hold IR as text (the Python bindings, which
// see no MLIR headers).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_COMMON_STAGES_H
#define TESSERA_BACKENDS_COMMON_STAGES_H

#include <stdexcept>
#include <string>

namespace mlir::tile {

/// A failure of a backend stage, with its diagnostics.
class StageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A kernel that needs more of a resource (shared memory) than a block has
/// on the target.
class OutOfResourcesError : public StageError {
public:
  using StageError::StageError;
};

/// `tileIR` (after the target-independent pipeline) with every tensor given
/// a layout for `numWarps` warps of `warpSize` lanes: the "tile-layout"
/// stage. Throws StageError on invalid IR.
std::string assignLayouts(const std::string &tileIR, unsigned numWarps,
                          unsigned warpSize);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_STAGES_H
