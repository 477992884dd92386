//===- LayoutBuilders.cpp - the linear forms of the named layouts ---------===//

#include "ir/Layout/LayoutBuilders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

using namespace mlir::tile;
using llvm::ArrayRef;

llvm::Error mlir::tile::verifyWarpSize(int64_t warpSize, llvm::StringRef name) {
  if (warpSize >= 1 && warpSize <= 64 && llvm::isPowerOf2_64(warpSize))
    return llvm::Error::success();
  return llvm::createStringError(
      name + " must be a power of two from 1 to 64 (32 or 64 on GPUs), got " +
      llvm::Twine(warpSize));
}

llvm::Error mlir::tile::verifyNumWarps(int64_t numWarps, unsigned maxWarps,
                                       llvm::StringRef name) {
  if (numWarps >= 1 && numWarps <= maxWarps && llvm::isPowerOf2_64(numWarps))
    return llvm::Error::success();
  std::string range = "a power of two from 1 to " + std::to_string(maxWarps);
  if (maxWarps != kMaxNumWarps)
    range += " (" + std::to_string(kMaxThreadsPerBlock) + " threads of " +
             std::to_string(kMaxThreadsPerBlock / maxWarps) + "-lane warps)";
  return llvm::createStringError(name + " must be " + range + ", got " +
                                 llvm::Twine(numWarps));
}

std::string mlir::tile::dimName(unsigned dim) {
  return "dim" + std::to_string(dim);
}

llvm::SmallVector<std::string> mlir::tile::dimNames(unsigned rank) {
  llvm::SmallVector<std::string> names;
  for (unsigned d = 0; d < rank; ++d)
    names.push_back(dimName(d));
  return names;
}

LinearLayout mlir::tile::permuteOuts(const LinearLayout &layout,
                                     llvm::ArrayRef<int32_t> order) {
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : layout.getInDims()) {
    LinearLayout::InDim permuted{in.name, {}};
    for (const std::vector<int32_t> &basis : in.bases) {
      std::vector<int32_t> image;
      for (int32_t dim : order)
        image.push_back(basis[dim]);
      permuted.bases.push_back(std::move(image));
    }
    ins.push_back(std::move(permuted));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (auto [i, dim] : llvm::enumerate(order))
    outs.push_back({dimName(i), layout.getOutDimSize(dimName(dim))});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

LinearLayout mlir::tile::reshapeRowMajor(const LinearLayout &layout,
                                         llvm::ArrayRef<int64_t> shape) {
  // The last dimension holds the lowest bits of the row-major index.
  llvm::SmallVector<std::string> fromMinorFirst;
  for (unsigned d = layout.getNumOutDims(); d-- > 0;)
    fromMinorFirst.push_back(dimName(d));
  std::vector<std::pair<std::string, int32_t>> toMinorFirst;
  for (unsigned d = shape.size(); d-- > 0;)
    toMinorFirst.push_back({dimName(d), static_cast<int32_t>(shape[d])});
  return layout.transposeOuts(fromMinorFirst)
      .reshapeOuts(toMinorFirst)
      .transposeOuts(dimNames(shape.size()));
}

LinearLayout mlir::tile::fitToShape(const LinearLayout &layout,
                                    ArrayRef<int64_t> shape) {
  // Repeat registers along dimensions the layout does not cover.
  LinearLayout grown = layout;
  for (unsigned d = 0; d < shape.size(); ++d) {
    int32_t size = grown.getOutDimSize(dimName(d));
    if (size < shape[d])
      grown = grown *
              LinearLayout::identity1D(shape[d] / size, kRegister, dimName(d));
  }
  // Wrap what reaches beyond the shape; drop registers that only repeat.
  std::vector<LinearLayout::InDim> ins;
  for (const char *name : {kRegister, kLane, kWarp, kBlock}) {
    LinearLayout::InDim in{name, {}};
    for (int bit = 0; bit < grown.getInDimSizeLog2(name); ++bit) {
      LinearLayout::Point image = grown.apply({{name, 1 << bit}});
      std::vector<int32_t> basis(shape.size(), 0);
      for (unsigned d = 0; d < shape.size(); ++d)
        for (const auto &[out, value] : image)
          if (out == dimName(d))
            basis[d] = value & (shape[d] - 1);
      bool isZero = llvm::all_of(basis, [](int32_t v) { return v == 0; });
      if (!(isZero && in.name == kRegister))
        in.bases.push_back(std::move(basis));
    }
    ins.push_back(std::move(in));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (unsigned d = 0; d < shape.size(); ++d)
    outs.push_back({dimName(d), static_cast<int32_t>(shape[d])});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

LinearLayout mlir::tile::blockedLayout(ArrayRef<int64_t> shape,
                                       ArrayRef<unsigned> sizePerThread,
                                       ArrayRef<unsigned> threadsPerWarp,
                                       ArrayRef<unsigned> warpsPerCTA,
                                       ArrayRef<unsigned> order) {
  LinearLayout regs, lanes, warps;
  for (unsigned d : order) {
    regs = regs *
           LinearLayout::identity1D(sizePerThread[d], kRegister, dimName(d));
    lanes =
        lanes * LinearLayout::identity1D(threadsPerWarp[d], kLane, dimName(d));
    warps = warps * LinearLayout::identity1D(warpsPerCTA[d], kWarp, dimName(d));
  }
  return fitToShape(regs * lanes * warps, shape);
}

void BasesBuilder::step(unsigned dim, int32_t value) {
  std::vector<int32_t> basis(rank, 0);
  basis[dim] = value;
  in.bases.push_back(std::move(basis));
}

void BasesBuilder::stay() { in.bases.push_back(std::vector<int32_t>(rank, 0)); }

void mlir::tile::addWarpBases(BasesBuilder &warps,
                              ArrayRef<unsigned> warpsPerCTA,
                              ArrayRef<int32_t> warpTile,
                              ArrayRef<unsigned> order) {
  for (unsigned d : order)
    for (unsigned bit = 0; bit < llvm::Log2_32(warpsPerCTA[d]); ++bit) {
      if (warpTile[d] == 0)
        warps.stay();
      else
        warps.step(d, warpTile[d] << bit);
    }
}

LinearLayout mlir::tile::layoutOfBases(const BasesBuilder &registers,
                                       const BasesBuilder &lanes,
                                       const BasesBuilder &warps,
                                       ArrayRef<int64_t> shape) {
  LinearLayout tile = llvm::cantFail(LinearLayout::createWithMinimalOuts(
      {registers.in, lanes.in, warps.in}, dimNames(registers.rank)));
  return fitToShape(tile, shape);
}

LinearLayout mlir::tile::mapBases(
    const LinearLayout &layout, ArrayRef<int64_t> shape,
    llvm::function_ref<llvm::SmallVector<int32_t>(ArrayRef<int32_t>)> map) {
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : layout.getInDims()) {
    LinearLayout::InDim mapped{in.name, {}};
    for (const auto &basis : in.bases) {
      llvm::SmallVector<int32_t> image = map(basis);
      mapped.bases.emplace_back(image.begin(), image.end());
    }
    ins.push_back(std::move(mapped));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (auto [d, size] : llvm::enumerate(shape))
    outs.push_back({dimName(d), static_cast<int32_t>(size)});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

llvm::SmallVector<int32_t> mlir::tile::reshapeCoords(ArrayRef<int32_t> coords,
                                                     ArrayRef<int64_t> from,
                                                     ArrayRef<int64_t> to) {
  int64_t linear = 0;
  for (auto [c, size] : llvm::zip(coords, from))
    linear = linear * size + c;
  llvm::SmallVector<int32_t> result(to.size());
  for (int d = to.size() - 1; d >= 0; --d) {
    result[d] = linear % to[d];
    linear /= to[d];
  }
  return result;
}

LinearLayout mlir::tile::sliceLayout(const LinearLayout &parent, unsigned dim) {
  unsigned rank = parent.getNumOutDims();
  assert(dim < rank && "slice of a dimension the parent does not have");
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : parent.getInDims()) {
    LinearLayout::InDim sliced{in.name, {}};
    for (const auto &basis : in.bases) {
      std::vector<int32_t> kept;
      for (unsigned d = 0; d < rank; ++d)
        if (d != dim)
          kept.push_back(basis[d]);
      // Registers that only walked the removed dimension are gone.
      bool isZero = llvm::all_of(kept, [](int32_t v) { return v == 0; });
      if (!(isZero && in.name == kRegister))
        sliced.bases.push_back(std::move(kept));
    }
    ins.push_back(std::move(sliced));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (unsigned d = 0, j = 0; d < rank; ++d)
    if (d != dim)
      outs.push_back({dimName(j++), parent.getOutDimSize(dimName(d))});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

LinearLayout mlir::tile::dotOperandLayout(
    ArrayRef<int64_t> shape, unsigned opIdx,
    llvm::function_ref<LinearLayout(ArrayRef<int64_t>)> parentForShape) {
  assert(shape.size() >= 2 && opIdx < 2);
  unsigned rank = shape.size();
  unsigned kDim = opIdx == 0 ? rank - 1 : rank - 2;
  // The parent's layout with K collapsed: threads that differ only along the
  // other operand's dimension hold the same elements.
  llvm::SmallVector<int64_t> parentShape(shape);
  parentShape[kDim] = 1;
  LinearLayout parent = parentForShape(parentShape);
  // Each thread holds all of K in registers, before the parent's registers.
  LinearLayout k =
      LinearLayout::identity1D(shape[kDim], kRegister, dimName(kDim));
  return fitToShape(k * parent, shape);
}

LinearLayout mlir::tile::swizzledSharedLayout(ArrayRef<int64_t> shape,
                                              unsigned vec, unsigned perPhase,
                                              unsigned maxPhase,
                                              ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  unsigned fast = order[0];
  std::vector<LinearLayout::InDim> ins{{kOffset, {}}};
  auto &bases = ins[0].bases;
  auto unit = [&](unsigned dim, int32_t value) {
    std::vector<int32_t> basis(rank, 0);
    basis[dim] = value;
    return basis;
  };
  for (int32_t i = 1; i < shape[fast]; i *= 2)
    bases.push_back(unit(fast, i));
  if (rank >= 2) {
    unsigned slow = order[1];
    for (int32_t row = 1; row < shape[slow]; row *= 2) {
      std::vector<int32_t> basis = unit(slow, row);
      int32_t phase = (row / perPhase) % maxPhase;
      basis[fast] = (phase * vec) & (shape[fast] - 1);
      bases.push_back(std::move(basis));
    }
  }
  for (unsigned k = 2; k < rank; ++k)
    for (int32_t i = 1; i < shape[order[k]]; i *= 2)
      bases.push_back(unit(order[k], i));
  std::vector<LinearLayout::OutDim> outs;
  for (unsigned d = 0; d < rank; ++d)
    outs.push_back({dimName(d), static_cast<int32_t>(shape[d])});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

LinearLayout mlir::tile::nvmmaSharedLayout(ArrayRef<int64_t> shape,
                                           unsigned swizzleBytes,
                                           bool transposed,
                                           unsigned elementBitWidth) {
  assert(shape.size() == 2);
  unsigned fast = transposed ? 0 : 1, slow = 1 - fast;
  int64_t rowElems =
      swizzleBytes == 0
          ? shape[fast]
          : std::min<int64_t>(shape[fast], swizzleBytes * 8 / elementBitWidth);
  int32_t vec = std::max(1u, 128 / elementBitWidth);
  // The hardware XORs the 16-byte chunk index with bits 7.. of the byte
  // address: a 128-byte line holds 128 / swizzleBytes rows of one phase.
  int32_t maxPhase = std::max(1u, swizzleBytes / 16);
  int32_t perPhase = swizzleBytes == 0 ? 1 : 128 / swizzleBytes;
  std::vector<LinearLayout::InDim> ins{{kOffset, {}}};
  auto &bases = ins[0].bases;
  auto basis = [&](int32_t fastValue, int32_t slowValue) {
    std::vector<int32_t> b(2, 0);
    b[fast] = fastValue;
    b[slow] = slowValue;
    return b;
  };
  // One swizzled tile of rows, then the column tiles after each other.
  for (int32_t i = 1; i < rowElems; i *= 2)
    bases.push_back(basis(i, 0));
  for (int32_t row = 1; row < shape[slow]; row *= 2)
    bases.push_back(
        basis((((row / perPhase) % maxPhase) * vec) & (rowElems - 1), row));
  for (int64_t i = rowElems; i < shape[fast]; i *= 2)
    bases.push_back(basis(i, 0));
  std::vector<LinearLayout::OutDim> outs{
      {dimName(0), static_cast<int32_t>(shape[0])},
      {dimName(1), static_cast<int32_t>(shape[1])}};
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

BlockedParams mlir::tile::defaultBlockedParams(
    ArrayRef<int64_t> shape, unsigned elementBitWidth, unsigned numWarps,
    unsigned warpSize, unsigned contiguity, ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  BlockedParams p;
  if (order.empty())
    for (unsigned d = rank; d-- > 0;)
      p.order.push_back(d);
  else
    p.order.assign(order.begin(), order.end());
  int64_t numElements = 1;
  for (int64_t size : shape)
    numElements *= size;
  int64_t threads = int64_t(numWarps) * warpSize;
  p.threadsPerWarp.assign(rank, 1);
  p.warpsPerCTA.assign(rank, 1);
  if (threads == 1) {
    // One thread holds it all, its registers along `order` (a whole row of
    // the fastest dimension for one vector access).
    p.sizePerThread.assign(shape.begin(), shape.end());
    return p;
  }
  unsigned fast = p.order[0];
  // 16 bytes a thread where the data allows, but never so many that threads
  // sit idle.
  int64_t vec = std::max(1u, 128 / std::max(1u, elementBitWidth));
  vec = std::min<int64_t>({vec, std::max(1u, contiguity), shape[fast],
                           std::max<int64_t>(1, numElements / threads)});
  p.sizePerThread.assign(rank, 1);
  p.sizePerThread[fast] = vec;

  int64_t lanesLeft = warpSize, warpsLeft = numWarps;
  for (unsigned k = 0; k < rank; ++k) {
    unsigned d = p.order[k];
    int64_t room = shape[d] / p.sizePerThread[d];
    bool last = k + 1 == rank;
    // The slowest dimension takes whatever lanes and warps are left.
    int64_t lanes = last ? lanesLeft : std::clamp<int64_t>(room, 1, lanesLeft);
    room = std::max<int64_t>(1, room / lanes);
    int64_t warps = last ? warpsLeft : std::clamp<int64_t>(room, 1, warpsLeft);
    p.threadsPerWarp[d] = lanes;
    p.warpsPerCTA[d] = warps;
    lanesLeft /= lanes;
    warpsLeft /= warps;
  }
  return p;
}

int64_t SharedPadding::apply(int64_t offset) const {
  int64_t padded = offset;
  for (auto [interval, padding] : llvm::zip(intervals, paddings))
    padded += (offset >> llvm::Log2_32(interval)) << llvm::Log2_32(padding);
  return padded;
}

int64_t SharedPadding::size(int64_t elements) const {
  int64_t size = elements;
  for (auto [interval, padding] : llvm::zip(intervals, paddings)) {
    size += (elements >> llvm::Log2_32(interval)) << llvm::Log2_32(padding);
    if (elements % interval == 0)
      size -= padding;
  }
  return size;
}

unsigned SharedPadding::maxVector() const {
  unsigned vec = ~0u;
  for (auto [interval, padding] : llvm::zip(intervals, paddings))
    vec = std::min({vec, interval, padding});
  return vec;
}
