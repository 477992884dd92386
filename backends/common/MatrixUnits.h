//===- MatrixUnits.h - what the backends' matrix-unit stages share --------===//
//
// Helpers of the passes that give tile.dot a backend's matrix-unit layouts
// (tile-nvidia-assign-mma, tile-amd-assign-mfma).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_COMMON_MATRIXUNITS_H
#define TESSERA_BACKENDS_COMMON_MATRIXUNITS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::tile {

class DotOp;

/// `value` as a tensor of `element` in `layout`: widened or narrowed, then
/// converted where its layout is another.
Value castAndConvert(OpBuilder &b, Location loc, Value value, Type element,
                     Attribute layout);

/// Gives `dot` a matrix unit's layouts: its operands converted to
/// `aElement` in `aLayout` and `bElement` in `bLayout`, its accumulator to
/// `accumulator` in `result`; its users get the result back in its element
/// type and layout.
void setDotLayouts(DotOp dot, Type aElement, Attribute aLayout, Type bElement,
                   Attribute bLayout, Type accumulator, Attribute result);

/// How `numWarps` warps tile a dot of `shape` (rank 2 or 3; a batch
/// dimension takes warps first) in tiles of `tileM` x `tileN`: the warps
/// go where more tiles are left per warp (counting tileM x tileM tiles),
/// while there are tiles for them, then along M (holding copies). All go
/// along M for `chained` dots, whose result is the next one's A.
SmallVector<unsigned> warpsForTiles(ArrayRef<int64_t> shape, unsigned numWarps,
                                    bool chained, int64_t tileM, int64_t tileN);

/// Whether `type` is one of the fp8 formats the matrix units know: the OCP
/// ones (e4m3, e5m2) and AMD's FNUZ ones.
bool isFloat8(Type type);

/// Whether `value` is computed from the result of a dot: an op `isDot`
/// accepts (a backend's stage may have made some dots its own ops).
bool comesFromDot(Value value, llvm::function_ref<bool(Operation *)> isDot);

/// Whether `dot`'s result reaches another dot's operand, or an operand of
/// `dot` comes from a dot (`isDot`, as above): a chain, as in attention.
bool isChained(DotOp dot, llvm::function_ref<bool(Operation *)> isDot);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_MATRIXUNITS_H
