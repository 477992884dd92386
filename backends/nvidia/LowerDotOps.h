//===- LowerDotOps.h - tile.dot on the tensor cores -----------------------===//

#ifndef TESSERA_BACKENDS_NVIDIA_LOWERDOTOPS_H
#define TESSERA_BACKENDS_NVIDIA_LOWERDOTOPS_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace mlir::tile {

struct LoweringState;

/// Lowers dots in `#tile_nvidia.mma` layouts to `nvvm.mma.sync`.
void populateNvidiaDotPatterns(TypeConverter &converter,
                               RewritePatternSet &patterns,
                               LoweringState &state);

/// Lowers mbarrier and TMA ops to PTX.
void populateNvidiaAsyncPatterns(TypeConverter &converter,
                                 RewritePatternSet &patterns,
                                 LoweringState &state);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_LOWERDOTOPS_H
