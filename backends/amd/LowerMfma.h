//===- LowerMfma.h - dots on AMD's matrix cores ---------------------------===//

#ifndef TESSERA_BACKENDS_AMD_LOWERMFMA_H
#define TESSERA_BACKENDS_AMD_LOWERMFMA_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace mlir::tile {

struct LoweringState;

/// Lowers tile.dot in `#tile_amd.mfma` layouts to MFMA intrinsics.
void populateAmdDotPatterns(TypeConverter &converter,
                            RewritePatternSet &patterns, LoweringState &state);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_LOWERMFMA_H
