//===- LayoutBuilders.h - the linear forms of the named layouts -----------===//
//
// The named layouts (blocked, slice, dot operand, swizzled shared memory and
// the NVMMA swizzles of Hopper) as LinearLayouts, without MLIR: the layout
// attributes call these, and so can code that has no MLIR context.
//
// Distributed layouts map (register, lane, warp, block) to (dim0, dim1, ...);
// shared layouts map (offset) to (dim0, dim1, ...), `offset` counting
// elements.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_IR_LAYOUT_LAYOUTBUILDERS_H
#define TESSERA_IR_LAYOUT_LAYOUTBUILDERS_H

#include "ir/Layout/LinearLayout.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace mlir::tile {

/// Input dimension names of distributed layouts.
inline constexpr const char *kRegister = "register";
inline constexpr const char *kLane = "lane";
inline constexpr const char *kWarp = "warp";
inline constexpr const char *kBlock = "block";
/// Input dimension of shared-memory layouts: the element offset.
inline constexpr const char *kOffset = "offset";

/// The most warps a block has: Triton's bound, 32 warps of 32 lanes.
inline constexpr unsigned kMaxNumWarps = 32;
/// The most threads a block has, on NVIDIA and AMD GPUs alike.
inline constexpr unsigned kMaxThreadsPerBlock = 1024;

/// An error naming `warpSize` and what is accepted, unless it is a power of
/// two from 1 to 64: 32 or 64 on GPUs, 1 where a thread is a warp (the CPU
/// backend plugin).
/// `name` is what the user wrote it as (an option, an attribute).
llvm::Error verifyWarpSize(int64_t warpSize,
                           llvm::StringRef name = "warp_size");

/// An error naming `numWarps` and what is accepted, unless it is a power of
/// two from 1 to `maxWarps` (kMaxThreadsPerBlock / warp size, where the
/// warp size is known). Distributed layouts, and the divisions by the
/// number of warps that make them, rely on it.
llvm::Error verifyNumWarps(int64_t numWarps, unsigned maxWarps = kMaxNumWarps,
                           llvm::StringRef name = "num_warps");

/// "dim0", "dim1", ...
std::string dimName(unsigned dim);
llvm::SmallVector<std::string> dimNames(unsigned rank);

/// Adapts a layout to `shape`: registers repeat along dimensions the layout
/// does not cover, and hardware bits that reach beyond a dimension hold the
/// same elements as others (registers that would only repeat are dropped).
/// Output dimensions become dim0..dimN-1 in order; input dimensions
/// register, lane, warp, block.
LinearLayout fitToShape(const LinearLayout &layout,
                        llvm::ArrayRef<int64_t> shape);

/// `layout` (onto dim0..dimN-1) with its tensor's dimensions permuted:
/// dimension i of the result is dimension order[i] of `layout`'s.
LinearLayout permuteOuts(const LinearLayout &layout,
                         llvm::ArrayRef<int32_t> order);

/// `layout` (onto dim0..dimN-1) with its tensor reshaped row-major to
/// `shape`: every input keeps its element, now at its coordinates in the
/// new shape (tile.reshape's and a buffer reshape's layout).
LinearLayout reshapeRowMajor(const LinearLayout &layout,
                             llvm::ArrayRef<int64_t> shape);

/// The bases of one input dimension of a layout over `rank` dimensions,
/// built a basis at a time (the matrix units' fragments).
struct BasesBuilder {
  unsigned rank;
  LinearLayout::InDim in;

  /// Adds a basis stepping `dim` by `value`.
  void step(unsigned dim, int32_t value);
  /// Adds a basis that reaches no new element (a broadcast).
  void stay();
};

/// Warps tile `warpTile` (one size per dimension) along the dimensions in
/// `order`, the first fastest; warps along a dimension `warpTile` gives 0
/// for hold the same elements.
void addWarpBases(BasesBuilder &warps, llvm::ArrayRef<unsigned> warpsPerCTA,
                  llvm::ArrayRef<int32_t> warpTile,
                  llvm::ArrayRef<unsigned> order);

/// The layout of `registers`, `lanes` and `warps` (kRegister, kLane, kWarp)
/// fitted to `shape` (fitToShape).
LinearLayout layoutOfBases(const BasesBuilder &registers,
                           const BasesBuilder &lanes, const BasesBuilder &warps,
                           llvm::ArrayRef<int64_t> shape);

/// The blocked layout: each thread holds sizePerThread[d] consecutive
/// elements along d, threadsPerWarp and warpsPerCTA tile that, `order` lists
/// dimensions fastest first; repeated to cover `shape`.
LinearLayout blockedLayout(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<unsigned> sizePerThread,
                           llvm::ArrayRef<unsigned> threadsPerWarp,
                           llvm::ArrayRef<unsigned> warpsPerCTA,
                           llvm::ArrayRef<unsigned> order);

/// `layout` with every basis mapped by `map` (linear over GF(2)), for a
/// tensor of `shape`: the layout of a tensor whose element at map(c) is the
/// one at c (a reshape's, a transpose's).
LinearLayout mapBases(
    const LinearLayout &layout, llvm::ArrayRef<int64_t> shape,
    llvm::function_ref<llvm::SmallVector<int32_t>(llvm::ArrayRef<int32_t>)>
        map);

/// Row-major coordinates in `to` of the element at `coords` in `from`
/// (powers of two: a regrouping of the index bits, so linear).
llvm::SmallVector<int32_t> reshapeCoords(llvm::ArrayRef<int32_t> coords,
                                         llvm::ArrayRef<int64_t> from,
                                         llvm::ArrayRef<int64_t> to);

/// The layout of `parent` (a layout of rank shape.size() + 1) with dimension
/// `dim` removed: the tensor a reduction along `dim` leaves.
LinearLayout sliceLayout(const LinearLayout &parent, unsigned dim);

/// The layout of operand `opIdx` (0: MxK, 1: KxN) of a dot computed in the
/// parent layout of its MxN result, where each thread holds whole rows of A
/// (columns of B): `parentForShape` gives the parent's layout for a shape.
LinearLayout dotOperandLayout(
    llvm::ArrayRef<int64_t> shape, unsigned opIdx,
    llvm::function_ref<LinearLayout(llvm::ArrayRef<int64_t>)> parentForShape);

/// Shared memory with rows along order[1] of order[0]-contiguous elements,
/// where groups of `vec` elements of row r move to group
/// `(r / perPhase) % maxPhase` XOR their own: the classic bank-conflict
/// swizzle.
LinearLayout swizzledSharedLayout(llvm::ArrayRef<int64_t> shape, unsigned vec,
                                  unsigned perPhase, unsigned maxPhase,
                                  llvm::ArrayRef<unsigned> order);

/// The 2-D shared layouts of Hopper's wgmma and TMA: rows of
/// `swizzleBytes` (0, 32, 64 or 128) whose 16-byte chunks are XORed with
/// `(row * swizzleBytes / 128) % (swizzleBytes / 16)`; wider tensors are cut in column tiles
/// stored one after the other. `transposed` makes dimension 0 the contiguous
/// one.
LinearLayout nvmmaSharedLayout(llvm::ArrayRef<int64_t> shape,
                               unsigned swizzleBytes, bool transposed,
                               unsigned elementBitWidth);

/// The padding of a shared buffer (Gluon's PaddedSharedLayout): after every
/// intervals[i] elements of the linear layout's offsets, paddings[i] more
/// elements are left empty (all powers of two; none when empty).
struct SharedPadding {
  llvm::SmallVector<unsigned> intervals, paddings;

  bool empty() const { return intervals.empty(); }
  /// Where the element at `offset` of the linear layout is placed.
  int64_t apply(int64_t offset) const;
  /// The elements a buffer holding `elements` spans, the padding between
  /// them included (none after the last).
  int64_t size(int64_t elements) const;
  /// The most consecutive offsets that stay consecutive once padded and
  /// aligned to their number (a vector's elements): the smallest interval
  /// or padding.
  unsigned maxVector() const;
};

/// Parameters of a default blocked layout.
struct BlockedParams {
  llvm::SmallVector<unsigned> sizePerThread, threadsPerWarp, warpsPerCTA, order;
};

/// A good blocked layout for a tensor of `shape`: `order` (fastest first;
/// row-major when empty) gives the contiguous dimension, along which each
/// thread holds up to 16 bytes when `contiguity` (consecutive elements known
/// to be contiguous and aligned, from the axis analysis:
/// getAlignedContiguity in transforms/AxisInfo.h) allows and the
/// tensor has enough elements; lanes then warps fill the dimensions fastest
/// first. A single thread (one warp of one lane) holds the whole tensor.
BlockedParams defaultBlockedParams(llvm::ArrayRef<int64_t> shape,
                                   unsigned elementBitWidth, unsigned numWarps,
                                   unsigned warpSize, unsigned contiguity,
                                   llvm::ArrayRef<unsigned> order = {});

} // namespace mlir::tile

#endif // TESSERA_IR_LAYOUT_LAYOUTBUILDERS_H
