//===- ConversionPlan.cpp - the cheapest way to change a tensor's layout --===//

#include "ir/Layout/ConversionPlan.h"

#include "ir/Layout/LayoutBuilders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <array>

using namespace mlir::tile;

llvm::StringRef mlir::tile::stringifyConversionKind(ConversionKind kind) {
  switch (kind) {
  case ConversionKind::NoOp:
    return "no-op";
  case ConversionKind::RegisterPermutation:
    return "register permutation";
  case ConversionKind::WarpShuffle:
    return "warp shuffle";
  case ConversionKind::SharedMemory:
    return "shared memory";
  }
  llvm_unreachable("unknown conversion kind");
}

namespace {
constexpr int kBanks = 32, kBankBytes = 4, kWavefrontBytes = 128;
constexpr unsigned kMaxAccessBytes = 16;

/// Whether `map` (dst hardware -> src hardware) sends each bit of `dim` to
/// the same bit of the same dimension and nothing else.
bool keepsDimension(const LinearLayout &map, const char *dim) {
  for (int bit = 0; bit < map.getInDimSizeLog2(dim); ++bit)
    for (const auto &[name, value] : map.apply({{dim, 1 << bit}}))
      if (value != (name == dim ? 1 << bit : 0))
        return false;
  return true;
}

/// Whether no bit of the dimensions in `from` moves data along `to`.
bool staysOff(const LinearLayout &map, std::initializer_list<const char *> from,
              const char *to) {
  for (const char *dim : from)
    for (int bit = 0; bit < map.getInDimSizeLog2(dim); ++bit)
      for (const auto &[name, value] : map.apply({{dim, 1 << bit}}))
        if (name == to && value != 0)
          return false;
  return true;
}

/// The offsets of an input dimension's values: the XOR of its bits' images.
std::vector<int64_t> offsetsOf(const LinearLayout &toOffset, const char *dim) {
  std::vector<int64_t> offsets(toOffset.getInDimSize(dim), 0);
  for (int bit = 0; bit < toOffset.getInDimSizeLog2(dim); ++bit) {
    int64_t image = toOffset.getBasis(dim, bit)[0];
    for (size_t v = 0; v < offsets.size(); ++v)
      if (v & (size_t(1) << bit))
        offsets[v] ^= image;
  }
  return offsets;
}

/// Wavefronts of one warp's accesses through `toOffset` (hardware ->
/// offset) with `vec` elements per lane.
std::pair<int64_t, int64_t> countWavefronts(const LinearLayout &toOffset,
                                            unsigned vec, unsigned bytes) {
  std::vector<int64_t> registerOffsets = offsetsOf(toOffset, kRegister);
  std::vector<int64_t> laneOffsets = offsetsOf(toOffset, kLane);
  int32_t registers = registerOffsets.size();
  int32_t lanes = laneOffsets.size();
  int64_t laneBytes = int64_t(vec) * bytes;
  int32_t lanesPerPhase = std::clamp<int64_t>(
      kWavefrontBytes / std::max<int64_t>(kBankBytes, laneBytes), 1, lanes);
  int64_t wavefronts = 0, ideal = 0;
  // The distinct words a phase touches; a bank serves one word a wavefront.
  std::vector<int64_t> words;
  std::array<int64_t, kBanks> perBank;
  for (int32_t r0 = 0; r0 < registers; r0 += vec)
    for (int32_t first = 0; first < lanes; first += lanesPerPhase) {
      words.clear();
      for (int32_t lane = first; lane < first + lanesPerPhase; ++lane) {
        int64_t offset = registerOffsets[r0] ^ laneOffsets[lane];
        int64_t begin = offset * bytes, end = begin + laneBytes;
        for (int64_t word = begin / kBankBytes; word <= (end - 1) / kBankBytes;
             ++word)
          words.push_back(word);
      }
      llvm::sort(words);
      perBank.fill(0);
      int64_t worst = 1;
      for (size_t i = 0; i < words.size(); ++i)
        if (i == 0 || words[i] != words[i - 1])
          worst = std::max(worst, ++perBank[words[i] % kBanks]);
      wavefronts += worst;
      ideal += 1;
    }
  return {wavefronts, ideal};
}

/// The elements a lane can move per access: consecutive registers at
/// consecutive offsets, aligned (no other register, lane or warp moves the
/// offset within the vector), up to 16 bytes.
unsigned accessVec(const LinearLayout &toOffset, unsigned bytes) {
  int32_t vec =
      std::min<int32_t>(toOffset.getNumConsecutive(kRegister, kOffset),
                        std::max(1u, kMaxAccessBytes / bytes));
  auto aligned = [&](int32_t vec) {
    for (const LinearLayout::InDim &in : toOffset.getInDims())
      for (auto [bit, basis] : llvm::enumerate(in.bases)) {
        bool inVector = in.name == kRegister && (1 << bit) < vec;
        if (!inVector && (basis[0] & (vec - 1)) != 0)
          return false;
      }
    return true;
  };
  while (vec > 1 && !aligned(vec))
    vec /= 2;
  return vec;
}

/// Rank over GF(2) of a set of bit vectors.
int rankOf(llvm::ArrayRef<uint64_t> vectors) {
  llvm::SmallVector<uint64_t> rows(vectors);
  int rank = 0;
  for (int bit = 63; bit >= 0; --bit) {
    auto pivot = llvm::find_if(llvm::drop_begin(rows, rank), [&](uint64_t row) {
      return row & (uint64_t(1) << bit);
    });
    if (pivot == rows.end())
      continue;
    std::swap(*pivot, rows[rank]);
    for (auto [i, row] : llvm::enumerate(rows))
      if (int(i) != rank && (row & (uint64_t(1) << bit)))
        row ^= rows[rank];
    ++rank;
  }
  return rank;
}

/// Whether the spans of `a` and `b` meet only in 0.
bool meetTrivially(llvm::ArrayRef<uint64_t> a, llvm::ArrayRef<uint64_t> b) {
  llvm::SmallVector<uint64_t> both(a);
  both.append(b.begin(), b.end());
  return rankOf(both) == rankOf(a) + rankOf(b);
}

/// The tensor element (as bits: dim0 lowest) that input bit `bit` of `dim`
/// reaches.
uint64_t tensorBits(const LinearLayout &layout, const char *dim, int bit) {
  uint64_t bits = 0;
  int shift = 0;
  for (const auto &[name, value] : layout.apply({{dim, 1 << bit}})) {
    bits |= uint64_t(value) << shift;
    shift += layout.getOutDimSizeLog2(name);
  }
  return bits;
}

/// The lanes that share a 128-byte wavefront, as tensor vectors, for
/// accesses of `vec` elements of `bytes` bytes.
llvm::SmallVector<uint64_t> phaseLanes(const LinearLayout &layout, unsigned vec,
                                       unsigned bytes) {
  int64_t laneBytes = std::max<int64_t>(kBankBytes, int64_t(vec) * bytes);
  int bits = std::min<int>(llvm::Log2_64(kWavefrontBytes / laneBytes),
                           layout.getInDimSizeLog2(kLane));
  llvm::SmallVector<uint64_t> lanes;
  for (int bit = 0; bit < bits; ++bit)
    lanes.push_back(tensorBits(layout, kLane, bit));
  return lanes;
}

/// A shared layout built as linear algebra: the vector bits of `vectorSide`
/// lowest, then the lanes of both sides in the bank bits, and above them
/// bits that neither side's lanes can reach, so that no two lanes of a
/// wavefront meet in a bank. None when no such choice is found.
std::optional<LinearLayout> bankSpreadingLayout(const LinearLayout &src,
                                                const LinearLayout &dst,
                                                const LinearLayout &vectorSide,
                                                unsigned bytes) {
  llvm::SmallVector<int64_t> shape;
  int n = 0;
  for (const auto &out : src.getOutDims()) {
    shape.push_back(out.size);
    n += llvm::Log2_32(out.size);
  }
  // Offset bits below `bankTop` lie in one 128-byte row of banks.
  int bankTop = std::min<int>(n, llvm::Log2_64(kWavefrontBytes / bytes));
  int vecBits = 0;
  llvm::SmallVector<uint64_t> low;
  int32_t consecutive = 1;
  for (unsigned d = 0; d < shape.size(); ++d)
    consecutive = std::max(consecutive,
                           vectorSide.getNumConsecutive(kRegister, dimName(d)));
  consecutive =
      std::min<int32_t>(consecutive, std::max(1u, kMaxAccessBytes / bytes));
  for (; (1 << vecBits) < consecutive; ++vecBits)
    low.push_back(tensorBits(vectorSide, kRegister, vecBits));
  unsigned srcVec = &vectorSide == &src ? consecutive : 1;
  unsigned dstVec = &vectorSide == &dst ? consecutive : 1;
  // For each side: the lanes of a wavefront and the offset bits below its
  // bank bits (within what one lane reads or writes, or within one word).
  struct Side {
    llvm::SmallVector<uint64_t> lanes, below;
  };
  auto sideOf = [&](const LinearLayout &layout, unsigned vec) {
    Side side{phaseLanes(layout, vec, bytes), {}};
    int64_t accessBytes = std::max<int64_t>(kBankBytes, int64_t(vec) * bytes);
    int lo = llvm::Log2_64(std::max<int64_t>(1, accessBytes / bytes));
    side.below.assign(low.begin(), low.begin() + std::min(lo, vecBits));
    return side;
  };
  Side sides[] = {sideOf(src, srcVec), sideOf(dst, dstVec)};
  // High bits: grow a complement such that two lanes of a wavefront differ
  // in their bank bits unless they touch the same word.
  llvm::SmallVector<uint64_t> high;
  auto fits = [&](uint64_t candidate) {
    llvm::SmallVector<uint64_t> outside(low);
    outside.append(high.begin(), high.end());
    outside.push_back(candidate);
    if (rankOf(outside) != int(outside.size()))
      return false;
    llvm::SmallVector<uint64_t> highs(high);
    highs.push_back(candidate);
    for (const Side &side : sides) {
      llvm::SmallVector<uint64_t> reach(side.below);
      reach.append(side.lanes.begin(), side.lanes.end());
      if (!meetTrivially(reach, highs))
        return false;
    }
    return true;
  };
  for (int i = n; i-- > 0 && int(high.size()) < n - bankTop;)
    if (fits(uint64_t(1) << i))
      high.push_back(uint64_t(1) << i);
  for (int i = n; i-- > 0 && int(high.size()) < n - bankTop;)
    for (int j = i; j-- > 0 && int(high.size()) < n - bankTop;)
      if (fits((uint64_t(1) << i) | (uint64_t(1) << j)))
        high.push_back((uint64_t(1) << i) | (uint64_t(1) << j));
  if (int(high.size()) != n - bankTop)
    return std::nullopt;
  // Bank bits: the lanes of both sides, then whatever completes a basis.
  llvm::SmallVector<uint64_t> basis(low);
  auto add = [&](uint64_t v) {
    if (int(basis.size()) >= bankTop)
      return;
    llvm::SmallVector<uint64_t> trial(basis);
    trial.append(high.begin(), high.end());
    trial.push_back(v);
    if (rankOf(trial) == int(trial.size()))
      basis.push_back(v);
  };
  for (const Side &side : sides)
    for (uint64_t v : side.lanes)
      add(v);
  for (int i = 0; i < n; ++i)
    add(uint64_t(1) << i);
  basis.append(high.begin(), high.end());
  if (int(basis.size()) != n)
    return std::nullopt;
  // Offset bit i stores tensor element basis[i].
  std::vector<LinearLayout::InDim> ins{{kOffset, {}}};
  for (uint64_t v : basis) {
    std::vector<int32_t> coords;
    for (int64_t size : shape) {
      coords.push_back(v & (size - 1));
      v >>= llvm::Log2_64(size);
    }
    ins[0].bases.push_back(std::move(coords));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (auto [d, size] : llvm::enumerate(shape))
    outs.push_back({dimName(d), static_cast<int32_t>(size)});
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

/// hardware -> offset, for one warp of one block.
LinearLayout toOffsets(const LinearLayout &hw, const LinearLayout &sharedInv) {
  return hw.sublayout({kRegister, kLane}, hw.getOutDimNames())
      .compose(sharedInv);
}
} // namespace

BankTraffic mlir::tile::measureBankTraffic(const LinearLayout &src,
                                           const LinearLayout &dst,
                                           const LinearLayout &shared,
                                           unsigned elementBitWidth) {
  unsigned bytes = std::max(1u, elementBitWidth / 8);
  LinearLayout sharedInv = *shared.invert();
  LinearLayout storeMap = toOffsets(src, sharedInv);
  LinearLayout loadMap = toOffsets(dst, sharedInv);
  BankTraffic traffic;
  traffic.storeVec = accessVec(storeMap, bytes);
  traffic.loadVec = accessVec(loadMap, bytes);
  std::tie(traffic.storeWavefronts, traffic.idealStoreWavefronts) =
      countWavefronts(storeMap, traffic.storeVec, bytes);
  std::tie(traffic.loadWavefronts, traffic.idealLoadWavefronts) =
      countWavefronts(loadMap, traffic.loadVec, bytes);
  return traffic;
}

std::optional<ConversionPlan>
mlir::tile::planConversion(const LinearLayout &src, const LinearLayout &dst,
                           unsigned elementBitWidth) {
  std::optional<LinearLayout> dstToSrc = dst.invertAndCompose(src);
  if (!dstToSrc)
    return std::nullopt;
  ConversionPlan plan;
  plan.dstToSrc = *dstToSrc;
  const LinearLayout &map = plan.dstToSrc;
  bool sameWarps = keepsDimension(map, kWarp) && keepsDimension(map, kBlock) &&
                   staysOff(map, {kRegister, kLane}, kWarp) &&
                   staysOff(map, {kRegister, kLane}, kBlock);
  if (src == dst) {
    plan.kind = ConversionKind::NoOp;
    return plan;
  }
  if (sameWarps && keepsDimension(map, kLane) &&
      staysOff(map, {kRegister}, kLane)) {
    plan.kind = ConversionKind::RegisterPermutation;
    return plan;
  }
  if (sameWarps) {
    plan.kind = ConversionKind::WarpShuffle;
    return plan;
  }

  // Through shared memory: try the swizzles that make sense for the shape
  // and keep the one with the least bank traffic.
  plan.kind = ConversionKind::SharedMemory;
  unsigned bytes = std::max(1u, elementBitWidth / 8);
  plan.sharedBytes = src.getTotalOutDimSize() * bytes;
  llvm::SmallVector<int64_t> shape;
  for (const auto &out : src.getOutDims())
    shape.push_back(out.size);
  unsigned rank = shape.size();
  // Contiguous along the dimension the source or the destination vectorises.
  std::vector<llvm::SmallVector<unsigned>> orders;
  for (const LinearLayout *layout : {&src, &dst}) {
    unsigned fast = rank - 1;
    for (unsigned d = 0; d < rank; ++d)
      if (layout->getNumConsecutive(kRegister, dimName(d)) > 1)
        fast = d;
    llvm::SmallVector<unsigned> order{fast};
    for (unsigned d = rank; d-- > 0;)
      if (d != fast)
        order.push_back(d);
    if (!llvm::is_contained(orders, order))
      orders.push_back(order);
  }
  bool found = false;
  std::pair<int64_t, int64_t> best;
  auto consider = [&](const LinearLayout &shared,
                      std::optional<ConversionPlan::Swizzle> swizzle) {
    BankTraffic traffic = measureBankTraffic(src, dst, shared, elementBitWidth);
    // Fewest wavefronts, then fewest accesses.
    int64_t registers = src.getInDimSize(kRegister);
    std::pair<int64_t, int64_t> cost{
        traffic.storeWavefronts + traffic.loadWavefronts,
        registers / traffic.storeVec + registers / traffic.loadVec};
    if (found && cost >= best)
      return;
    found = true;
    best = cost;
    plan.shared = shared;
    plan.traffic = traffic;
    plan.swizzle = std::move(swizzle);
  };
  for (const auto &order : orders) {
    int64_t cols = shape[order[0]], rows = rank > 1 ? shape[order[1]] : 1;
    for (unsigned vec = 1; vec <= cols; vec *= 2)
      for (unsigned perPhase = 1; perPhase <= rows; perPhase *= 2)
        for (unsigned maxPhase = 1;
             maxPhase <= std::min<int64_t>(rows / perPhase, cols / vec);
             maxPhase *= 2)
          consider(swizzledSharedLayout(shape, vec, perPhase, maxPhase, order),
                   ConversionPlan::Swizzle{vec, perPhase, maxPhase, order});
  }
  // Where no XOR swizzle serves both sides, build one from their lanes.
  if (!plan.traffic.isConflictFree())
    for (const LinearLayout *side : {&src, &dst})
      if (auto shared = bankSpreadingLayout(src, dst, *side, bytes))
        consider(*shared, std::nullopt);
  return plan;
}
