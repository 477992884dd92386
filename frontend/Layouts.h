//===- Layouts.h - layouts by their text, for the explicit level ----------===//
//
// What the Python layer asks of a layout outside a kernel (Gluon's
// to_linear_layout and bank_conflicts): layouts are attribute text, as the
// Builder takes them. Errors are FrontendErrors. No MLIR in this header.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_FRONTEND_LAYOUTS_H
#define TESSERA_FRONTEND_LAYOUTS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::frontend {

/// Bases of one input dimension of a linear layout: the tensor coordinates
/// of each of its bits, low bit first.
using DimBases = std::pair<std::string, std::vector<std::vector<int32_t>>>;

/// The linear form of `layout` over a tensor (or buffer) of `shape`: the
/// bases of register, lane, warp and block for a distributed layout, of
/// offset for a shared one.
std::vector<DimBases> linearLayoutBases(const std::string &layout,
                                        const std::vector<int64_t> &shape);

/// Gluon's bank_conflicts: the shared-memory wavefronts a warp's store of a
/// tensor of `shape` in the distributed `layout` into a buffer laid out by
/// `shared` takes beyond the fewest it could (0: conflict-free).
int64_t bankConflicts(const std::string &layout, const std::string &shared,
                      const std::vector<int64_t> &shape,
                      unsigned elementBitWidth);

} // namespace mlir::tile::frontend

#endif // TESSERA_FRONTEND_LAYOUTS_H
