//===- NvidiaTargetInfo.h - the shared lowering's hooks for NVIDIA --------===//

#ifndef TESSERA_BACKENDS_NVIDIA_NVIDIATARGETINFO_H
#define TESSERA_BACKENDS_NVIDIA_NVIDIATARGETINFO_H

#include "backends/common/TargetInfo.h"

namespace mlir::LLVM {
class InlineAsmOp;
} // namespace mlir::LLVM

namespace mlir::tile {

/// PTX `text` inline, with side effects: `result` (null: none) from
/// `operands` under `constraints`.
LLVM::InlineAsmOp inlineAsm(OpBuilder &b, Location loc, Type result,
                            ValueRange operands, StringRef text,
                            StringRef constraints);

/// NVVM intrinsics and PTX: 32-lane warps, `shfl.sync`, `bar.sync`,
/// predicated vector `ld.global`/`st.global` with cache hints, `vprintf`,
/// `__assertfail`, libdevice for math.
class NvidiaTargetInfo : public TargetInfo {
public:
  /// For GPUs of `computeCapability` (90 for sm_90a); 0 where it is not
  /// known, which keeps to what every supported GPU has.
  explicit NvidiaTargetInfo(unsigned computeCapability = 0)
      : computeCapability(computeCapability) {}
  unsigned getWarpSize() const override { return 32; }
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
  bool hasWarpSpecialization() const override { return true; }
  void setRegisters(OpBuilder &b, Location loc, unsigned count,
                    bool increase) const override;
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }
  Value readTime(OpBuilder &b, Location loc) const override;
  Value loadGlobal(OpBuilder &b, Location loc, Value ptr, Type type,
                   Value pred, Value other, CacheModifier cache,
                   EvictionPolicy evict, bool isVolatile) const override;
  void storeGlobal(OpBuilder &b, Location loc, Value ptr, Value value,
                   Value pred, CacheModifier cache,
                   EvictionPolicy evict) const override;
  StringRef syncScope(MemScope scope) const override;
  Value atomicRMW(OpBuilder &b, Location loc, RMWKind kind, Value ptr,
                  Value value, MemOrder order, MemScope scope) const override;
  Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp, Value value,
                  MemOrder order, MemScope scope) const override;
  void printf(OpBuilder &b, Location loc, StringRef format,
              ValueRange args) const override;
  void assertFail(OpBuilder &b, Location loc, StringRef message,
                  StringRef file, unsigned line,
                  StringRef function) const override;
  void populateMathPatterns(LLVMTypeConverter &converter,
                            RewritePatternSet &patterns) const override;
  bool hasMatrixLoads() const override { return true; }
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value address,
                                  unsigned count,
                                  bool transpose) const override;
  bool hasAsyncCopies() const override { return true; }
  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value pred) const override;
  void asyncCommitGroup(OpBuilder &b, Location loc) const override;
  void asyncWait(OpBuilder &b, Location loc, unsigned pending) const override;
  void populateDotPatterns(TypeConverter &converter,
                           RewritePatternSet &patterns,
                           LoweringState &state) const override;
  void markKernel(LLVM::LLVMFuncOp func,
                  unsigned threadsPerBlock) const override;

private:
  unsigned computeCapability;
};

/// Registers the NVIDIA backend's passes for tessera-opt:
/// `tile-nvidia-assign-mma`, and `tile-nvidia-to-llvm` (lowerToLLVM with
/// NvidiaTargetInfo).
void registerNvidiaPasses();

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_NVIDIA_NVIDIATARGETINFO_H
