//===- LayoutTest.cpp - named layouts against their plain definitions -----===//
//
// Each layout's linear form is compared, element by element, with the
// definition of the layout written as index arithmetic: which elements each
// (warp, lane) holds, or which element each shared-memory offset stores.
// Warps of 32 (NVIDIA, AMD RDNA) and 64 lanes (AMD CDNA) are covered.
//
//===----------------------------------------------------------------------===//

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Layout/LayoutBuilders.h"
#include "ir/Tile/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

using Coord = std::vector<int64_t>;
/// (warp, lane) -> the elements it holds.
using Ownership = std::map<std::pair<int32_t, int32_t>, std::set<Coord>>;

Coord coordOf(const LinearLayout::Point &point) {
  Coord c;
  for (const auto &[name, value] : point)
    c.push_back(value);
  return c;
}

/// Who holds what, by enumerating every (register, lane, warp).
Ownership ownership(const LinearLayout &layout) {
  Ownership owned;
  for (int32_t w = 0; w < layout.getInDimSize(kWarp); ++w)
    for (int32_t l = 0; l < layout.getInDimSize(kLane); ++l)
      for (int32_t r = 0; r < layout.getInDimSize(kRegister); ++r)
        owned[{w, l}].insert(
            coordOf(layout.apply({{kRegister, r}, {kLane, l}, {kWarp, w}})));
  return owned;
}

/// Splits `index` into one coordinate per dimension, going through `order`
/// (fastest first) with the given extents.
std::vector<int64_t> split(int64_t index, llvm::ArrayRef<unsigned> extents,
                           llvm::ArrayRef<unsigned> order) {
  std::vector<int64_t> coord(extents.size(), 0);
  for (unsigned d : order) {
    coord[d] = index % extents[d];
    index /= extents[d];
  }
  return coord;
}

/// The blocked layout as Triton defines it: the tile of
/// sizePerThread * threadsPerWarp * warpsPerCTA repeats over the tensor,
/// and what falls outside a smaller tensor wraps around.
Ownership blockedReference(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<unsigned> spt,
                           llvm::ArrayRef<unsigned> tpw,
                           llvm::ArrayRef<unsigned> wpc,
                           llvm::ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  unsigned lanes = 1, warps = 1, perThread = 1;
  std::vector<unsigned> reps(rank);
  for (unsigned d = 0; d < rank; ++d) {
    lanes *= tpw[d];
    warps *= wpc[d];
    perThread *= spt[d];
    int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
    reps[d] = std::max<int64_t>(1, shape[d] / tile);
  }
  unsigned numReps = 1;
  for (unsigned r : reps)
    numReps *= r;
  Ownership owned;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned l = 0; l < lanes; ++l) {
      auto wc = split(w, wpc, order), lc = split(l, tpw, order);
      for (unsigned rep = 0; rep < numReps; ++rep) {
        auto rc = split(rep, reps, order);
        for (unsigned e = 0; e < perThread; ++e) {
          auto ec = split(e, spt, order);
          Coord c(rank);
          for (unsigned d = 0; d < rank; ++d) {
            int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
            c[d] = (rc[d] * tile + wc[d] * tpw[d] * spt[d] + lc[d] * spt[d] +
                    ec[d]) %
                   shape[d];
          }
          owned[{int32_t(w), int32_t(l)}].insert(c);
        }
      }
    }
  return owned;
}

struct BlockedCase {
  std::vector<int64_t> shape;
  std::vector<unsigned> spt, tpw, wpc, order;
};

TEST(BlockedLayout, MatchesTheDefinition) {
  std::vector<BlockedCase> cases = {
      // 32-lane warps (NVIDIA, RDNA).
      {{1024}, {4}, {32}, {4}, {0}},
      {{64, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0}},
      {{64, 64}, {4, 1}, {8, 4}, {1, 4}, {0, 1}},
      {{16, 8}, {1, 4}, {4, 8}, {4, 1}, {1, 0}},    // smaller than the tile
      {{256, 128}, {2, 2}, {8, 4}, {2, 2}, {1, 0}}, // repeated in registers
      {{4, 8, 16}, {1, 1, 4}, {1, 8, 4}, {2, 2, 1}, {2, 1, 0}},
      {{2}, {8}, {32}, {1}, {0}}, // more per thread than the tensor has
      // 64-lane waves (AMD CDNA).
      {{1024}, {4}, {64}, {4}, {0}},
      {{128, 64}, {1, 8}, {8, 8}, {8, 1}, {1, 0}},
      {{32, 32}, {1, 1}, {16, 4}, {2, 2}, {0, 1}},
  };
  for (const BlockedCase &c : cases) {
    LinearLayout l = blockedLayout(c.shape, c.spt, c.tpw, c.wpc, c.order);
    EXPECT_EQ(ownership(l),
              blockedReference(c.shape, c.spt, c.tpw, c.wpc, c.order));
    // No thread holds an element twice.
    int64_t lanes = l.getInDimSize(kLane);
    for (const auto &[thread, elements] : ownership(l))
      EXPECT_EQ(int64_t(elements.size()), l.getInDimSize(kRegister))
          << "thread " << thread.first * lanes + thread.second;
    // Registers run along the fastest dimension first.
    unsigned fast = c.order[0];
    EXPECT_EQ(l.getNumConsecutive(kRegister, dimName(fast)),
              std::min<int64_t>(c.spt[fast], c.shape[fast]));
    EXPECT_EQ(l.getInDimSize(kLane), lanes);
    EXPECT_TRUE(l.isSurjective());
  }
}

/// A slice's thread holds the parent's elements with the dimension dropped.
TEST(SliceLayout, DropsTheDimension) {
  for (unsigned dim : {0u, 1u}) {
    std::vector<unsigned> spt{2, 4}, tpw{4, 8}, wpc{2, 2}, order{1, 0};
    std::vector<int64_t> shape{64, 32};
    std::vector<int64_t> parentShape = shape;
    parentShape[dim] = 1;
    LinearLayout parent = blockedLayout(parentShape, spt, tpw, wpc, order);
    std::vector<int64_t> slicedShape{shape[1 - dim]};
    LinearLayout sliced = sliceLayout(parent, dim);
    EXPECT_EQ(sliced.getOutDimSize("dim0"), slicedShape[0]);
    Ownership expected;
    for (const auto &[thread, elements] : ownership(parent))
      for (const Coord &c : elements)
        expected[thread].insert({c[1 - dim]});
    EXPECT_EQ(ownership(sliced), expected);
    for (const auto &[thread, elements] : ownership(sliced))
      EXPECT_EQ(int64_t(elements.size()), sliced.getInDimSize(kRegister));
  }
}

/// For a dot on the CUDA cores, a thread holds whole rows of A and whole
/// columns of B: those of the result elements it computes.
TEST(DotOperandLayout, HoldsWholeRowsAndColumns) {
  std::vector<unsigned> spt{2, 2}, tpw{8, 4}, wpc{2, 2}, order{1, 0};
  int64_t m = 64, n = 32, k = 16;
  LinearLayout result = blockedLayout({m, n}, spt, tpw, wpc, order);
  auto parentFor = [&](llvm::ArrayRef<int64_t> s) {
    return blockedLayout(s, spt, tpw, wpc, order);
  };
  for (unsigned opIdx : {0u, 1u}) {
    std::vector<int64_t> shape =
        opIdx == 0 ? std::vector<int64_t>{m, k} : std::vector<int64_t>{k, n};
    LinearLayout operand = dotOperandLayout(shape, opIdx, parentFor);
    Ownership expected;
    for (const auto &[thread, elements] : ownership(result))
      for (const Coord &c : elements)
        for (int64_t kk = 0; kk < k; ++kk)
          expected[thread].insert(opIdx == 0 ? Coord{c[0], kk}
                                             : Coord{kk, c[1]});
    EXPECT_EQ(ownership(operand), expected);
    // The K elements of a thread are consecutive registers.
    EXPECT_EQ(operand.getNumConsecutive(kRegister, dimName(opIdx == 0 ? 1 : 0)),
              k);
  }
}

TEST(SwizzledSharedLayout, MatchesTheXorFormula) {
  struct Case {
    std::vector<int64_t> shape;
    unsigned vec, perPhase, maxPhase;
    std::vector<unsigned> order;
  };
  for (const Case &c : std::vector<Case>{{{32, 64}, 4, 1, 8, {1, 0}},
                                         {{64, 16}, 8, 2, 4, {0, 1}},
                                         {{16, 16}, 2, 4, 2, {1, 0}},
                                         {{8, 8}, 4, 1, 8, {1, 0}},
                                         {{2, 4, 32}, 4, 1, 4, {2, 1, 0}}}) {
    LinearLayout l =
        swizzledSharedLayout(c.shape, c.vec, c.perPhase, c.maxPhase, c.order);
    unsigned fast = c.order[0], slow = c.order[1];
    int64_t cols = c.shape[fast], rows = c.shape[slow];
    int64_t total = l.getTotalInDimSize();
    EXPECT_TRUE(l.isInvertible());
    for (int64_t offset = 0; offset < total; ++offset) {
      int64_t col = offset % cols, row = (offset / cols) % rows;
      int64_t phase = (row / c.perPhase) % c.maxPhase;
      Coord expected(c.shape.size());
      expected[fast] = col ^ ((phase * c.vec) % cols);
      expected[slow] = row;
      if (c.shape.size() == 3)
        expected[c.order[2]] = offset / (cols * rows);
      EXPECT_EQ(coordOf(l.apply({{kOffset, int32_t(offset)}})), expected);
    }
  }
}

/// Hopper's swizzles: 16-byte chunks of each row XORed with row % (B / 16).
TEST(NVMMASharedLayout, MatchesTheHopperSwizzle) {
  for (unsigned bytes : {0u, 32u, 64u, 128u})
    for (unsigned bits : {8u, 16u, 32u})
      for (bool transposed : {false, true}) {
        std::vector<int64_t> shape{32, 128};
        LinearLayout l = nvmmaSharedLayout(shape, bytes, transposed, bits);
        EXPECT_TRUE(l.isInvertible());
        unsigned fast = transposed ? 0 : 1;
        int64_t cols = shape[fast], rows = shape[1 - fast];
        int64_t rowElems =
            bytes == 0 ? cols : std::min<int64_t>(cols, bytes * 8 / bits);
        // Chunk c of row r goes to c ^ ((r * bytes / 128) % (bytes / 16)),
        // as TMA writes it on an H100.
        int64_t vec = 128 / bits, phases = std::max(1u, bytes / 16);
        int64_t perPhase = bytes == 0 ? 1 : 128 / bytes;
        for (int64_t offset = 0; offset < cols * rows; ++offset) {
          int64_t inRow = offset % rowElems;
          int64_t row = (offset / rowElems) % rows;
          int64_t tile = offset / (rowElems * rows);
          int64_t chunkXor = (((row / perPhase) % phases) * vec) % rowElems;
          Coord expected(2);
          expected[fast] = tile * rowElems + (inRow ^ chunkXor);
          expected[1 - fast] = row;
          ASSERT_EQ(coordOf(l.apply({{kOffset, int32_t(offset)}})), expected)
              << bytes << "B, " << bits << " bits, offset " << offset;
        }
      }
}

TEST(DefaultBlockedLayout, OneThreadHoldsTheTensorAlongItsOrder) {
  // A CPU program: one warp of one lane, whatever the contiguity.
  BlockedParams rows = defaultBlockedParams({64, 32}, 32, 1, 1, 4);
  EXPECT_EQ(rows.sizePerThread, (llvm::SmallVector<unsigned>{64, 32}));
  EXPECT_EQ(rows.threadsPerWarp, (llvm::SmallVector<unsigned>{1, 1}));
  EXPECT_EQ(rows.warpsPerCTA, (llvm::SmallVector<unsigned>{1, 1}));
  EXPECT_EQ(rows.order, (llvm::SmallVector<unsigned>{1, 0}));
  // Its registers run along the fastest dimension: a row of 32 first.
  LinearLayout layout =
      blockedLayout({64, 32}, rows.sizePerThread, rows.threadsPerWarp,
                    rows.warpsPerCTA, rows.order);
  EXPECT_EQ(layout.getNumConsecutive(kRegister, dimName(1)), 32);
  BlockedParams columns = defaultBlockedParams({16, 8}, 16, 1, 1, 1, {0, 1});
  EXPECT_EQ(columns.sizePerThread, (llvm::SmallVector<unsigned>{16, 8}));
  EXPECT_EQ(columns.order, (llvm::SmallVector<unsigned>{0, 1}));
}

TEST(DefaultBlockedLayout, VectorisesTheContiguousDimension) {
  // fp32 vector add: 16-byte vectors, every lane and warp along the tensor.
  BlockedParams add = defaultBlockedParams({1024}, 32, 4, 32, 16);
  EXPECT_EQ(add.sizePerThread, (llvm::SmallVector<unsigned>{4}));
  EXPECT_EQ(add.threadsPerWarp, (llvm::SmallVector<unsigned>{32}));
  EXPECT_EQ(add.warpsPerCTA, (llvm::SmallVector<unsigned>{4}));
  // fp16 tile with 8 aligned contiguous elements: 8 per thread along dim 1.
  BlockedParams tile = defaultBlockedParams({128, 64}, 16, 4, 32, 8);
  EXPECT_EQ(tile.sizePerThread, (llvm::SmallVector<unsigned>{1, 8}));
  EXPECT_EQ(tile.threadsPerWarp, (llvm::SmallVector<unsigned>{4, 8}));
  EXPECT_EQ(tile.warpsPerCTA, (llvm::SmallVector<unsigned>{4, 1}));
  EXPECT_EQ(tile.order, (llvm::SmallVector<unsigned>{1, 0}));
  // Wave64: the same tile with 64 lanes.
  BlockedParams wave = defaultBlockedParams({128, 64}, 16, 4, 64, 8);
  EXPECT_EQ(wave.threadsPerWarp, (llvm::SmallVector<unsigned>{8, 8}));
  // Unknown contiguity: one element per thread; column-major order.
  BlockedParams col = defaultBlockedParams({64, 64}, 32, 8, 32, 1, {0, 1});
  EXPECT_EQ(col.sizePerThread, (llvm::SmallVector<unsigned>{1, 1}));
  EXPECT_EQ(col.threadsPerWarp, (llvm::SmallVector<unsigned>{32, 1}));
  EXPECT_EQ(col.warpsPerCTA, (llvm::SmallVector<unsigned>{2, 4}));
  // A small tensor does not get vectors that would leave threads idle.
  BlockedParams small = defaultBlockedParams({128}, 32, 4, 32, 16);
  EXPECT_EQ(small.sizePerThread, (llvm::SmallVector<unsigned>{1}));
  // Whatever the case, lanes and warps multiply to the warp size and count.
  for (unsigned warpSize : {32u, 64u})
    for (unsigned warps : {1u, 2u, 4u, 8u})
      for (auto shape : std::vector<std::vector<int64_t>>{
               {16}, {4096}, {1, 128}, {256, 16}, {2, 2}, {8, 32, 64}}) {
        BlockedParams p = defaultBlockedParams(shape, 16, warps, warpSize, 8);
        unsigned lanes = 1, w = 1;
        for (unsigned d = 0; d < shape.size(); ++d) {
          lanes *= p.threadsPerWarp[d];
          w *= p.warpsPerCTA[d];
        }
        EXPECT_EQ(lanes, warpSize);
        EXPECT_EQ(w, warps);
      }
}

/// The attributes, as parsed from text, give the builders' linear forms
/// through their interface.
TEST(LayoutAttrs, ConvertThroughTheInterface) {
  MLIRContext context;
  context.loadDialect<TileDialect>();
  auto parse = [&](llvm::StringRef text) {
    return parseAttribute(text, &context);
  };
  auto blocked = dyn_cast<DistributedLayoutAttrInterface>(
      parse("#tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], "
            "warpsPerCTA = [2, 2], order = [1, 0]}>"));
  ASSERT_TRUE(blocked);
  EXPECT_EQ(blocked.getWarpSize(), 64u);
  EXPECT_EQ(blocked.getNumWarps(), 4u);
  LinearLayout ll = blocked.toLinearLayout({32, 128});
  EXPECT_EQ(ll, blockedLayout({32, 128}, {1, 4}, {4, 16}, {2, 2}, {1, 0}));

  // The same layout, printed as a linear attribute and parsed back, is the
  // same map.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << LinearEncodingAttr::get(&context, ll);
  auto linear = dyn_cast<DistributedLayoutAttrInterface>(parse(text));
  ASSERT_TRUE(linear);
  EXPECT_EQ(linear.toLinearLayout({32, 128}), ll);

  auto slice = dyn_cast<DistributedLayoutAttrInterface>(
      parse("#tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = "
            "[1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [2, 2], order = "
            "[1, 0]}>}>"));
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice.getRank(), 1u);
  EXPECT_EQ(slice.toLinearLayout({128}),
            sliceLayout(blocked.toLinearLayout({1, 128}), 0));

  auto type = RankedTensorType::get(
      {64, 64}, Float16Type::get(&context),
      parse("#tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, "
            "elementBitWidth = 16}>"));
  std::optional<LinearLayout> shared = toLinearLayout(type);
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(*shared, nvmmaSharedLayout({64, 64}, 64, true, 16));
  EXPECT_FALSE(
      toLinearLayout(RankedTensorType::get({4}, Float16Type::get(&context)))
          .has_value());

  auto wave = BlockedLayoutAttr::getDefault(&context, {256}, 32, 4, 64, 4);
  EXPECT_EQ(wave.getWarpSize(), 64u);
  EXPECT_EQ(wave.getSizePerThread(), (llvm::ArrayRef<unsigned>{1}));
}

} // namespace
