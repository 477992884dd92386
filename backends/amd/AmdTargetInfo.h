//===- AmdTargetInfo.h - the shared lowering's hooks for AMD --------------===//

#ifndef TESSERA_BACKENDS_AMD_AMDTARGETINFO_H
#define TESSERA_BACKENDS_AMD_AMDTARGETINFO_H

#include "backends/common/TargetInfo.h"

namespace mlir::tile {

/// ROCDL and LLVM's AMDGPU intrinsics: wavefronts of 64 (CDNA) or 32 (RDNA)
/// lanes, `ds_bpermute` for cross-lane moves, `s_barrier` with workgroup
/// fences, LDS as shared memory, plain global loads and stores behind
/// branches, trap for assert, no printf.
class AmdTargetInfo : public TargetInfo {
public:
  /// `wavesPerEU`: the occupancy hint of the kernels (0: the compiler's).
  AmdTargetInfo(unsigned warpSize, unsigned wavesPerEU)
      : warpSize(warpSize), wavesPerEU(wavesPerEU) {}

  unsigned getWarpSize() const override { return warpSize; }
  Value programId(OpBuilder &b, Location loc, ProgramAxis axis) const override;
  Value numPrograms(OpBuilder &b, Location loc,
                    ProgramAxis axis) const override;
  Value threadId(OpBuilder &b, Location loc) const override;
  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   unsigned mask) const override;
  Value shuffleIndex(OpBuilder &b, Location loc, Value value,
                     Value lane) const override;
  void barrier(OpBuilder &b, Location loc) const override;
  bool isBarrier(Operation *op) const override;
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }
  unsigned getPrivateAddressSpace() const override { return 5; }
  Value readTime(OpBuilder &b, Location loc) const override;
  StringRef syncScope(MemScope scope) const override;
  bool hasPrintf() const override { return false; }
  void printf(OpBuilder &b, Location loc, StringRef format,
              ValueRange args) const override;
  void assertFail(OpBuilder &b, Location loc, StringRef message, StringRef file,
                  unsigned line, StringRef function) const override;
  void populateMathPatterns(LLVMTypeConverter &converter,
                            RewritePatternSet &patterns) const override;
  void populateDotPatterns(TypeConverter &converter,
                           RewritePatternSet &patterns,
                           LoweringState &state) const override;
  void markKernel(LLVM::LLVMFuncOp func,
                  unsigned threadsPerBlock) const override;

private:
  unsigned warpSize, wavesPerEU;
};

/// Registers `tile-amd-to-llvm`: lowerToLLVM with AmdTargetInfo (options
/// `warp-size`, `waves-per-eu`), for tessera-opt.
void registerAmdPasses();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_AMD_AMDTARGETINFO_H
