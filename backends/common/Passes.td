//===- Passes.td - passes shared by the GPU backends --------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_COMMON_PASSES_TD
#define TESSERA_BACKENDS_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayoutsPass : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tensor a layout, coalescing memory accesses";
  let description = [{
    Gives every tensor of the module a distributed layout for `num-warps`
    warps of `warp-size` lanes (taken from the module's `tile.num_warps` and
    `tile.warp_size` when set there, and recorded on it; 32 or 64 lanes, and
    a power of two of warps making at most 1024 threads, else an error):

    - loads, stores and atomics get a blocked layout coalesced from the axis
      analysis: the most contiguous dimension fastest, 16-byte vectors where
      contiguity and alignment allow;
    - elementwise ops take the layout of their first tensor operand, splats,
      ranges and constants a default blocked layout;
    - a reduction's results are slices of its operand's layout, an
      expand_dims' operand a slice of its result's, a dot's operands
      dot_operand layouts of its result's;
    - values carried by loops and produced by branches keep one layout.

    Where an operand is not in the layout its op needs, a
    `tile.convert_layout` is inserted; canonicalisation removes those of
    splats and constants.

    A module of the explicit level (`tile.explicit_layouts`) keeps its
    layouts. Only its tensors in `#tile.coalesced` get one: the blocked
    layout that coalesces the load, store, atomic or async copy they reach
    (seeding all of its operands), and the layouts that follow through the
    ops between (a slice back through expand_dims, and so on). Two accesses
    wanting two layouts of one value, a coalesced value no access reaches,
    and layouts made for other warps are errors.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "warps per block (when the module does not say)">,
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "lanes per warp (when the module does not say)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileRemoveConversionsPass
    : Pass<"tile-remove-conversions", "::mlir::ModuleOp"> {
  let summary = "move layout conversions to where they cost least";
  let description = [{
    What tile-assign-layouts does after giving layouts, for passes that
    change layouts later (a backend's matrix-unit stage): a
    `tile.convert_layout` of an elementwise op, a broadcast or an
    expand_dims becomes the op on converted operands, so converts climb to
    the values that really need moving and vanish at splats, ranges and
    constants; a reduction to scalars reads its operand before the convert;
    converts move the other way past a narrowing cast, and past a reshape,
    transpose or split of a matrix unit's result, which keeps its registers
    in the linear layout they make; and a tensor carried by a loop moves to
    the layout its update is
    computed in, so that the loop converts once before and after it rather
    than every iteration.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAllocateSharedMemoryPass
    : Pass<"tile-allocate-shared-memory", "::mlir::ModuleOp"> {
  let summary = "place shared-memory buffers by liveness";
  let description = [{
    Gives each `tile.local_alloc` a byte offset (`tile.buffer_offset`): a
    buffer lives from its allocation to its last use, through the views made
    of it (a use inside a loop keeps it alive for the whole loop), or to its
    `tile.local_dealloc`, and buffers whose lives overlap get disjoint,
    128-byte aligned bytes. The scratch that the lowering of an op needs
    (layout conversions, reductions) starts after the buffers live across
    the op. The lowering to the LLVM dialect runs this itself.
  }];
}

def TileFmaDotsPass : Pass<"tile-fma-dots", "::mlir::ModuleOp"> {
  let summary = "dots on the CUDA cores read their operands a K step at a time";
  let description = [{
    For each 2-D or batched (3-D) `tile.dot` whose operands are converted
    into `dot_operand` layouts of a blocked parent (a dot no matrix unit
    took: multiply-adds in each thread, on whole rows of A and columns of
    B), where both operands fit in `shared-bytes` of shared memory
    together: A goes to a buffer of its own with its rows contiguous, B to
    one with its columns contiguous (`tile.local_alloc`, no swizzle), and
    the dot becomes K dots
    of one step each, in order, each on `tile.local_load`s of that step's
    column of A and row of B (`tile.memdesc_subslice`). The operands are
    then read next to the products that use them, a thread's rows of A and
    columns of B as vectors, rather than all held in registers before the
    first product.
  }];
  let options = [
    Option<"sharedBytes", "shared-bytes", "int64_t", /*default=*/"65536",
           "the shared memory a block may use (the target's)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePipelinePass : Pass<"tile-pipeline", "::mlir::ModuleOp"> {
  let summary = "software-pipeline loops that feed dots, with async copies";
  let description = [{
    For each innermost `scf.for` that writes no global memory (a load issued
    ahead must not pass a store) and whose loads feed dot operands (a
    `tile.load` converted to a `dot_operand` layout, or stored to shared
    memory by `tile.local_alloc` for a dot that reads it there, directly or
    through a `tile.trans`, which becomes a `tile.memdesc_trans` of the
    buffer), with `S` stages (the loop's `tile.num_stages`, else
    `num-stages`; 2 or more):

    - each such load becomes a `tile.async_copy_global_to_local` into one of
      `S` buffers of a `tile.local_alloc` before the loop (masked elements
      read as zeros, or as `other`), and its convert a `tile.local_load`
      of that buffer; a `tile.local_alloc` of it becomes the buffer itself,
      of the alloc's layout, with `S + 1` buffers where the reader
      accumulates over the loop (a dot reading shared memory in place, as an
      asynchronous wgmma does, may still read the previous iteration's
      buffer while this one's copies are issued), else `S`;
    - the copies of an iteration form one group (`tile.async_commit_group`)
      and run `S - 1` iterations ahead: they, and the address and mask
      computations they need, are stage 0, everything else stage `S - 1`;
    - a `tile.async_wait {num = S - 2}` before the iteration's reads waits
      for its group; it synchronises the block, so the copies issued after
      it may overwrite the buffer the previous iteration read;
    - the copies come right after the wait, or after the iteration's dots
      where each warp's share of those is 2^18 multiply-adds or more (long
      iterations hide the copies' latency with one fewer, and their dots
      start at the barrier).

    Loops are expanded by MLIR's `scf::pipelineForLoop` with a prologue of
    `S - 1` iterations' copies and no epilogue: copies past the end of the
    loop are masked off, so every iteration commits one group and the wait
    count holds throughout, for any trip count. After the loop a
    `tile.async_wait {num = 0}` drains them (masked copies still write
    zeros) before the buffers are freed.

    A backend that copies descriptor blocks in bulk runs this with its
    BulkCopies (backends/common/Passes.h; tile-nvidia-pipeline): the marked
    descriptor loads stored to shared memory become its copies into those
    buffers, tracked per buffer and waited for in place of the commit
    groups.

    A loop marked `tile.warp_specialize` (`tl.range(...,
    warp_specialize=True)`) in a kernel's body, whose operand loads are all
    such copies, is specialized instead of expanded: the kernel becomes a
    `tile.warp_specialize` whose default region is the kernel as it was and
    whose one partition (a warpgroup) runs a copy of the loop with only
    what the copies need (scalars computed without side effects, else the
    loop is expanded as above). `S` buffers per operand, and per buffer a
    barrier for its copies and one its readers arrive on: the partition
    waits for a buffer to be free, then copies into it; the default
    region's loop waits for the copies, reads the buffers in place, and
    frees the previous iteration's after its last read (the next
    iteration's dots start after the wait for the previous ones).

    With `async-copies=false` (a target without asynchronous copies to
    shared memory: AMD's), each such load stays a `tile.load`, issued
    `S - 1` iterations ahead into registers (stage 0, with what it needs),
    and its tile is `tile.local_store`d last in the iteration before the one
    reading it (stage `S - 2`), after that iteration's dots, as upstream
    Triton's AMD stream pipeliner does: one buffer per operand at 2 stages,
    two deeper. The buffers take the swizzle the conversion planner picks
    for the trip from the load's layout to the dot operand's. A
    `tile.barrier` after the loop waits for the last stores.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", /*default=*/"3",
           "stages of loops that do not say (tile.num_stages)">,
    Option<"asyncCopies", "async-copies", "bool", /*default=*/"true",
           "whether the target copies to shared memory asynchronously; "
           "without, loads are prefetched into registers">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TESSERA_BACKENDS_COMMON_PASSES_TD
