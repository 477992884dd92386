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
  let summary = "what tile IR needs of NVIDIA GPUs alone: tensor cores";
  let description = [{
    The NVIDIA backend's own layouts and ops: the register layouts of the
    tensor cores' `mma` instructions, which the backend's matrix-unit stage
    gives to `tile.dot`s, and Hopper's warpgroup dot, which reads its
    operands from shared memory. Generic code sees the layouts through the
    distributed-layout interface only.
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

    With `isAsync`, the product is only started: `d` may be read, and the
    operands' shared memory written, after a `tile_nvidia.warpgroup_dot_wait`
    that retires it. Otherwise it is complete when the op returns.

    ```mlir
    %d = tile_nvidia.warpgroup_dot %a, %b, %c : !tile.memdesc<128x64xf16, #nvmma> * !tile.memdesc<64x256xf16, #nvmma_b> -> tensor<128x256xf32, #mma>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_MemDesc, Tile_IntOrFloatTensor]>:$a,
                   Tile_MemDesc:$b, Tile_IntOrFloatTensor:$c,
                   DefaultValuedAttr<Tile_InputPrecision,
                                     "::mlir::tile::InputPrecision::ieee">:$precision,
                   UnitAttr:$isAsync);
  let results = (outs Tile_IntOrFloatTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`precision` `=` $precision^)? attr-dict `:`
    qualified(type($a)) `*` qualified(type($b)) `->` type($d)
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

#endif // TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD
