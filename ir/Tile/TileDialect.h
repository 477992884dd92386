//===- TileDialect.h - the tile dialect, its types and enums ------------===//

#ifndef TESSERA_IR_TILE_TILEDIALECT_H
#define TESSERA_IR_TILE_TILEDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/Error.h"

#include "ir/Layout/LayoutAttrs.h"

#include "ir/Tile/TileDialect.h.inc"
#include "ir/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ir/Tile/TileTypes.h.inc"

namespace mlir::tile {

/// On an scf.for: how many stages the software pipeliner gives it (Triton's
/// `tl.range(..., num_stages=n)`); 1 leaves it as it is.
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";

/// On an scf.for: fuse it with the one loop nested in it into a single loop
/// over both (Triton's `tl.range(..., flatten=True)`), so that the
/// pipeliner runs on across the outer iterations (tile-fuse-nested-loops).
/// The fused loop keeps it.
inline constexpr llvm::StringLiteral kFlattenAttr = "tile.flatten";

/// On an scf.for: a partition of warps of its own issues the loop's
/// copies, for the others to wait on (Triton's `tl.range(...,
/// warp_specialize=True)`); see tile-pipeline.
inline constexpr llvm::StringLiteral kWarpSpecializeAttr =
    "tile.warp_specialize";

/// On a module: its kernels' tensors carry the layouts their author gave
/// them (the explicit level, `tessera.experimental.gluon`), which backends
/// keep: they check them against the target and choose none.
inline constexpr llvm::StringLiteral kExplicitLayoutsAttr =
    "tile.explicit_layouts";

/// On a tile.descriptor_load: the target copies the block in bulk itself
/// (Hopper's TMA), so tile-lower-descriptors leaves it.
inline constexpr llvm::StringLiteral kBulkCopyAttr = "tile.bulk_copy";

/// On a kernel argument a backend added: the tensor map (a 128-byte
/// description of a descriptor for bulk copies) the launcher encodes and
/// passes there, as a dictionary: `base`, `shapes`, `strides` (the
/// argument indices holding them, -1 for a constant of `shape_values` /
/// `stride_values`; strides in elements, all but the last, which is 1),
/// `box` (elements per dimension), `dtype` (Triton's name), `swizzle`
/// (bytes: 0, 32, 64, 128), `nan_padding`.
inline constexpr llvm::StringLiteral kTensorMapAttr = "tile.tensor_map";

/// The most elements a tensor holds (Triton's TRITON_MAX_TENSOR_NUMEL):
/// layouts index the elements of a tensor with 32-bit linear maps, and a
/// kernel keeps every element in registers or shared memory.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 20;

/// The most elements one statement of tile.inline_asm takes of each operand.
inline constexpr int32_t kMaxPackedElements = 16;

/// An error naming `shape` unless a tensor of it has at most
/// kMaxTensorElements elements (dimensions below 1 are left to other checks).
llvm::Error verifyTensorSize(ArrayRef<int64_t> shape);

/// Fails, with an error at the op, where a tensor that an op under `root`
/// defines (results and block arguments) is not a tile tensor: static
/// dimensions that are powers of two, at most kMaxTensorElements elements.
/// Ops of the tile dialect verify their own; functions and loops do not.
LogicalResult verifyTileTensors(Operation *root);

/// The dimensions a shared-memory layout lays out (the last ones of a
/// buffer; those before stack whole tiles).
unsigned getSharedLayoutRank(Attribute encoding);

/// The elements one tile of `type`'s allocation (its layout's dimensions)
/// spans in shared memory, the layout's padding included; the dimensions
/// before stack tiles that far apart.
int64_t getTileSpan(MemDescType type);

/// The elements a whole buffer of `type`'s shape spans in shared memory,
/// its layout's padding included.
int64_t getBufferElements(MemDescType type);
/// Those elements' bits.
int64_t getBufferBits(MemDescType type);

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
