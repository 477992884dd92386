//===- LowerMatrixCores.h - dots on AMD's matrix cores -------------------===//

#ifndef TESSERA_BACKENDS_AMD_LOWERMATRIXCORES_H
#define TESSERA_BACKENDS_AMD_LOWERMATRIXCORES_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace mlir::tile {

struct LoweringState;

/// Lowers tile.dot in `#tile_amd.mfma` and `#tile_amd.wmma` layouts to
/// MFMA and WMMA intrinsics.
void populateAmdDotPatterns(TypeConverter &converter,
                            RewritePatternSet &patterns, LoweringState &state);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_LOWERMATRIXCORES_H
