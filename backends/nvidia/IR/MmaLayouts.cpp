//===- MmaLayouts.cpp - tensor-core register layouts as linear layouts ----===//

#include "backends/nvidia/IR/MmaLayouts.h"

#include "ir/Layout/LayoutBuilders.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir::tile;
using llvm::ArrayRef;

namespace {
/// Dimensions from the last (N) to the first.
llvm::SmallVector<unsigned, 3> nFastest(unsigned rank) {
  llvm::SmallVector<unsigned, 3> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  return order;
}

/// An operand's registers and lanes in one warp (mma.sync's fragments):
/// `kWidth` K elements a register, lanes along K then along `outer` (M for
/// A, N for B), A's second register 8 rows down, then K + 4·kWidth.
void addOperandFragment(BasesBuilder &registers, BasesBuilder &lanes,
                        unsigned outer, unsigned k, unsigned kWidth, bool isA) {
  for (unsigned i = 1; i < kWidth; i *= 2)
    registers.step(k, i);
  lanes.step(k, kWidth);
  lanes.step(k, 2 * kWidth);
  lanes.step(outer, 1);
  lanes.step(outer, 2);
  lanes.step(outer, 4);
  if (isA)
    registers.step(outer, 8);
  registers.step(k, 4 * kWidth);
}

} // namespace

LinearLayout nvidia::mmaV2Layout(ArrayRef<int64_t> shape,
                                 ArrayRef<unsigned> warpsPerCTA) {
  unsigned rank = shape.size();
  assert((rank == 2 || rank == 3) && warpsPerCTA.size() == rank);
  unsigned m = rank - 2, n = rank - 1;
  BasesBuilder registers{rank, {kRegister, {}}}, lanes{rank, {kLane, {}}},
      warps{rank, {kWarp, {}}};
  registers.step(n, 1);
  lanes.step(n, 2);
  lanes.step(n, 4);
  lanes.step(m, 1);
  lanes.step(m, 2);
  lanes.step(m, 4);
  registers.step(m, 8);
  llvm::SmallVector<int32_t, 3> warpTile(rank, 1);
  warpTile[m] = 16;
  warpTile[n] = 8;
  addWarpBases(warps, warpsPerCTA, warpTile, nFastest(rank));
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout nvidia::mmaV2OperandLayout(ArrayRef<int64_t> shape,
                                        ArrayRef<unsigned> warpsPerCTA,
                                        unsigned opIdx, unsigned kWidth) {
  unsigned rank = shape.size();
  assert((rank == 2 || rank == 3) && warpsPerCTA.size() == rank && opIdx < 2);
  assert(llvm::isPowerOf2_32(kWidth));
  unsigned m = rank - 2, n = rank - 1;
  // A is MxK (K = dimension n), B is KxN (K = dimension m).
  unsigned k = opIdx == 0 ? n : m, outer = opIdx == 0 ? m : n;
  BasesBuilder registers{rank, {kRegister, {}}}, lanes{rank, {kLane, {}}},
      warps{rank, {kWarp, {}}};
  addOperandFragment(registers, lanes, outer, k, kWidth, opIdx == 0);
  llvm::SmallVector<int32_t, 3> warpTile(rank, 1);
  warpTile[outer] = opIdx == 0 ? 16 : 8;
  warpTile[k] = 0;
  addWarpBases(warps, warpsPerCTA, warpTile, nFastest(rank));
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout nvidia::mmaV3Layout(ArrayRef<int64_t> shape,
                                 ArrayRef<unsigned> warpsPerCTA,
                                 unsigned instrN) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2);
  assert(warpsPerCTA[0] % 4 == 0 && instrN >= 8 && llvm::isPowerOf2_32(instrN));
  BasesBuilder registers{2, {kRegister, {}}}, lanes{2, {kLane, {}}},
      warps{2, {kWarp, {}}};
  registers.step(1, 1);
  lanes.step(1, 2);
  lanes.step(1, 4);
  lanes.step(0, 1);
  lanes.step(0, 2);
  lanes.step(0, 4);
  registers.step(0, 8);
  for (unsigned column = 8; column < instrN; column *= 2)
    registers.step(1, column);
  addWarpBases(warps, warpsPerCTA, {16, int32_t(instrN)}, {0, 1});
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout nvidia::mmaV3OperandLayout(ArrayRef<int64_t> shape,
                                        ArrayRef<unsigned> warpsPerCTA,
                                        unsigned kWidth) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2);
  assert(llvm::isPowerOf2_32(kWidth));
  BasesBuilder registers{2, {kRegister, {}}}, lanes{2, {kLane, {}}},
      warps{2, {kWarp, {}}};
  addOperandFragment(registers, lanes, 0, 1, kWidth, /*isA=*/true);
  addWarpBases(warps, warpsPerCTA, {16, 0}, {0, 1});
  return layoutOfBases(registers, lanes, warps, shape);
}
