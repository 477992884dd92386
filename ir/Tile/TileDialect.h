//===- TileDialect.h - the tile dialect, its types and enums ------------===//

#ifndef TESSERA_IR_TILE_TILEDIALECT_H
#define TESSERA_IR_TILE_TILEDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"

#include "ir/Layout/LayoutAttrs.h"

#include "ir/Tile/TileDialect.h.inc"
#include "ir/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ir/Tile/TileTypes.h.inc"

namespace mlir::tile {

/// On an scf.for: how many stages the software pipeliner gives it (Triton's
/// `tl.range(..., num_stages=n)`); 1 leaves it as it is.
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";

/// The dimensions a shared-memory layout lays out (the last ones of a
/// buffer; those before stack whole tiles).
unsigned getSharedLayoutRank(Attribute encoding);

/// The pointee of a pointer, shaped like `type`: `!tile.ptr<f32>` gives f32
/// and `tensor<4x!tile.ptr<f32>>` gives `tensor<4xf32>`. Null for non-pointers.
Type getPointeeType(Type type);

/// An i1 type of the shape of `type` (i1 for a scalar).
Type getI1SameShape(Type type);

/// `elementType` with the shape and layout encoding of `like` (a scalar when
/// `like` is one).
Type getSameShapeAs(Type like, Type elementType);

namespace OpTrait {
/// Checks that every ranked tensor operand and result has power-of-two
/// dimensions, as the tile programming model requires.
LogicalResult verifyPowerOfTwoShapes(Operation *op);

template <typename ConcreteType>
class PowerOfTwoShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, PowerOfTwoShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyPowerOfTwoShapes(op);
  }
};
} // namespace OpTrait

} // namespace mlir::tile

#endif // TESSERA_IR_TILE_TILEDIALECT_H
