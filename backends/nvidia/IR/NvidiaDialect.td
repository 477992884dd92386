//===- NvidiaDialect.td - NVIDIA's layouts and ops -----------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD
#define TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD

include "ir/Layout/LayoutAttrs.td"
include "ir/Tile/TileAttrs.td"
include "ir/Tile/TileTypes.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileNvidia_Dialect : Dialect {
  let name = "tile_nvidia";
  let cppNamespace = "::mlir::tile::nvidia";
  let summary = "what tile IR needs of NVIDIA GPUs alone: tensor cores, "
                "mbarriers and TMA";
  let description = [{
    The NVIDIA backend's own layouts and ops: the register layouts of the
    tensor cores' `mma` instructions, which the backend's matrix-unit stage
    gives to `tile.dot`s, and Hopper's warpgroup dot, which reads its
    operands from shared memory; Hopper's transaction-counting barriers
    (mbarriers) and tensor memory accelerator (TMA) copies. Generic code
    sees the layouts through the distributed-layout interface only.
  }];
  let useDefaultAttributePrinterParser = 1;
}

def TileNvidia_MmaLayoutAttr : AttrDef<TileNvidia_Dialect, "MmaLayout", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface,
                                ["toDotOperandLinearLayout"]>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "mma";
  let summary = "the registers of a tensor-core matrix product";
  let description = [{
    The layout of the result of an NVIDIA tensor-core instruction, tiled over
    the warps of a block. Version 2 is `mma.sync` (sm_80 and later), whose
    `instrShape` is the [16, 8] tile one warp computes: lane 4g + t holds
    rows g and g + 8, columns 2t and 2t + 1. `warpsPerCTA` arranges the
    warps over the (batch,) M and N dimensions, N fastest; larger tensors
    repeat the warps' tile in registers.

    Version 3 is Hopper's `wgmma` (sm_90a): a warpgroup of 4 warps computes
    a 64xN tile, `instrShape` = [16, N, K] being one warp's share (N a power
    of two up to 256, K = 256 / the operands' bit width). Per warp, lane
    4g + t holds rows g and g + 8 of columns 8i + 2t and 8i + 2t + 1 for
    every i; `warpsPerCTA` = [M, N] arranges the warps M fastest, a multiple
    of 4 along M.

    Operands of a dot in this layout are `#tile.dot_operand` layouts with it
    as parent, where `kWidth` is the number of consecutive K elements a
    32-bit register packs (2 for 16-bit types, 1 for tf32, 4 for 8-bit).

    ```mlir
    #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    #tile_nvidia.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]`
    `,` `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileNvidia_SharedMemory : Resource<"::mlir::tile::SharedMemory">;

class TileNvidia_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileNvidia_Dialect, mnemonic, traits>;

def TileNvidia_WarpGroupDotOp : TileNvidia_Op<"warpgroup_dot", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>]>,
    AllTypesMatch<["c", "d"]>]> {
  let summary = "a warpgroup's matrix product on Hopper's tensor cores (wgmma)";
  let description = [{
    Returns `d = a * b + c` like `tile.dot`, computed by `wgmma` from `a`
    (MxK) and `b` (KxN) in shared memory, in `#tile.nvmma_shared` layouts
    of 32, 64 or 128-byte swizzles (K contiguous, or for 16-bit types either
    dimension), or from `a` in registers (a `#tile.dot_operand` of `c`'s
    layout). `c` and `d` are in a version-3 `#tile_nvidia.mma` layout.

    With `useC` false, `c` is not added (`d = a * b`): the wgmma's scale-d
    predicate, so that an accumulator restarting at zero (a fused loop's,
    at each tile) needs no registers written while a dot may read them.

    With `isAsync`, the product is only started: `d` may be read, and the
    operands' shared memory written, after a `tile_nvidia.warpgroup_dot_wait`
    that retires it. Otherwise it is complete when the op returns.

    `maxNumImpreciseAcc` (fp8 operands; 0: none) bounds how many of K's
    products the tensor cores sum in their reduced precision: every such
    many, the sum so far is waited for and added to `d` in fp32 (as
    Triton's `max_num_imprecise_acc`), which leaves the op complete too.

    ```mlir
    %d = tile_nvidia.warpgroup_dot %a, %b, %c : !tile.memdesc<128x64xf16, #nvmma> * !tile.memdesc<64x256xf16, #nvmma_b> -> tensor<128x256xf32, #mma>
    %e = tile_nvidia.warpgroup_dot %a, %b, %c useC %notFirst : !tile.memdesc<128x64xf16, #nvmma> * !tile.memdesc<64x256xf16, #nvmma_b> -> tensor<128x256xf32, #mma>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_MemDesc, Tile_IntOrFloatTensor]>:$a,
                   Tile_MemDesc:$b, Tile_IntOrFloatTensor:$c,
                   Optional<I1>:$useC,
                   DefaultValuedAttr<Tile_InputPrecision,
                                     "::mlir::tile::InputPrecision::ieee">:$precision,
                   UnitAttr:$isAsync,
                   DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_IntOrFloatTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`useC` $useC^)? (`precision` `=` $precision^)? attr-dict
    `:` qualified(type($a)) `*` qualified(type($b)) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TileNvidia_WarpGroupDotWaitOp : TileNvidia_Op<"warpgroup_dot_wait", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>]>,
    AllTypesMatch<["inputs", "outputs"]>]> {
  let summary = "wait until at most `pendings` warpgroup dots are in flight";
  let description = [{
    Waits until no more than `pendings` of this warpgroup's asynchronous
    `tile_nvidia.warpgroup_dot`s are still running (the oldest finish
    first), and returns `inputs` unchanged: the results of the dots it
    retires are read through `outputs`, so nothing reads them before the
    wait.

    ```mlir
    %d2 = tile_nvidia.warpgroup_dot_wait %d {pendings = 1 : i32} : tensor<128x256xf32, #mma>
    ```
  }];
  let arguments = (ins Variadic<Tile_IntOrFloatTensor>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<Tile_IntOrFloatTensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

def TileNvidia_FenceAsyncSharedOp : TileNvidia_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>,
                   MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "make the block's shared-memory writes visible to wgmma and TMA";
  let description = [{
    Orders the shared-memory writes of every thread of the block before it
    (stores, `tile.local_alloc` from registers) before the reads of the
    asynchronous units (`wgmma`, TMA stores) after it
    (`fence.proxy.async` and a barrier).

    ```mlir
    tile_nvidia.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}


//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

/// A barrier: one 64-bit word of shared memory.
def TileNvidia_Barrier : Type<
    CPred<"::mlir::tile::nvidia::isBarrier($_self)">,
    "mbarrier (a !tile.memdesc<1xi64>)", "::mlir::tile::MemDescType">;

def TileNvidia_InitBarrierOp : TileNvidia_Op<"init_barrier", [
    MemoryEffects<[MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "set up an mbarrier that `count` arrivals complete";
  let description = [{
    Initialises the barrier in phase 0, expecting `count` arrivals (and no
    transaction bytes) per phase; one thread does it and the block waits
    for it.

    ```mlir
    tile_nvidia.init_barrier %bar, 1 : !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileNvidia_Barrier:$barrier,
                   ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
}

def TileNvidia_InvalBarrierOp : TileNvidia_Op<"inval_barrier", [
    MemoryEffects<[MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "end an mbarrier's life, so its word can be reused";
  let description = [{
    ```mlir
    tile_nvidia.inval_barrier %bar : !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileNvidia_Barrier:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
}

def TileNvidia_BarrierExpectOp : TileNvidia_Op<"barrier_expect", [
    MemoryEffects<[MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "arrive on an mbarrier, expecting `bytes` of copies";
  let description = [{
    Where `pred` (the same in every thread) holds, one thread of the
    program arrives once on the barrier and adds `bytes` to the transaction
    bytes its current phase waits for (the TMA copies that name the barrier
    count them down).

    ```mlir
    tile_nvidia.barrier_expect %bar, 16384, %first : !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileNvidia_Barrier:$barrier,
                   ConfinedAttr<I32Attr, [IntNonNegative]>:$bytes, I1:$pred);
  let assemblyFormat = [{
    $barrier `,` $bytes `,` $pred attr-dict `:` qualified(type($barrier))
  }];
}

def TileNvidia_ArriveBarrierOp : TileNvidia_Op<"arrive_barrier", [
    MemoryEffects<[MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "arrive on an mbarrier";
  let description = [{
    Each thread where `pred` holds arrives `count` times.

    ```mlir
    tile_nvidia.arrive_barrier %bar, 1, %pred : !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileNvidia_Barrier:$barrier,
                   ConfinedAttr<I32Attr, [IntPositive]>:$count, I1:$pred);
  let assemblyFormat = [{
    $barrier `,` $count `,` $pred attr-dict `:` qualified(type($barrier))
  }];
}

def TileNvidia_WaitBarrierOp : TileNvidia_Op<"wait_barrier", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>,
                   MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "wait until an mbarrier's phase of parity `phase` completes";
  let description = [{
    Blocks the thread until the barrier's phase of parity `phase` (0 or 1,
    i32) has completed: all its arrivals made and transaction bytes
    copied. What those copies wrote is then visible to the thread.

    ```mlir
    tile_nvidia.wait_barrier %bar, %phase : !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileNvidia_Barrier:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` qualified(type($barrier))";
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

def TileNvidia_AsyncTmaCopyGlobalToLocalOp
    : TileNvidia_Op<"async_tma_copy_global_to_local", [
    MemoryEffects<[MemRead, MemWrite<TileNvidia_SharedMemory>]>]> {
  let summary = "copy a box of a tensor map into shared memory (TMA)";
  let description = [{
    Where `pred` (the same in every thread) holds, one thread of the
    program starts the tensor memory accelerator
    copying the box at `coords` (one i32 per dimension, outermost first)
    of the tensor map `desc` (the address of a CUtensorMap) into `result`,
    whose shape is the box and whose layout is the map's swizzle. Elements
    outside the tensor are filled by the map (zero or NaN). The copy
    counts its bytes down on `barrier`; wait for the barrier before
    reading `result`.

    ```mlir
    tile_nvidia.async_tma_copy_global_to_local %map[%i, %k] %buf, %bar, %first
        : !tile.memdesc<128x64xf16, #nvmma, mutable>, !tile.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_Ptr:$desc, Variadic<I32>:$coords,
                   Tile_MemDesc:$result, TileNvidia_Barrier:$barrier, I1:$pred);
  let assemblyFormat = [{
    $desc `[` $coords `]` $result `,` $barrier `,` $pred attr-dict `:`
    qualified(type($desc)) `,` qualified(type($result)) `,`
    qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def TileNvidia_AsyncTmaCopyLocalToGlobalOp
    : TileNvidia_Op<"async_tma_copy_local_to_global", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>, MemWrite]>]> {
  let summary = "copy shared memory into a box of a tensor map (TMA)";
  let description = [{
    One thread starts the tensor memory accelerator copying `src` into the
    box at `coords` of the tensor map `desc`, leaving out elements outside
    the tensor, and commits it to the thread's bulk group;
    `tile_nvidia.async_tma_store_wait` waits for it. Shared-memory writes of
    the block must be fenced (`tile_nvidia.fence_async_shared`) first.

    ```mlir
    tile_nvidia.async_tma_copy_local_to_global %map[%i, %j] %buf
        : !tile.ptr<i8>, !tile.memdesc<128x128xf16, #nvmma, mutable>
    ```
  }];
  let arguments = (ins Tile_Ptr:$desc, Variadic<I32>:$coords,
                   Tile_MemDesc:$src);
  let assemblyFormat = [{
    $desc `[` $coords `]` $src attr-dict `:` qualified(type($desc)) `,`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TileNvidia_AsyncTmaStoreWaitOp : TileNvidia_Op<"async_tma_store_wait", [
    MemoryEffects<[MemRead<TileNvidia_SharedMemory>]>]> {
  let summary = "wait until at most `pendings` TMA stores read their source";
  let description = [{
    After it, the shared memory of all but the newest `pendings` TMA stores
    of the thread may be written again.

    ```mlir
    tile_nvidia.async_tma_store_wait {pendings = 0 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let assemblyFormat = "attr-dict";
}

#endif // TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD
