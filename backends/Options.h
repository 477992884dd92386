//===- Options.h - compile options every backend understands --------------===//
//
// Standard library only: the Python bindings include it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_OPTIONS_H
#define TESSERA_BACKENDS_OPTIONS_H

namespace mlir::tile {

/// Options every backend understands; vendor ones are prefixed in their
/// own structs.
struct CompileOptions {
  unsigned numWarps = 4;
  unsigned numStages = 3;
  unsigned numCTAs = 1;
  bool enableFpFusion = true;
  bool debug = false;
  /// AMD: wavefronts per execution unit the compiler aims for (0: its own
  /// choice).
  unsigned wavesPerEU = 0;
  /// AMD: the M (= N) of the matrix instructions dots take, 16 or 32 (0:
  /// the larger the dot allows), as Triton's matrix_instr_nonkdim.
  unsigned matrixInstrNonKDim = 0;
  /// AMD: Triton's kpack (1 or 2): on gfx942, dot operands hold kpack
  /// instructions' K elements a lane, for wider shared-memory reads.
  unsigned kpack = 1;
  /// The most registers a thread may use (0: the compiler's choice), where
  /// the target can be told (NVIDIA's .maxnreg); accepted elsewhere.
  unsigned maxRegisters = 0;
  /// Copy descriptor blocks in bulk (Hopper's TMA) where the target can;
  /// such a kernel takes tensor maps after its parameters
  /// (CompiledKernel::tensorMaps), which AOT launchers do not pass.
  bool bulkCopies = true;
  /// NVIDIA: dots on Hopper's warpgroup instructions (wgmma, MMA version 3)
  /// where the target has them; false keeps them on mma.sync, as Triton's
  /// DISABLE_MMA_V3 does.
  bool mmaV3 = true;
};

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_OPTIONS_H
