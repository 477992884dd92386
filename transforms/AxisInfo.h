//===- AxisInfo.h - contiguity, divisibility and constancy of tensors -----===//
//
// The axis analysis tells, for every integer and pointer value and each of its
// dimensions, how many consecutive elements form a run of consecutive values
// (contiguity), the largest power of two dividing the first element of each
// such run (divisibility; in bytes for pointers), and how many consecutive
// elements are equal (constancy). Backends choose vector widths from it: a
// load through pointers with contiguity 4 and divisibility 16 along the fast
// dimension can be one 16-byte access.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TRANSFORMS_AXISINFO_H
#define TESSERA_TRANSFORMS_AXISINFO_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace mlir::tile {

/// The lattice element of the axis analysis. Scalars have rank 1 and size 1.
/// A default-constructed AxisInfo (rank 0) is "not yet known".
class AxisInfo {
public:
  using DimVector = SmallVector<int64_t, 4>;

  /// The divisibility claimed for zero, and the cap on any divisibility.
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constantValue = std::nullopt);

  /// What holds for any value of `value`'s type (every dimension 1), refined
  /// by `tile.divisibility`, `tile.contiguity` and `tile.constancy` attributes
  /// on a function argument.
  static AxisInfo getPessimisticValueState(Value value);

  /// The info of `value` equal to `constant` in every element of `shape`.
  static AxisInfo getSplat(ArrayRef<int64_t> shape, int64_t constant);

  /// The largest power of two dividing `value`, up to kMaxDivisibility.
  static int64_t highestPowerOf2Divisor(int64_t value);

  /// The most precise info that holds for both (the lattice meet).
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool isInitialized() const { return !contiguity.empty(); }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned dim) const { return contiguity[dim]; }
  int64_t getDivisibility(unsigned dim) const { return divisibility[dim]; }
  int64_t getConstancy(unsigned dim) const { return constancy[dim]; }
  const DimVector &getContiguity() const { return contiguity; }
  const DimVector &getDivisibility() const { return divisibility; }
  const DimVector &getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constantValue; }

  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity &&
           divisibility == other.divisibility && constancy == other.constancy &&
           constantValue == other.constantValue;
  }

  void print(raw_ostream &os) const;

private:
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;
};

/// How many consecutive elements along `dim` can be accessed as one aligned
/// vector through pointers with this info: they are contiguous, and the
/// address of each run's first element is aligned to the whole run. This is
/// the `contiguity` a backend gives BlockedLayoutAttr::getDefault.
int64_t getAlignedContiguity(const AxisInfo &pointers, unsigned dim,
                             unsigned elementBytes);

/// Runs the axis analysis over `root` (a module or a function) and answers
/// queries about the values inside it.
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(Operation *root);
  ~AxisInfoAnalysis();

  /// The info of `value`, or null when the analysis did not reach it (dead
  /// code).
  const AxisInfo *lookup(Value value) const;

private:
  std::unique_ptr<DataFlowSolver> solver;
};

} // namespace mlir::tile

#endif // TESSERA_TRANSFORMS_AXISINFO_H
