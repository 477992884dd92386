//===- NvidiaDialect.td - NVIDIA's layouts and ops -----------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD
#define TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD

include "ir/Layout/LayoutAttrs.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def TileNvidia_Dialect : Dialect {
  let name = "tile_nvidia";
  let cppNamespace = "::mlir::tile::nvidia";
  let summary = "what tile IR needs of NVIDIA GPUs alone: tensor-core layouts";
  let description = [{
    The NVIDIA backend's own layouts and ops: the register layouts of the
    tensor cores' `mma` instructions, which the backend's matrix-unit stage
    gives to `tile.dot`s. Generic code sees them through the
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

#endif // TESSERA_BACKENDS_NVIDIA_IR_NVIDIADIALECT_TD
