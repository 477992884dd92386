//===- Passes.td - the AMD backend's passes ------------------*- tablegen -*-===//

#ifndef TESSERA_BACKENDS_AMD_PASSES_TD
#define TESSERA_BACKENDS_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAmdAssignMatrixCoresPass
    : Pass<"tile-amd-assign-matrix-cores", "::mlir::ModuleOp"> {
  let summary = "compute dots on the matrix cores: mfma or wmma layouts";
  let description = [{
    The AMD backend's matrix-unit stage, for CDNA's MFMA (`mfma-version` 2:
    gfx90a, 3: gfx942, 4: gfx950; 64-lane waves) or RDNA's WMMA
    (`wmma-version` 1: gfx11, 2: gfx12; 32-lane waves). Each 2-D `tile.dot`
    of f16 or bf16 operands (both alike), of fp8 ones (e4m3, e5m2, mixed
    too: the FNUZ formats as they are on version 3 MFMA, the OCP ones on
    version 4 MFMA and version 2 WMMA, else widened to f16), of f32 ones that allow tf32 (as xf32, MFMA version 3
    only) or of int8 ones into i32 gets a `#tile_amd.mfma` or
    `#tile_amd.wmma` result layout and `#tile.dot_operand` layouts of it for
    its operands, with converts from and to the layouts the dot had; float
    dots accumulate in f32 (a narrower result is widened around it):

    - MFMA: 32x32 tiles where M and N are multiples of 32, else 16x16
      where they are multiples of 16 (only those of `matrix-instr-nonkdim`
      where it is not 0); K elements a lane gives an
      instruction (`kWidth`), the widest K allows: 16-bit types 8 on
      version 4 (32x32x16, 16x16x32), else 4 (32x32x8, 16x16x16); int8 16
      on version 4 (32x32x32, 16x16x64), 8 from version 3 (32x32x16,
      16x16x32), 4 on version 2 (32x32x8, 16x16x16); fp8 8 (32x32x16,
      16x16x32); xf32 2 (32x32x4, 16x16x8);
    - WMMA: 16x16x16 tiles where M, N and K are multiples of 16 (`kWidth`
      16 on version 1, 8 on version 2; int8 as iu8, signed);
    - K must be a multiple of the instruction's; other dots stay on the
      CUDA cores;
    - with `kpack` 2 (MFMA version 3, as Triton's), operands hold twice the
      instruction's kWidth a lane where K allows: each lane's run of K
      feeds two instructions, a half each;
    - MFMA layouts are transposed (`isTransposed`, as Triton's): each lane
      holds a row's consecutive columns, and a chained dot's result is the
      next dot's A as it lies;
    - waves go along M or N, to the one with more tiles left (ties to M);
      for chained dots (one's result reaching another's operand, as in
      attention) along M first, as many as M has tiles.

    Run tile-remove-conversions after it.
  }];
  let options = [
    Option<"mfmaVersion", "mfma-version", "unsigned", /*default=*/"0",
           "CDNA's matrix cores (2: gfx90a, 3: gfx942, 4: gfx950; 0: none)">,
    Option<"wmmaVersion", "wmma-version", "unsigned", /*default=*/"0",
           "RDNA's matrix cores (1: gfx11, 2: gfx12; 0: none)">,
    Option<"matrixInstrNonKDim", "matrix-instr-nonkdim", "unsigned",
           /*default=*/"0",
           "MFMA's tile (16 or 32; 0: the larger that fits), as Triton's "
           "matrix_instr_nonkdim; WMMA's is 16">,
    Option<"kpack", "kpack", "unsigned", /*default=*/"1",
           "K elements a lane holds for MFMAs on version 3, in instructions' "
           "worth (1 or 2), as Triton's kpack: 2 reads 16-byte rows of "
           "16-bit operands for two instructions">,
  ];
  let dependentDialects = ["::mlir::tile::amd::TileAmdDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TESSERA_BACKENDS_AMD_PASSES_TD
