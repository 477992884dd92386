//===- MfmaLayouts.cpp - AMD matrix-core register layouts -----------------===//

#include "backends/amd/IR/MfmaLayouts.h"

#include "ir/Layout/LayoutBuilders.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir::tile;
using llvm::ArrayRef;

namespace {
/// Bases of a rank-2 layout's input dimension.
BasesBuilder basesOf(const char *in) { return {2, {in, {}}}; }

/// Waves tile `tile` ([M, N] elements a wave) N fastest; a zero in `tile`
/// makes waves along that dimension hold the same elements.
BasesBuilder waveBases(ArrayRef<unsigned> warpsPerCTA, ArrayRef<int32_t> tile) {
  BasesBuilder warps = basesOf(kWarp);
  addWarpBases(warps, warpsPerCTA, tile, {1, 0});
  return warps;
}
} // namespace

LinearLayout amd::mfmaLayout(ArrayRef<int64_t> shape,
                             ArrayRef<unsigned> warpsPerCTA, unsigned mDim,
                             bool transposed) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2);
  assert(mDim == 32 || mDim == 16);
  BasesBuilder registers = basesOf(kRegister), lanes = basesOf(kLane);
  registers.step(0, 1);
  registers.step(0, 2);
  for (unsigned column = 1; column < mDim; column *= 2)
    lanes.step(1, column);
  // 32x32: lane 32 is 4 rows down, registers 4 and 8 are 8 and 16 rows
  // down; 16x16: lanes 16 and 32 are 4 and 8 rows down.
  if (mDim == 32) {
    lanes.step(0, 4);
    registers.step(0, 8);
    registers.step(0, 16);
  } else {
    lanes.step(0, 4);
    lanes.step(0, 8);
  }
  if (transposed)
    for (BasesBuilder *bases : {&registers, &lanes})
      for (std::vector<int32_t> &basis : bases->in.bases)
        std::swap(basis[0], basis[1]);
  BasesBuilder warps = waveBases(warpsPerCTA, {int32_t(mDim), int32_t(mDim)});
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout amd::mfmaOperandLayout(ArrayRef<int64_t> shape,
                                    ArrayRef<unsigned> warpsPerCTA,
                                    unsigned mDim, unsigned opIdx,
                                    unsigned kWidth) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2 && opIdx < 2);
  assert((mDim == 32 || mDim == 16) && llvm::isPowerOf2_32(kWidth));
  // A is MxK (K = dimension 1), B is KxN (K = dimension 0).
  unsigned k = opIdx == 0 ? 1 : 0, outer = 1 - k;
  BasesBuilder registers = basesOf(kRegister), lanes = basesOf(kLane);
  for (unsigned i = 1; i < kWidth; i *= 2)
    registers.step(k, i);
  for (unsigned row = 1; row < mDim; row *= 2)
    lanes.step(outer, row);
  // The lanes above: the next kWidth elements of K, 64 / mDim groups.
  for (unsigned group = 1; group < 64 / mDim; group *= 2)
    lanes.step(k, kWidth * group);
  std::vector<int32_t> tile(2, 0);
  tile[outer] = mDim;
  BasesBuilder warps = waveBases(warpsPerCTA, {tile[0], tile[1]});
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout amd::wmmaLayout(ArrayRef<int64_t> shape,
                             ArrayRef<unsigned> warpsPerCTA, unsigned version) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2);
  assert(version == 1 || version == 2);
  BasesBuilder registers = basesOf(kRegister), lanes = basesOf(kLane);
  for (unsigned column = 1; column < 16; column *= 2)
    lanes.step(1, column);
  // Version 1 interleaves the lane halves' rows, version 2 stacks them.
  if (version == 1) {
    lanes.step(0, 1);
    for (int32_t row : {2, 4, 8})
      registers.step(0, row);
  } else {
    lanes.step(0, 8);
    for (int32_t row : {1, 2, 4})
      registers.step(0, row);
  }
  BasesBuilder warps = waveBases(warpsPerCTA, {16, 16});
  return layoutOfBases(registers, lanes, warps, shape);
}

LinearLayout amd::wmmaOperandLayout(ArrayRef<int64_t> shape,
                                    ArrayRef<unsigned> warpsPerCTA,
                                    unsigned version, unsigned opIdx) {
  assert(shape.size() == 2 && warpsPerCTA.size() == 2 && opIdx < 2);
  assert(version == 1 || version == 2);
  unsigned k = opIdx == 0 ? 1 : 0, outer = 1 - k;
  BasesBuilder registers = basesOf(kRegister), lanes = basesOf(kLane);
  for (int32_t step = 1; step < (version == 1 ? 16 : 8); step *= 2)
    registers.step(k, step);
  for (int32_t row = 1; row < 16; row *= 2)
    lanes.step(outer, row);
  // Version 1: lanes 16-31 repeat lanes 0-15; version 2: they hold K 8-15.
  if (version == 1)
    lanes.stay();
  else
    lanes.step(k, 8);
  std::vector<int32_t> tile(2, 0);
  tile[outer] = 16;
  BasesBuilder warps = waveBases(warpsPerCTA, {tile[0], tile[1]});
  return layoutOfBases(registers, lanes, warps, shape);
}
