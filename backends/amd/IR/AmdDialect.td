//===- AmdDialect.td - AMD's layouts --------------------------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_AMD_IR_AMDDIALECT_TD
#define TESSERA_BACKENDS_AMD_IR_AMDDIALECT_TD

include "ir/Layout/LayoutAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def TileAmd_Dialect : Dialect {
  let name = "tile_amd";
  let cppNamespace = "::mlir::tile::amd";
  let summary = "what tile IR needs of AMD GPUs alone: matrix cores";
  let description = [{
    The AMD backend's own layouts: the register layouts of the matrix
    cores' MFMA (CDNA) and WMMA (RDNA) instructions, which the backend's
    matrix-unit stage gives to `tile.dot`s. Generic code sees them through
    the distributed-layout interface only.
  }];
  let useDefaultAttributePrinterParser = 1;
}

def TileAmd_MfmaLayoutAttr : AttrDef<TileAmd_Dialect, "MfmaLayout", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface,
                                ["toDotOperandLinearLayout"]>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "mfma";
  let summary = "the registers of an MFMA matrix product";
  let description = [{
    The layout of the result of CDNA's MFMA instructions on 64-lane waves,
    tiled over the waves of a block. `version` is the matrix cores' (2:
    gfx90a, 3: gfx942, 4: gfx950); `instrShape` = [M, N, K] one instruction
    computes, M = N = 32 or 16. In a 32x32 tile lane l holds column l % 32,
    rows 8 (i / 4) + 4 (l / 32) + i % 4 in registers i = 0..15; in a 16x16
    tile column l % 16, rows 4 (l / 16) + i. `warpsPerCTA` = [M, N] arranges
    the waves N fastest; larger tensors repeat the waves' tile in
    registers. `isTransposed` swaps rows and columns in that tile (lane l
    holds row l % 32 and 4 consecutive columns a register group), as the
    instruction computes D^T = B^T A^T with its operands swapped: the
    layout Triton gives AMD dots, whose rows store as vectors and whose
    result is the A operand (kWidth 4) of a next dot as it lies.

    Operands of a dot in this layout are `#tile.dot_operand` layouts with it
    as parent, where `kWidth` is the number of consecutive K elements a lane
    holds: those it gives one instruction (K * M / 64: 4 for 16-bit types
    before gfx950, 8 on gfx950 and for fp8, 2 for xf32) or, with Triton's
    kpack, a multiple of them, each instruction taking its part.

    ```mlir
    #tile_amd.mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>
    #tile_amd.mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [32, 32, 8], isTransposed = true}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        DefaultValuedParameter<"bool", "false">:$isTransposed);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]`
    `,` `instrShape` `=` `[` $instrShape `]`
    (`,` `isTransposed` `=` $isTransposed^)? `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileAmd_WmmaLayoutAttr : AttrDef<TileAmd_Dialect, "WmmaLayout", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface,
                                ["toDotOperandLinearLayout"]>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "wmma";
  let summary = "the registers of a WMMA matrix product";
  let description = [{
    The layout of the result of RDNA's WMMA instructions (16x16x16 on
    32-lane waves), tiled over the waves of a block. `version` 1 is gfx11's:
    lane l holds column l % 16, row 2 v + l / 16 in register v = 0..7; its
    operands' lanes 16-31 repeat lanes 0-15, each holding a whole row of A
    (column of B), 16 K elements. Version 2 is gfx12's: lane l holds column
    l % 16, row 8 (l / 16) + v; operands hold K 8 (l / 16) .. + 7.
    `warpsPerCTA` = [M, N] arranges the waves N fastest.

    Operands of a dot in this layout are `#tile.dot_operand` layouts with it
    as parent, `kWidth` the K elements a lane gives one instruction (16 for
    version 1, 8 for version 2).

    ```mlir
    #tile_amd.wmma<{version = 1, warpsPerCTA = [2, 2]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]`
    `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TESSERA_BACKENDS_AMD_IR_AMDDIALECT_TD
