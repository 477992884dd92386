//===- LinearLayout.h - layouts as linear maps over GF(2) -----------------===//
//
// A LinearLayout maps named input dimensions (hardware: register, lane, warp,
// block; or a shared-memory offset) to named output dimensions (tensor dims).
// Every size is a power of two and the map is linear over GF(2): the image of
// an input is the XOR of the images of its set bits, so a layout is defined
// by the images of the input bases. Layout conversion, vector widths and
// shared-memory swizzles are all questions of linear algebra on these maps
// (Zhou et al., "Linear Layouts", 2025).
//
// This file depends on LLVM's ADT only, not on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_IR_LAYOUT_LINEARLAYOUT_H
#define TESSERA_IR_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace mlir::tile {

class LinearLayout {
public:
  /// The images of one input dimension's bases: `bases[i][j]` is the value of
  /// output dimension j for the input `1 << i`.
  using Bases = std::vector<std::vector<int32_t>>;
  struct InDim {
    std::string name;
    Bases bases;
  };
  struct OutDim {
    std::string name;
    int32_t size;
  };
  /// A value for each named dimension, as `apply` takes and returns.
  using Point = llvm::SmallVector<std::pair<std::string, int32_t>, 4>;

  /// The empty layout: no dimensions; it maps the single point to itself.
  LinearLayout() = default;

  /// Builds a layout, checking that every size is a power of two, that each
  /// basis has one value per output dimension and fits in its size.
  static llvm::Expected<LinearLayout> create(std::vector<InDim> ins,
                                             std::vector<OutDim> outs);
  /// The same, with each output size the smallest power of two that holds
  /// every basis image.
  static llvm::Expected<LinearLayout>
  createWithMinimalOuts(std::vector<InDim> ins,
                        llvm::ArrayRef<std::string> outNames);

  /// in -> out, i -> i, over `size` elements.
  static LinearLayout identity1D(int32_t size, llvm::StringRef in,
                                 llvm::StringRef out);
  /// in -> out, i -> i * stride; the output has size * stride elements.
  static LinearLayout strided1D(int32_t size, int32_t stride,
                                llvm::StringRef in, llvm::StringRef out);
  /// Every input to 0 of an output of `outSize`: `size` copies of one value.
  static LinearLayout zeros1D(int32_t size, llvm::StringRef in,
                              llvm::StringRef out, int32_t outSize = 1);

  // Dimensions.
  unsigned getNumInDims() const { return ins.size(); }
  unsigned getNumOutDims() const { return outs.size(); }
  llvm::ArrayRef<InDim> getInDims() const { return ins; }
  llvm::ArrayRef<OutDim> getOutDims() const { return outs; }
  llvm::SmallVector<std::string> getInDimNames() const;
  llvm::SmallVector<std::string> getOutDimNames() const;
  bool hasInDim(llvm::StringRef name) const;
  bool hasOutDim(llvm::StringRef name) const;
  /// Sizes; a dimension the layout does not have has size 1.
  int32_t getInDimSize(llvm::StringRef name) const;
  int32_t getInDimSizeLog2(llvm::StringRef name) const;
  int32_t getOutDimSize(llvm::StringRef name) const;
  int32_t getOutDimSizeLog2(llvm::StringRef name) const;
  int64_t getTotalInDimSize() const;
  int64_t getTotalOutDimSize() const;
  /// The image of input `1 << bit` of `inDim`, one value per output dim.
  llvm::ArrayRef<int32_t> getBasis(llvm::StringRef inDim, int bit) const;

  /// The output for an input: one value per input dimension, in any order
  /// (missing dimensions are 0). Returns one value per output dimension.
  Point apply(llvm::ArrayRef<std::pair<std::string, int32_t>> input) const;

  /// The product `this * outer`: `outer` repeats `this`. Input and output
  /// dimensions are the union (this's first); a dimension both have gets
  /// this's bits as its low bits and outer's above them.
  LinearLayout operator*(const LinearLayout &outer) const;

  /// `outer(this(x))`. This's outputs must be outer's inputs, by name and
  /// with sizes no larger than outer's.
  LinearLayout compose(const LinearLayout &outer) const;

  /// The map C from this's inputs to outer's inputs with
  /// `outer(C(x)) == this(x)`: the heart of layout conversion, where C says
  /// which hardware location of `outer` holds what a location of `this`
  /// needs. Both have the same output dimensions. Where `outer` holds an
  /// element in several places, C picks the one with its free variables 0.
  /// Fails when some element of this is nowhere in outer.
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &outer) const;

  /// The inverse map, from the outputs to the inputs; fails unless the layout
  /// is bijective.
  std::optional<LinearLayout> invert() const;

  /// The same map with the dimensions listed in another order (a
  /// permutation of the current names).
  LinearLayout transposeIns(llvm::ArrayRef<std::string> order) const;
  LinearLayout transposeOuts(llvm::ArrayRef<std::string> order) const;

  /// The same map with the input (output) bits regrouped into new
  /// dimensions: the bits of all dimensions in order, low bits first, are
  /// split among `dims` in order. Total sizes must match.
  LinearLayout
  reshapeIns(llvm::ArrayRef<std::pair<std::string, int32_t>> dims) const;
  LinearLayout
  reshapeOuts(llvm::ArrayRef<std::pair<std::string, int32_t>> dims) const;

  /// The restriction to some input dimensions (the others fixed at 0),
  /// projected on some output dimensions; both lists keep this's order.
  LinearLayout sublayout(llvm::ArrayRef<std::string> inNames,
                         llvm::ArrayRef<std::string> outNames) const;
  /// Whether the sublayout maps everything to 0.
  bool sublayoutIsZero(llvm::ArrayRef<std::string> inNames,
                       llvm::ArrayRef<std::string> outNames) const;

  /// For each input dimension, the mask of its bits that are free variables:
  /// bits whose image is a combination of earlier bits' (in dimension order,
  /// low bits first). Flipping them reaches an element held elsewhere too:
  /// broadcast or duplicated data. Zero for an injective layout.
  llvm::SmallVector<std::pair<std::string, int32_t>>
  getFreeVariableMasks() const;

  /// How many consecutive values of `inDim`, from 0, map to consecutive
  /// values of `outDim` and to 0 in the other outputs: the vector width of a
  /// thread's registers along a tensor dimension.
  int32_t getNumConsecutive(llvm::StringRef inDim,
                            llvm::StringRef outDim) const;

  /// Rank of the map as a matrix over GF(2).
  int32_t getRank() const;
  bool isSurjective() const;
  bool isInjective() const;
  bool isInvertible() const { return isSurjective() && isInjective(); }

  /// Same dimensions in the same order, same sizes, same images.
  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }

  /// Prints `- register is a size 4 dimension...`-style lines:
  ///   register=1 -> (0, 1)
  /// one per basis, then the output dimensions.
  void print(llvm::raw_ostream &os) const;
  std::string toString() const;

private:
  LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs)
      : ins(std::move(ins)), outs(std::move(outs)) {}

  /// `ins` with each basis keeping the values of the outputs at
  /// `outIndices`, in that order.
  static std::vector<InDim> projectBases(llvm::ArrayRef<InDim> ins,
                                         llvm::ArrayRef<int> outIndices);
  int findIn(llvm::StringRef name) const;
  int findOut(llvm::StringRef name) const;
  int32_t totalOutBits() const;
  /// Each input bit's image as a bit vector of all output bits (outputs in
  /// order, low bits first), inputs in order, low bits first.
  std::vector<uint64_t> columns() const;
  /// Splits an output bit vector into one value per output dimension.
  std::vector<int32_t> unflattenOut(uint64_t bits) const;

  std::vector<InDim> ins;
  std::vector<OutDim> outs;
};

llvm::hash_code hash_value(const LinearLayout &layout);

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const LinearLayout &layout) {
  layout.print(os);
  return os;
}

} // namespace mlir::tile

#endif // TESSERA_IR_LAYOUT_LINEARLAYOUT_H
