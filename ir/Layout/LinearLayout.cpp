//===- LinearLayout.cpp - layouts as linear maps over GF(2) ---------------===//

#include "ir/Layout/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <map>

using namespace mlir::tile;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {
llvm::Error layoutError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Row reduction over GF(2). Vectors are added in order; each either becomes
/// a new pivot or is a combination of earlier ones.
class Echelon {
public:
  /// Adds `vec` (tagged with `combo`, a bit of its own); returns whether it
  /// was independent of the vectors added before.
  bool add(uint64_t vec, uint64_t combo) {
    reduce(vec, combo);
    if (vec == 0)
      return false;
    pivots[llvm::Log2_64(vec)] = {vec, combo};
    return true;
  }
  /// The combination of added vectors whose sum is `target`, if any; only
  /// independent vectors take part.
  std::optional<uint64_t> solve(uint64_t target) const {
    uint64_t combo = 0;
    reduce(target, combo);
    if (target != 0)
      return std::nullopt;
    return combo;
  }
  int32_t rank() const { return pivots.size(); }

private:
  void reduce(uint64_t &vec, uint64_t &combo) const {
    for (auto it = pivots.rbegin(); it != pivots.rend(); ++it)
      if (vec & (uint64_t(1) << it->first)) {
        vec ^= it->second.first;
        combo ^= it->second.second;
      }
  }
  // Leading bit -> (vector, combination of inputs that gives it).
  std::map<int, std::pair<uint64_t, uint64_t>> pivots;
};
} // namespace

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

llvm::Expected<LinearLayout> LinearLayout::create(std::vector<InDim> ins,
                                                  std::vector<OutDim> outs) {
  int64_t outBits = 0;
  for (const OutDim &out : outs) {
    if (out.size <= 0 || !llvm::isPowerOf2_32(out.size))
      return layoutError("output dimension '" + out.name + "' has size " +
                         llvm::Twine(out.size) +
                         ", which is not a power of two");
    outBits += llvm::Log2_32(out.size);
  }
  if (outBits > 64)
    return layoutError("output dimensions have more than 2^64 elements");
  int64_t inBits = 0;
  for (const InDim &in : ins) {
    inBits += in.bases.size();
    for (auto [bit, basis] : llvm::enumerate(in.bases)) {
      if (basis.size() != outs.size())
        return layoutError("basis " + llvm::Twine(bit) + " of '" + in.name +
                           "' has " + llvm::Twine(basis.size()) +
                           " values but there are " + llvm::Twine(outs.size()) +
                           " output dimensions");
      for (auto [j, value] : llvm::enumerate(basis))
        if (value < 0 || value >= outs[j].size)
          return layoutError("basis " + llvm::Twine(bit) + " of '" + in.name +
                             "' maps to " + llvm::Twine(value) + " in '" +
                             outs[j].name + "', outside its size " +
                             llvm::Twine(outs[j].size));
    }
  }
  if (inBits > 64)
    return layoutError("input dimensions have more than 2^64 elements");
  return LinearLayout(std::move(ins), std::move(outs));
}

llvm::Expected<LinearLayout>
LinearLayout::createWithMinimalOuts(std::vector<InDim> ins,
                                    ArrayRef<std::string> outNames) {
  std::vector<OutDim> outs;
  for (auto [j, name] : llvm::enumerate(outNames)) {
    int32_t size = 1;
    for (const InDim &in : ins)
      for (const auto &basis : in.bases)
        if (j < basis.size() && basis[j] >= size)
          size = llvm::NextPowerOf2(basis[j]);
    outs.push_back({name, size});
  }
  return create(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::identity1D(int32_t size, StringRef in,
                                      StringRef out) {
  return strided1D(size, 1, in, out);
}

LinearLayout LinearLayout::strided1D(int32_t size, int32_t stride, StringRef in,
                                     StringRef out) {
  assert(llvm::isPowerOf2_32(size) && llvm::isPowerOf2_32(stride));
  Bases bases;
  for (int32_t i = 1; i < size; i *= 2)
    bases.push_back({i * stride});
  return LinearLayout({{in.str(), std::move(bases)}},
                      {{out.str(), size * stride}});
}

LinearLayout LinearLayout::zeros1D(int32_t size, StringRef in, StringRef out,
                                   int32_t outSize) {
  assert(llvm::isPowerOf2_32(size) && llvm::isPowerOf2_32(outSize));
  Bases bases(llvm::Log2_32(size), std::vector<int32_t>{0});
  return LinearLayout({{in.str(), std::move(bases)}}, {{out.str(), outSize}});
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

int LinearLayout::findIn(StringRef name) const {
  for (auto [i, in] : llvm::enumerate(ins))
    if (in.name == name)
      return i;
  return -1;
}

int LinearLayout::findOut(StringRef name) const {
  for (auto [i, out] : llvm::enumerate(outs))
    if (out.name == name)
      return i;
  return -1;
}

llvm::SmallVector<std::string> LinearLayout::getInDimNames() const {
  llvm::SmallVector<std::string> names;
  for (const InDim &in : ins)
    names.push_back(in.name);
  return names;
}

llvm::SmallVector<std::string> LinearLayout::getOutDimNames() const {
  llvm::SmallVector<std::string> names;
  for (const OutDim &out : outs)
    names.push_back(out.name);
  return names;
}

bool LinearLayout::hasInDim(StringRef name) const { return findIn(name) >= 0; }
bool LinearLayout::hasOutDim(StringRef name) const {
  return findOut(name) >= 0;
}

int32_t LinearLayout::getInDimSizeLog2(StringRef name) const {
  int i = findIn(name);
  return i < 0 ? 0 : ins[i].bases.size();
}

int32_t LinearLayout::getInDimSize(StringRef name) const {
  return int32_t(1) << getInDimSizeLog2(name);
}

int32_t LinearLayout::getOutDimSize(StringRef name) const {
  int i = findOut(name);
  return i < 0 ? 1 : outs[i].size;
}

int32_t LinearLayout::getOutDimSizeLog2(StringRef name) const {
  return llvm::Log2_32(getOutDimSize(name));
}

int64_t LinearLayout::getTotalInDimSize() const {
  int64_t size = 1;
  for (const InDim &in : ins)
    size <<= in.bases.size();
  return size;
}

int64_t LinearLayout::getTotalOutDimSize() const {
  int64_t size = 1;
  for (const OutDim &out : outs)
    size *= out.size;
  return size;
}

ArrayRef<int32_t> LinearLayout::getBasis(StringRef inDim, int bit) const {
  int i = findIn(inDim);
  assert(i >= 0 && bit < static_cast<int>(ins[i].bases.size()));
  return ins[i].bases[bit];
}

int32_t LinearLayout::totalOutBits() const {
  int32_t bits = 0;
  for (const OutDim &out : outs)
    bits += llvm::Log2_32(out.size);
  return bits;
}

std::vector<uint64_t> LinearLayout::columns() const {
  std::vector<uint64_t> cols;
  for (const InDim &in : ins)
    for (const auto &basis : in.bases) {
      uint64_t col = 0;
      int shift = 0;
      for (auto [j, out] : llvm::enumerate(outs)) {
        col |= uint64_t(basis[j]) << shift;
        shift += llvm::Log2_32(out.size);
      }
      cols.push_back(col);
    }
  return cols;
}

std::vector<int32_t> LinearLayout::unflattenOut(uint64_t bits) const {
  std::vector<int32_t> values;
  for (const OutDim &out : outs) {
    values.push_back(bits & (out.size - 1));
    bits >>= llvm::Log2_32(out.size);
  }
  return values;
}

LinearLayout::Point
LinearLayout::apply(ArrayRef<std::pair<std::string, int32_t>> input) const {
  std::vector<int32_t> result(outs.size(), 0);
  for (const auto &[name, value] : input) {
    int i = findIn(name);
    assert((i >= 0 || value == 0) && "applying to an unknown input dimension");
    if (i < 0)
      continue;
    assert(value >= 0 && value < getInDimSize(name) && "input out of range");
    for (auto [bit, basis] : llvm::enumerate(ins[i].bases))
      if (value & (1 << bit))
        for (auto [j, v] : llvm::enumerate(basis))
          result[j] ^= v;
  }
  Point point;
  for (auto [j, out] : llvm::enumerate(outs))
    point.push_back({out.name, result[j]});
  return point;
}

int32_t LinearLayout::getRank() const {
  Echelon echelon;
  for (uint64_t col : columns())
    echelon.add(col, 0);
  return echelon.rank();
}

bool LinearLayout::isSurjective() const { return getRank() == totalOutBits(); }

bool LinearLayout::isInjective() const {
  return getRank() == static_cast<int32_t>(columns().size());
}

llvm::SmallVector<std::pair<std::string, int32_t>>
LinearLayout::getFreeVariableMasks() const {
  // All input bits, in order, against one echelon form.
  Echelon echelon;
  std::vector<uint64_t> cols = columns();
  llvm::SmallVector<std::pair<std::string, int32_t>> masks;
  size_t k = 0;
  for (const InDim &in : ins) {
    int32_t mask = 0;
    for (size_t bit = 0; bit < in.bases.size(); ++bit)
      if (!echelon.add(cols[k++], 0))
        mask |= 1 << bit;
    masks.push_back({in.name, mask});
  }
  return masks;
}

int32_t LinearLayout::getNumConsecutive(StringRef inDim,
                                        StringRef outDim) const {
  int i = findIn(inDim), o = findOut(outDim);
  if (i < 0 || o < 0)
    return 1;
  int32_t count = 1;
  for (auto [bit, basis] : llvm::enumerate(ins[i].bases)) {
    for (auto [j, value] : llvm::enumerate(basis))
      if (value != (static_cast<int>(j) == o ? (1 << bit) : 0))
        return count;
    count *= 2;
  }
  return count;
}

bool LinearLayout::operator==(const LinearLayout &other) const {
  if (ins.size() != other.ins.size() || outs.size() != other.outs.size())
    return false;
  for (auto [a, b] : llvm::zip(ins, other.ins))
    if (a.name != b.name || a.bases != b.bases)
      return false;
  for (auto [a, b] : llvm::zip(outs, other.outs))
    if (a.name != b.name || a.size != b.size)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::operator*(const LinearLayout &outer) const {
  std::vector<OutDim> newOuts = outs;
  for (const OutDim &out : outer.outs) {
    int j = findOut(out.name);
    if (j < 0)
      newOuts.push_back(out);
    else
      newOuts[j].size *= out.size;
  }
  // Rewrites a basis of `from` (an operand) for the product's outputs; the
  // outer operand's values sit above this's in shared dimensions.
  auto remap = [&](const LinearLayout &from, const std::vector<int32_t> &basis,
                   bool isOuter) {
    std::vector<int32_t> result(newOuts.size(), 0);
    for (auto [j, out] : llvm::enumerate(from.outs)) {
      int k = 0;
      while (newOuts[k].name != out.name)
        ++k;
      int32_t shift = isOuter ? getOutDimSize(out.name) : 1;
      result[k] = basis[j] * shift;
    }
    return result;
  };
  std::vector<InDim> newIns;
  for (const InDim &in : ins) {
    InDim dim{in.name, {}};
    for (const auto &basis : in.bases)
      dim.bases.push_back(remap(*this, basis, false));
    newIns.push_back(std::move(dim));
  }
  for (const InDim &in : outer.ins) {
    int i = findIn(in.name);
    if (i < 0) {
      newIns.push_back({in.name, {}});
      i = newIns.size() - 1;
    }
    for (const auto &basis : in.bases)
      newIns[i].bases.push_back(remap(outer, basis, true));
  }
  return cantFail(create(std::move(newIns), std::move(newOuts)));
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  std::vector<InDim> newIns;
  for (const InDim &in : ins) {
    InDim dim{in.name, {}};
    for (const auto &basis : in.bases) {
      Point point;
      for (auto [j, out] : llvm::enumerate(outs)) {
        assert(outer.hasInDim(out.name) &&
               out.size <= outer.getInDimSize(out.name) &&
               "compose: outputs must be inputs of the outer layout");
        point.push_back({out.name, basis[j]});
      }
      std::vector<int32_t> image;
      for (const auto &[name, value] : outer.apply(point))
        image.push_back(value);
      dim.bases.push_back(std::move(image));
    }
    newIns.push_back(std::move(dim));
  }
  return cantFail(create(std::move(newIns), outer.outs));
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &outer) const {
  // Both flatten their outputs the same way once this's are in outer's order.
  if (outs.size() != outer.outs.size())
    return std::nullopt;
  for (const OutDim &out : outer.outs)
    if (getOutDimSize(out.name) != out.size || !hasOutDim(out.name))
      return std::nullopt;
  LinearLayout self = transposeOuts(outer.getOutDimNames());

  Echelon echelon;
  std::vector<uint64_t> outerCols = outer.columns();
  for (auto [k, col] : llvm::enumerate(outerCols))
    echelon.add(col, uint64_t(1) << k);

  std::vector<InDim> newIns;
  std::vector<uint64_t> selfCols = self.columns();
  size_t k = 0;
  for (const InDim &in : self.ins) {
    InDim dim{in.name, {}};
    for (size_t bit = 0; bit < in.bases.size(); ++bit, ++k) {
      std::optional<uint64_t> combo = echelon.solve(selfCols[k]);
      if (!combo)
        return std::nullopt;
      // The combination names input bits of outer; turn it into values.
      std::vector<int32_t> image(outer.ins.size(), 0);
      size_t c = 0;
      for (auto [i, outerIn] : llvm::enumerate(outer.ins))
        for (size_t b = 0; b < outerIn.bases.size(); ++b, ++c)
          if (*combo & (uint64_t(1) << c))
            image[i] |= 1 << b;
      dim.bases.push_back(std::move(image));
    }
    newIns.push_back(std::move(dim));
  }
  std::vector<OutDim> newOuts;
  for (const InDim &in : outer.ins)
    newOuts.push_back({in.name, outer.getInDimSize(in.name)});
  return cantFail(create(std::move(newIns), std::move(newOuts)));
}

std::optional<LinearLayout> LinearLayout::invert() const {
  if (!isInvertible())
    return std::nullopt;
  LinearLayout identity;
  for (const OutDim &out : outs)
    identity = identity * identity1D(out.size, out.name, out.name);
  return identity.invertAndCompose(*this);
}

LinearLayout LinearLayout::transposeIns(ArrayRef<std::string> order) const {
  assert(order.size() == ins.size() && "transposeIns needs a permutation");
  std::vector<InDim> newIns;
  for (const std::string &name : order) {
    int i = findIn(name);
    assert(i >= 0 && "transposeIns: unknown input dimension");
    newIns.push_back(ins[i]);
  }
  return LinearLayout(std::move(newIns), outs);
}

LinearLayout LinearLayout::transposeOuts(ArrayRef<std::string> order) const {
  assert(order.size() == outs.size() && "transposeOuts needs a permutation");
  std::vector<int> perm;
  std::vector<OutDim> newOuts;
  for (const std::string &name : order) {
    int j = findOut(name);
    assert(j >= 0 && "transposeOuts: unknown output dimension");
    perm.push_back(j);
    newOuts.push_back(outs[j]);
  }
  return LinearLayout(projectBases(ins, perm), std::move(newOuts));
}

std::vector<LinearLayout::InDim>
LinearLayout::projectBases(ArrayRef<InDim> ins, ArrayRef<int> outIndices) {
  std::vector<InDim> projected;
  for (const InDim &in : ins) {
    InDim dim{in.name, {}};
    for (const auto &basis : in.bases) {
      std::vector<int32_t> values;
      for (int j : outIndices)
        values.push_back(basis[j]);
      dim.bases.push_back(std::move(values));
    }
    projected.push_back(std::move(dim));
  }
  return projected;
}

LinearLayout
LinearLayout::reshapeIns(ArrayRef<std::pair<std::string, int32_t>> dims) const {
  std::vector<std::vector<int32_t>> allBases;
  for (const InDim &in : ins)
    for (const auto &basis : in.bases)
      allBases.push_back(basis);
  std::vector<InDim> newIns;
  size_t next = 0;
  for (const auto &[name, size] : dims) {
    assert(llvm::isPowerOf2_32(size));
    InDim dim{name, {}};
    for (int32_t i = 1; i < size; i *= 2) {
      assert(next < allBases.size() && "reshapeIns: sizes do not match");
      dim.bases.push_back(allBases[next++]);
    }
    newIns.push_back(std::move(dim));
  }
  assert(next == allBases.size() && "reshapeIns: sizes do not match");
  return LinearLayout(std::move(newIns), outs);
}

LinearLayout LinearLayout::reshapeOuts(
    ArrayRef<std::pair<std::string, int32_t>> dims) const {
  std::vector<OutDim> newOuts;
  int64_t total = 1;
  for (const auto &[name, size] : dims) {
    newOuts.push_back({name, size});
    total *= size;
  }
  assert(total == getTotalOutDimSize() && "reshapeOuts: sizes do not match");
  LinearLayout shaped({}, newOuts);
  std::vector<uint64_t> cols = columns();
  std::vector<InDim> newIns;
  size_t k = 0;
  for (const InDim &in : ins) {
    InDim dim{in.name, {}};
    for (size_t bit = 0; bit < in.bases.size(); ++bit)
      dim.bases.push_back(shaped.unflattenOut(cols[k++]));
    newIns.push_back(std::move(dim));
  }
  return LinearLayout(std::move(newIns), std::move(newOuts));
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> inNames,
                                     ArrayRef<std::string> outNames) const {
  std::vector<int> keptOuts;
  std::vector<OutDim> newOuts;
  for (auto [j, out] : llvm::enumerate(outs))
    if (llvm::is_contained(outNames, out.name)) {
      keptOuts.push_back(j);
      newOuts.push_back(out);
    }
  std::vector<InDim> keptIns;
  for (const InDim &in : ins)
    if (llvm::is_contained(inNames, in.name))
      keptIns.push_back(in);
  return LinearLayout(projectBases(keptIns, keptOuts), std::move(newOuts));
}

bool LinearLayout::sublayoutIsZero(ArrayRef<std::string> inNames,
                                   ArrayRef<std::string> outNames) const {
  LinearLayout sub = sublayout(inNames, outNames);
  for (const InDim &in : sub.ins)
    for (const auto &basis : in.bases)
      if (llvm::any_of(basis, [](int32_t v) { return v != 0; }))
        return false;
  return true;
}

llvm::hash_code mlir::tile::hash_value(const LinearLayout &layout) {
  llvm::hash_code hash = llvm::hash_value(layout.getNumInDims());
  for (const LinearLayout::InDim &in : layout.getInDims()) {
    hash = llvm::hash_combine(hash, in.name);
    for (const auto &basis : in.bases)
      hash = llvm::hash_combine(
          hash, llvm::hash_combine_range(basis.begin(), basis.end()));
  }
  for (const LinearLayout::OutDim &out : layout.getOutDims())
    hash = llvm::hash_combine(hash, out.name, out.size);
  return hash;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

void LinearLayout::print(llvm::raw_ostream &os) const {
  for (const InDim &in : ins)
    for (auto [bit, basis] : llvm::enumerate(in.bases)) {
      os << " - " << in.name << "=" << (1 << bit) << " -> (";
      llvm::interleaveComma(basis, os);
      os << ")\n";
    }
  os << "where out dims are: [";
  llvm::interleaveComma(outs, os, [&](const OutDim &out) {
    os << out.name << " (size " << out.size << ")";
  });
  os << "]";
}

std::string LinearLayout::toString() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}
