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
class WarpSpecializeOp;

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
  /// Before a loop: what tracks the copies into `count` buffers. Each
  /// entry's round completes with the copies (and `arrivals` arrive calls,
  /// the copy() counting as one).
  virtual Value track(OpBuilder &b, Location loc, unsigned count,
                      unsigned arrivals = 1) const = 0;
  /// The copies of one iteration: `loads`' blocks into `views`, tracked by
  /// entry `slot` (i32) of `tracker`; the ops made go to `made`. Unless
  /// `readersDone` (the caller made sure of it), they first wait for every
  /// warpgroup to be done with the buffers.
  virtual void copy(OpBuilder &b, Location loc, Value tracker, Value slot,
                    ArrayRef<DescriptorLoadOp> loads, ArrayRef<Value> views,
                    SmallVectorImpl<Operation *> &made,
                    bool readersDone = false) const = 0;
  /// Waits for the copies tracked by entry `slot` for the `round`-th time
  /// (i32, from 0): until the entry's round `round` completes.
  virtual void wait(OpBuilder &b, Location loc, Value tracker, Value slot,
                    Value round) const = 0;
  /// Every thread where `pred` (i1) holds arrives once on entry `slot`.
  virtual void arrive(OpBuilder &b, Location loc, Value tracker, Value slot,
                      Value pred) const = 0;
  /// The registers per thread each region of `op` (a loop's copies
  /// specialized, on top of `numWarps` warps) keeps, where the target
  /// moves them between warps.
  virtual void setRegisters(WarpSpecializeOp op, unsigned numWarps) const;
  /// After the loop, once every copy is waited for.
  virtual void release(OpBuilder &b, Location loc, Value tracker) const = 0;
  /// Makes `op` (one copy() made) do nothing where `pred` (i1) is false;
  /// false where it cannot.
  virtual bool predicate(RewriterBase &rewriter, Operation *op,
                         Value pred) const = 0;
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
  /// The backend's bulk copies for the pipeliner (null: none).
  const BulkCopies *bulkCopies = nullptr;
  /// The most shared memory a block may use on the target.
  int64_t sharedBytes = 64 * 1024;
  /// Whether the target copies global to shared memory asynchronously;
  /// without, the pipeliner prefetches into registers.
  bool asyncCopies = true;
  /// Whether tile-fma-dots splits the dots no matrix unit took into K
  /// steps through shared memory; a target that lowers them its own way
  /// (populateDotPatterns) may keep them whole.
  bool fmaDots = true;
  llvm::function_ref<void(OpPassManager &)> addLatePasses;
};

/// Runs `stage` on `module`: the bulk-copy selection, tile-lower-descriptors
/// and tile-assign-layouts; then the matrix-unit passes and
/// tile-remove-conversions after them; then canonicalize, cse and
/// loop-invariant code motion; then, where `numStages` is not 0,
/// tile-pipeline with that default depth (loops that feed dots get async
/// copies into that many buffers; a loop's own tile.num_stages wins); then
/// tile-fma-dots (where `fmaDots`); last the late passes. A module of the
/// explicit level (kExplicitLayoutsAttr) keeps its layouts: tile-assign-layouts
/// resolves its CoalescedLayouts and checks them all against the warps, and
/// only canonicalize, cse, tile-fma-dots and the late passes run.
LogicalResult runLayoutStage(ModuleOp module, const LayoutStage &stage);

/// tile-pipeline's work on `module`, copying descriptor blocks with `bulk`
/// (null: none are); `asyncCopies` as LayoutStage's.
LogicalResult pipelineLoops(ModuleOp module, unsigned numStages,
                            const BulkCopies *bulk, bool asyncCopies = true);

/// A pass running pipelineLoops (tile-pipeline, with a backend's copies).
std::unique_ptr<Pass> createPipelinePass(unsigned numStages,
                                         const BulkCopies *bulk,
                                         bool asyncCopies);

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_PASSES_H
