//===- Passes.h - passes shared by the GPU backends -----------------------===//

#ifndef TESSERA_BACKENDS_COMMON_PASSES_H
#define TESSERA_BACKENDS_COMMON_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "backends/common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/common/Passes.h.inc"

class DescriptorLoadOp;

/// How a target copies blocks of tensor descriptors into shared memory
/// asynchronously (Hopper's TMA, counted on transaction barriers), for
/// tile-pipeline: the descriptor loads marked kBulkCopyAttr whose blocks are
/// stored to shared memory become such copies into rotating buffers.
class BulkCopies {
public:
  virtual ~BulkCopies();
  /// Whether `load`'s block can be copied into a buffer of `encoding` (a
  /// shared layout of the block as loaded).
  virtual bool canCopy(DescriptorLoadOp load, Attribute encoding) const = 0;
  /// Before a loop: what tracks the copies into `count` buffers.
  virtual Value track(OpBuilder &b, Location loc, unsigned count) const = 0;
  /// The copies of one iteration: `loads`' blocks into `views`, tracked by
  /// entry `slot` (i32) of `tracker`; the ops made go to `made`.
  virtual void copy(OpBuilder &b, Location loc, Value tracker, Value slot,
                    ArrayRef<DescriptorLoadOp> loads, ArrayRef<Value> views,
                    SmallVectorImpl<Operation *> &made) const = 0;
  /// Waits for the copies tracked by entry `slot` for the `round`-th time
  /// (i32, from 0).
  virtual void wait(OpBuilder &b, Location loc, Value tracker, Value slot,
                    Value round) const = 0;
  /// After the loop, once every copy is waited for.
  virtual void release(OpBuilder &b, Location loc, Value tracker) const = 0;
  /// Makes `op` (one copy() or wait() made) do nothing where `pred` (i1)
  /// is false: returns what replaces it (itself, changed or not), null
  /// where it cannot.
  virtual Operation *predicate(RewriterBase &rewriter, Operation *op,
                               Value pred) const = 0;
};

/// What tile-pipeline uses of a target.
struct PipelineTarget {
  /// The target's bulk copies (null: none).
  const BulkCopies *bulk = nullptr;
  /// Whether `op` is a dot the target starts asynchronously, reading its
  /// shared-memory operands in place until it is waited for (Hopper's
  /// wgmma; null: none is). A loop with such a dot whose result feeds
  /// another dot (attention's q kᵀ) starts it an iteration ahead.
  bool (*isAsyncDot)(Operation *op) = nullptr;
};

/// The layout stage every backend runs, with the backend's parts.
struct LayoutStage {
  unsigned numWarps = 4, warpSize = 32;
  /// Run first: marks the descriptor loads the backend copies in bulk.
  llvm::function_ref<void(OpPassManager &)> addBulkCopySelection;
  /// Give dots the layouts of the backend's matrix units.
  llvm::function_ref<void(OpPassManager &)> addMatrixUnitPasses;
  /// The default pipelining depth; 0 for a backend that does not pipeline.
  unsigned numStages = 0;
  /// What the pipeliner uses of the backend.
  PipelineTarget pipeline;
  llvm::function_ref<void(OpPassManager &)> addLatePasses;
};

/// Runs `stage` on `module`: the bulk-copy selection, tile-lower-descriptors
/// and tile-assign-layouts; then the matrix-unit passes and
/// tile-remove-conversions after them; then canonicalize, cse and
/// loop-invariant code motion; then, where `numStages` is not 0,
/// tile-pipeline with that default depth (loops that feed dots get async
/// copies into that many buffers; a loop's own tile.num_stages wins); last
/// the late passes.
LogicalResult runLayoutStage(ModuleOp module, const LayoutStage &stage);

/// tile-pipeline's work on `module`, for `target`.
LogicalResult pipelineLoops(ModuleOp module, unsigned numStages,
                            const PipelineTarget &target);

/// A pass running pipelineLoops (tile-pipeline, for a backend).
std::unique_ptr<Pass> createPipelinePass(unsigned numStages,
                                         const PipelineTarget &target);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_PASSES_H
