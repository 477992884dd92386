//===- TargetInfo.h - what the shared lowering asks of a target -----------===//
//
// The lowering of tile IR to the LLVM dialect (backends/common) is written
// once; everything it cannot say without naming a vendor goes through this
// interface: the warp size, thread and program indices, cross-lane
// operations, barriers, address spaces, global memory accesses with
// predicates and cache hints, printf and assert, math functions, and how a
// kernel is marked. Each backend implements it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_COMMON_TARGETINFO_H
#define TESSERA_BACKENDS_COMMON_TARGETINFO_H

#include "ir/Tile/TileOps.h"

#include "mlir/IR/Builders.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
class TypeConverter;
class ModuleOp;
namespace LLVM {
class LLVMFuncOp;
class LLVMFunctionType;
} // namespace LLVM
} // namespace mlir

namespace mlir::tile {

struct LoweringState;

/// The warps that run the ops of a region of a tile.warp_specialize: the
/// first and how many, and which of its regions it is (0: the default).
struct WarpRegion {
  unsigned firstWarp, numWarps, index;
};
/// Those of the region `block` is in, where it is in one.
std::optional<WarpRegion> warpsAt(Block *block);

// For targets' hooks.
/// The module around `b`'s insertion point.
ModuleOp enclosingModule(OpBuilder &b);
/// The function `name` of `type`, declared in `module` when missing.
LLVM::LLVMFuncOp declareFunction(OpBuilder &b, ModuleOp module, StringRef name,
                                 LLVM::LLVMFunctionType type);
/// A pointer to a NUL-terminated copy of `text` in constant memory (one
/// global for each distinct text).
Value stringConstant(OpBuilder &b, Location loc, StringRef text);

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// Lanes of a warp (wavefront).
  virtual unsigned getWarpSize() const = 0;

  /// The block's index along `axis` of the grid, and the grid's size (i32).
  virtual Value programId(OpBuilder &b, Location loc, ProgramAxis axis) const = 0;
  virtual Value numPrograms(OpBuilder &b, Location loc,
                            ProgramAxis axis) const = 0;
  /// The thread's index in its (one-dimensional) block (i32); in a region
  /// of a tile.warp_specialize (warpsAt), in the region's warps.
  virtual Value threadId(OpBuilder &b, Location loc) const = 0;

  /// The i32 `value` of lane `lane ^ mask` of the warp.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value value,
                           unsigned mask) const = 0;
  /// The i32 `value` of lane `lane` (an i32 value).
  virtual Value shuffleIndex(OpBuilder &b, Location loc, Value value,
                             Value lane) const = 0;
  /// Waits for every thread of the block (in a region of a
  /// tile.warp_specialize, of the region's warps), and makes their
  /// shared-memory writes visible.
  virtual void barrier(OpBuilder &b, Location loc) const = 0;
  /// Whether `op` is a barrier of the whole block as barrier() emits it.
  virtual bool isBarrier(Operation *op) const = 0;

  /// Whether regions of a tile.warp_specialize can run on warps of their
  /// own: barriers over some warps of the block, and threadId in them.
  virtual bool hasWarpSpecialization() const { return false; }
  /// Makes the calling warpgroup keep `count` registers per thread, more
  /// than it has (`increase`) or fewer.
  virtual void setRegisters(OpBuilder &b, Location loc, unsigned count,
                            bool increase) const {}

  virtual unsigned getGlobalAddressSpace() const = 0;
  virtual unsigned getSharedAddressSpace() const = 0;
  /// The address space of a thread's own stack variables (allocas).
  virtual unsigned getPrivateAddressSpace() const { return 0; }

  /// The time now in nanoseconds (i64), of one clock for every
  /// multiprocessor of the device.
  virtual Value readTime(OpBuilder &b, Location loc) const = 0;

  /// The most bytes one access of global memory moves (a power of two).
  virtual unsigned getMaxAccessBytes() const { return 16; }
  /// Whether a vector access of global memory needs only its element's
  /// alignment (else it is aligned to its size).
  virtual bool hasUnalignedAccesses() const { return false; }
  /// Whether loadGlobal and storeGlobal take a mask of one bit for each
  /// element of a vector; without, a vector's elements share one bit.
  virtual bool hasElementMasks() const { return false; }
  /// Loads `type` (a scalar or a vector of at most getMaxAccessBytes(),
  /// aligned as hasUnalignedAccesses() says) through the global pointer `ptr`
  /// where `pred` holds (i1, or with hasElementMasks() a vector of i1 for a
  /// vector `type`); the result is `other` (of `type`, or undefined when null)
  /// elsewhere. The defaults branch around one plain access, so they take an
  /// i1 only: a target with element masks overrides both.
  virtual Value loadGlobal(OpBuilder &b, Location loc, Value ptr, Type type,
                           Value pred, Value other, CacheModifier cache,
                           EvictionPolicy evict, bool isVolatile) const;
  /// Stores `value` (as loadGlobal's `type`) where `pred` holds.
  virtual void storeGlobal(OpBuilder &b, Location loc, Value ptr, Value value,
                           Value pred, CacheModifier cache,
                           EvictionPolicy evict) const;

  /// The LLVM synchronisation scope of an atomic at `scope`.
  virtual StringRef syncScope(MemScope scope) const = 0;
  /// The old value of `ptr` (global memory) after `kind` with `value` in the
  /// target's own atomic instruction; null where LLVM's atomicrmw is used.
  virtual Value atomicRMW(OpBuilder &b, Location loc, RMWKind kind, Value ptr,
                          Value value, MemOrder order, MemScope scope) const {
    return {};
  }
  /// As atomicRMW, for a compare-and-swap (LLVM's cmpxchg where null).
  virtual Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp,
                          Value value, MemOrder order, MemScope scope) const {
    return {};
  }

  /// Whether the device can print (printf below).
  virtual bool hasPrintf() const { return true; }
  /// Prints `format` (printf syntax) with `args` from the device.
  virtual void printf(OpBuilder &b, Location loc, StringRef format,
                      ValueRange args) const = 0;
  /// Stops the kernel with `message`, naming the kernel source's location.
  virtual void assertFail(OpBuilder &b, Location loc, StringRef message,
                          StringRef file, unsigned line,
                          StringRef function) const = 0;

  /// Patterns for math ops on scalars (calls into the vendor's device
  /// library, or intrinsics).
  virtual void populateMathPatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) const = 0;
  /// Whether loadMatrices works (32-lane warps loading 8x8 matrices of
  /// 16-bit elements from shared memory together).
  virtual bool hasMatrixLoads() const { return false; }
  /// Loads `count` (1, 2 or 4) 8x8 matrices of 16-bit elements from shared
  /// memory, lanes 8i..8i+7 giving the addresses of matrix i's rows (16
  /// contiguous bytes each) in `address`. Lane l receives an i32 per matrix:
  /// the two elements of row l/4 at columns 2(l%4) and 2(l%4)+1, or with
  /// `transpose` those of column l/4 at rows 2(l%4) and 2(l%4)+1.
  virtual SmallVector<Value> loadMatrices(OpBuilder &b, Location loc,
                                          Value address, unsigned count,
                                          bool transpose) const {
    return {};
  }
  /// Whether asyncCopy copies in the background (else the shared lowering
  /// copies through registers, at once).
  virtual bool hasAsyncCopies() const { return false; }
  /// Starts copying `bytes` (4, 8 or 16) bytes from the global pointer `src`
  /// to the shared pointer `dst`, both aligned to `bytes`; where `pred` (i1)
  /// is false, fills `dst` with zeros and reads nothing.
  virtual void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                         unsigned bytes, Value pred) const {}
  /// Closes the group of copies this thread started since the last one.
  virtual void asyncCommitGroup(OpBuilder &b, Location loc) const {}
  /// Waits until at most `pending` of this thread's groups are in flight.
  virtual void asyncWait(OpBuilder &b, Location loc, unsigned pending) const {}
  /// Patterns for dots in the target's matrix-unit layouts (see Lowering.h
  /// for the state they share), tried before the CUDA-core dot the shared
  /// lowering gives the others.
  virtual void populateDotPatterns(TypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   LoweringState &state) const {}
  /// Makes `func` a kernel launched with `threadsPerBlock` threads.
  virtual void markKernel(LLVM::LLVMFuncOp func,
                          unsigned threadsPerBlock) const = 0;
};

} // namespace mlir::tile

#endif // TESSERA_BACKENDS_COMMON_TARGETINFO_H
