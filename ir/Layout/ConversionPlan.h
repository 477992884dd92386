//===- ConversionPlan.h - the cheapest way to change a tensor's layout ----===//
//
// Given the source and destination layouts of one tensor, decides from their
// linear forms how data must move: not at all, within each thread's
// registers, between the lanes of a warp (shuffles), or through shared
// memory, for which it picks a swizzle without bank conflicts. Backends lower
// a layout conversion from this plan.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_IR_LAYOUT_CONVERSIONPLAN_H
#define TESSERA_IR_LAYOUT_CONVERSIONPLAN_H

#include "ir/Layout/LinearLayout.h"

namespace mlir::tile {

enum class ConversionKind {
  /// Every location already holds the element it needs.
  NoOp,
  /// Each thread has what it needs in its own registers.
  RegisterPermutation,
  /// Data moves between lanes of a warp, never between warps.
  WarpShuffle,
  /// Data moves between warps: store to shared memory, then load.
  SharedMemory,
};

llvm::StringRef stringifyConversionKind(ConversionKind kind);

/// Shared-memory traffic of a conversion, counted for one warp: 128-byte
/// wavefronts of the banked shared memory (32 banks of 4 bytes).
struct BankTraffic {
  int64_t storeWavefronts = 0, loadWavefronts = 0;
  /// The counts without any bank conflict.
  int64_t idealStoreWavefronts = 0, idealLoadWavefronts = 0;
  /// Elements each lane stores and loads per access.
  unsigned storeVec = 1, loadVec = 1;

  bool isConflictFree() const {
    return storeWavefronts == idealStoreWavefronts &&
           loadWavefronts == idealLoadWavefronts;
  }
};

struct ConversionPlan {
  ConversionKind kind = ConversionKind::NoOp;
  /// For each hardware location of the destination, the location of the
  /// source holding its element: (register, lane, warp, block) of dst to
  /// those of src.
  LinearLayout dstToSrc;

  // For ConversionKind::SharedMemory only.
  /// Bytes of shared memory the trip needs.
  int64_t sharedBytes = 0;
  /// The shared layout chosen, as a linear map (offset -> tensor dims), and
  /// its bank traffic.
  LinearLayout shared;
  BankTraffic traffic;
  /// When the layout is a classic XOR swizzle (swizzledSharedLayout), its
  /// parameters; otherwise a layout built from the two sides' lanes.
  struct Swizzle {
    unsigned vec, perPhase, maxPhase;
    llvm::SmallVector<unsigned> order;
  };
  std::optional<Swizzle> swizzle;
};

/// Plans the conversion of a tensor of `elementBitWidth`-bit elements from
/// layout `src` to `dst`, both distributed layouts of the same tensor
/// (register, lane, warp, block -> dim0, dim1, ...). Fails when `dst` holds
/// an element that `src` does not.
std::optional<ConversionPlan> planConversion(const LinearLayout &src,
                                             const LinearLayout &dst,
                                             unsigned elementBitWidth);

/// The bank traffic of storing from `src` into `shared` (offset -> tensor
/// dims) and loading into `dst`, with the widest accesses both allow.
BankTraffic measureBankTraffic(const LinearLayout &src, const LinearLayout &dst,
                               const LinearLayout &shared,
                               unsigned elementBitWidth);

} // namespace mlir::tile

#endif // TESSERA_IR_LAYOUT_CONVERSIONPLAN_H
