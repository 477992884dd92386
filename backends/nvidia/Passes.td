//===- Passes.td - the NVIDIA backend's passes ---------------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_NVIDIA_PASSES_TD
#define TESSERA_BACKENDS_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileNvidiaAssignMmaPass
    : Pass<"tile-nvidia-assign-mma", "::mlir::ModuleOp"> {
  let summary = "compute dots on the tensor cores: mma layouts for tile.dot";
  let description = [{
    The NVIDIA backend's matrix-unit stage. Each `tile.dot` the tensor cores
    can compute gets a `#tile_nvidia.mma` result layout and
    `#tile.dot_operand` layouts of it for its operands (`kWidth` = 32 /
    the operands' bit width), with converts from and to the layouts the
    dot had:

    - f16 and bf16 (m16n8k16), fp32 unless `precision = ieee` (tf32,
      m16n8k8), i8 with an integer accumulator (m16n8k32), fp8 e4m3/e5m2
      (m16n8k32 from sm_89; widened to f16 before);
    - accumulators narrower than the instruction's (f16, i8) are widened
      around the dot;
    - M >= 16, N >= 8 and K at least the instruction's K; other dots (f64,
      tiny shapes) stay on the CUDA cores;
    - warps go along M or N, to the one with more tiles left (ties to M);
      a dot whose result feeds another dot's operand, or whose operand
      comes from another dot (attention), puts them all along M.

    On sm_90a (`compute-capability` 90, unless `wgmma=false`), a dot of M
    a multiple of 64 whose operands wgmma can read becomes a
    `tile_nvidia.warpgroup_dot`: each operand is stored with
    `tile.local_alloc` where it is defined (once, before a loop, for a
    loop-invariant one), in a `#tile.nvmma_shared` layout of the widest
    swizzle its contiguous dimension's bytes allow (K for 8- and 32-bit
    types; 16-bit ones keep the dimension their layout has contiguous); the
    result takes a version-3 mma layout, warpgroups along M while there are
    64 rows for each, then along N, with instructions as wide as a
    warpgroup's share of N (at most 256). fp32 needs `precision = tf32`.
    Chained dots (attention) run on wgmma too unless `wgmma-chained=false`
    (then mma.sync): all their warps go along M and a second dot's A
    computed from the first dot stays in registers (wgmma's register-A
    form). Measured on the H100 (tutorial 06's forward, B=4 H=32 N=4096),
    D64 430 and D128 450 TFLOP/s against mma.sync's 335 and 326.

    Run tile-remove-conversions after it.
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "unsigned",
           /*default=*/"80", "the GPU's compute capability (80 ... 90)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"true",
           "on compute capability 90, compute dots with wgmma (false: mma.sync)">,
    Option<"wgmmaChained", "wgmma-chained", "bool", /*default=*/"true",
           "compute chained dots (attention) with wgmma too">,
  ];
  let dependentDialects = ["::mlir::tile::nvidia::TileNvidiaDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileNvidiaAsyncWarpGroupDotsPass
    : Pass<"tile-nvidia-async-warpgroup-dots", "::mlir::ModuleOp"> {
  let summary = "start the wgmmas of loops asynchronously";
  let description = [{
    First, a loop of two chained warpgroup dots (attention: q kᵀ, then
    p v with p computed from the first's result, into the accumulator the
    loop carries) is split in two stages, where nothing in it but dots and
    barriers touches memory (a warp-specialized loop, whose copies run in
    another partition) and its buffers number at least three: the second
    dot, with the ops computing its accumulator from the carried value,
    the views and broadcasts only they read and the arrives after it, runs
    in the next iteration, right after that one's first dot. The tensor
    cores then compute p v while the warps compute the next softmax
    (FlashAttention-3's overlap within a warpgroup). Under a check that
    the loop runs at all, the first iteration's earlier stage comes before
    the loop and the last one's second dot after it; the values the later
    stage reads of the earlier one (p, the rescale, the buffer's slot) and
    its induction value are carried. Measured on the H100 (B=4 H=32
    N=4096, warp-specialized, 128x128 blocks, 3 stages): D128 536 -> 579
    TFLOP/s, D64 causal 355 -> 394.

    Each `tile_nvidia.warpgroup_dot` directly in an `scf.for` whose
    shared-memory operands are buffers allocated before the loop that
    nothing in it stores to from registers (those tile-pipeline's copies
    fill, or loop invariants) is made asynchronous, and a
    `tile_nvidia.warpgroup_dot_wait` with the number of the loop's dots
    started since (in-order retirement) goes in before its result is first
    read, through which the later reads go. The accumulator of a later
    asynchronous dot is not a read (the hardware chains them). A result
    not read in its iteration is waited for before the `scf.yield`, except
    where the dot accumulates into the value the loop carries and nothing
    else reads it (a matmul's loop): there a wait with `pendings` equal to
    the number of dots goes right after it, retiring the previous
    iteration's and leaving this one in flight (tile-pipeline gives such
    operands a spare buffer). ptxas serializes every wgmma of a kernel
    where a register of one in flight may be read, and does not follow the
    groups round a loop: nothing else crosses the back edge in flight. A
    wait with `pendings = 0` after the loop gives the results the loop
    carries from the dots. A `tile_nvidia.arrive_barrier` after the
    iteration's dots and before the last of these waits (a warp-specialized
    loop freeing its buffers) moves after it. Run it after tile-pipeline.
  }];
  let dependentDialects = ["::mlir::tile::nvidia::TileNvidiaDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileNvidiaFenceAsyncSharedPass
    : Pass<"tile-nvidia-fence-async-shared", "::mlir::ModuleOp"> {
  let summary = "fence register stores before the wgmma reads of them";
  let description = [{
    Puts a `tile_nvidia.fence_async_shared` after each `tile.local_alloc`
    from registers and `tile.local_store` into a buffer a
    `tile_nvidia.warpgroup_dot` reads (through views), so that wgmma, which
    reads shared memory through the async proxy, sees those writes.
    Asynchronous copies (cp.async) need none. Run it after tile-pipeline.
  }];
  let dependentDialects = ["::mlir::tile::nvidia::TileNvidiaDialect"];
}

def TileNvidiaSelectBulkCopiesPass
    : Pass<"tile-nvidia-select-bulk-copies", "::mlir::ModuleOp"> {
  let summary = "mark the descriptor accesses TMA copies (before layouts)";
  let description = [{
    On compute capability 90 (sm_90a), marks `tile.bulk_copy` each
    `tile.descriptor_store`, and each `tile.descriptor_load` a wgmma reads
    in place, whose block the tensor memory accelerator copies, so that
    tile-lower-descriptors leaves it:

    - the descriptor is made in the kernel from what the host knows at
      launch: the base, a kernel argument divisible by 16 bytes; shape
      entries and strides that are arguments or constants (through integer
      casts), each stride but the last (1) a multiple of 16 bytes;
    - two dimensions, each at most 256, of 8-, 16- or 32-bit elements with
      at least 32 bytes along the last (the swizzle of the buffer);
    - a loaded block is an operand A or B of `tile.dot`s, directly or through
      one `tile.trans`, that wgmma will compute: M a multiple of 64,
      `num-warps` a multiple of 4, fp32 only as tf32; 8- and 32-bit
      operands with K along the loaded block's last dimension (wgmma reads
      those K-major only).
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "unsigned",
           /*default=*/"80", "the GPU's compute capability (80 ... 90)">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "warps of the kernel">,
  ];
}

def TileNvidiaPipelinePass
    : Pass<"tile-nvidia-pipeline", "::mlir::ModuleOp"> {
  let summary = "tile-pipeline with TMA copies of descriptor blocks";
  let description = [{
    tile-pipeline, where the marked descriptor loads (tile.bulk_copy) of a
    loop whose blocks are stored to shared memory in a non-transposed
    `#tile.nvmma_shared` layout become TMA copies into the buffers
    tile-pipeline gives them (`S + 1` for a dot accumulating over the loop,
    else `S`): before the loop `S + 1` `tile_nvidia.init_barrier`s (an
    array, one used per iteration in turn); in each iteration, stage 0, a
    `tile.barrier` where more than one warpgroup reads the buffers (every
    one is done with the buffer about to be refilled), one
    `tile_nvidia.barrier_expect` of the iteration's bytes and one
    `tile_nvidia.async_tma_copy_global_to_local` per load, on the
    iteration's barrier; before the reads, a `tile_nvidia.wait_barrier` with
    phase `(iteration / (S + 1)) & 1`; after the loop, the barriers are
    invalidated. Copies for iterations past the end are predicated off. The
    descriptor becomes a kernel argument holding its tensor map
    (`tile.tensor_map`, see tile-nvidia-lower-bulk-copies).
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", /*default=*/"3",
           "stages of loops without their own tile.num_stages">,
  ];
  let dependentDialects = ["::mlir::tile::nvidia::TileNvidiaDialect",
                           "::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileNvidiaLowerBulkCopiesPass
    : Pass<"tile-nvidia-lower-bulk-copies", "::mlir::ModuleOp"> {
  let summary = "copy the remaining marked descriptor accesses with TMA, waiting";
  let description = [{
    Each `tile.descriptor_load` still marked `tile.bulk_copy` (not
    pipelined) becomes one TMA copy into a buffer of its own, in the
    widest-swizzle `#tile.nvmma_shared` layout, counted on a barrier of its
    own that every thread waits for, and a `tile.local_load` of it into
    the load's layout. Each marked `tile.descriptor_store` becomes a
    `tile.local_alloc` of the block in that layout, a
    `tile_nvidia.fence_async_shared`, one TMA store and a
    `tile_nvidia.async_tma_store_wait {pendings = 0}` before the buffer is
    released (elements outside the tensor are not written).

    A descriptor TMA copies is passed as a kernel argument added at the end
    (`!tile.ptr<i8, 0>`, the address of a 128-byte by-value parameter) with
    the attribute `tile.tensor_map`: what the launcher encodes with
    cuTensorMapEncodeTiled (the arguments holding base, shape and strides,
    or constants; the box, at most the swizzle's bytes wide, the element
    type, the swizzle and the padding). One argument serves each descriptor
    and box. Descriptors nothing reads any more are erased.
  }];
  let dependentDialects = ["::mlir::tile::nvidia::TileNvidiaDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TESSERA_BACKENDS_NVIDIA_PASSES_TD
