//===- AxisInfo.cpp - contiguity, divisibility and constancy of tensors ---===//

#include "transforms/AxisInfo.h"

#include "ir/Tile/TileOps.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

#define DEBUG_TYPE "axis-info"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constantValue)
    : contiguity(std::move(contiguity)), divisibility(std::move(divisibility)),
      constancy(std::move(constancy)), constantValue(constantValue) {
  assert(this->contiguity.size() == this->divisibility.size() &&
         this->contiguity.size() == this->constancy.size());
}

int64_t AxisInfo::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  return std::min(value & -value, kMaxDivisibility);
}

/// The shape the analysis sees: scalars are 1-D of size 1.
static SmallVector<int64_t> analysisShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

/// Reads a per-dimension hint: an integer applies to every dimension, an
/// array gives one value per dimension. Hints are positive powers of two (the
/// tile dialect verifies them); beyond kMaxDivisibility they say no more than
/// it, and products of them stay far from overflowing.
static void applyHint(Attribute hint, AxisInfo::DimVector &dims) {
  auto capped = [](int64_t value) {
    return std::min(value, AxisInfo::kMaxDivisibility);
  };
  if (auto value = dyn_cast_if_present<IntegerAttr>(hint)) {
    for (int64_t &dim : dims)
      dim = capped(value.getInt());
  } else if (auto values = dyn_cast_if_present<DenseI64ArrayAttr>(hint)) {
    if (values.size() == static_cast<int64_t>(dims.size()))
      llvm::transform(values.asArrayRef(), dims.begin(), capped);
  }
}

/// Refines `info` with the hints a frontend attached (tl.multiple_of,
/// tl.max_contiguous or a function argument's divisibility).
static AxisInfo applyHints(AxisInfo info, Attribute divisibility,
                           Attribute contiguity, Attribute constancy) {
  if (!divisibility && !contiguity && !constancy)
    return info;
  AxisInfo::DimVector contig = info.getContiguity(),
                      div = info.getDivisibility(), cons = info.getConstancy();
  applyHint(divisibility, div);
  applyHint(contiguity, contig);
  applyHint(constancy, cons);
  return AxisInfo(contig, div, cons, info.getConstantValue());
}

AxisInfo AxisInfo::getPessimisticValueState(Value value) {
  unsigned rank = analysisShape(value.getType()).size();
  AxisInfo info(DimVector(rank, 1), DimVector(rank, 1), DimVector(rank, 1));
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return info;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func)
    return info;
  unsigned index = arg.getArgNumber();
  return applyHints(info, func.getArgAttr(index, "tile.divisibility"),
                    func.getArgAttr(index, "tile.contiguity"),
                    func.getArgAttr(index, "tile.constancy"));
}

AxisInfo AxisInfo::getSplat(ArrayRef<int64_t> shape, int64_t constant) {
  unsigned rank = shape.size();
  return AxisInfo(DimVector(rank, 1),
                  DimVector(rank, highestPowerOf2Divisor(constant)),
                  DimVector(shape), constant);
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized())
    return lhs;
  assert(lhs.getRank() == rhs.getRank() && "joining values of other ranks");
  DimVector contig, div, cons;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    contig.push_back(std::gcd(lhs.contiguity[d], rhs.contiguity[d]));
    div.push_back(std::gcd(lhs.divisibility[d], rhs.divisibility[d]));
    cons.push_back(std::gcd(lhs.constancy[d], rhs.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (lhs.constantValue == rhs.constantValue)
    constant = lhs.constantValue;
  return AxisInfo(contig, div, cons, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!isInitialized()) {
    os << "<unknown>";
    return;
  }
  auto printDims = [&](StringRef name, const DimVector &dims) {
    os << name << " = [";
    llvm::interleaveComma(dims, os);
    os << "]";
  };
  printDims("contiguity", contiguity);
  printDims(", divisibility", divisibility);
  printDims(", constancy", constancy);
  if (constantValue)
    os << ", constant = " << *constantValue;
}

int64_t mlir::tile::getAlignedContiguity(const AxisInfo &pointers,
                                         unsigned dim, unsigned elementBytes) {
  int64_t alignedElements =
      std::max<int64_t>(1, pointers.getDivisibility(dim) / elementBytes);
  // Both are powers of two, so the smaller divides the larger.
  return std::min(pointers.getContiguity(dim), alignedElements);
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {
using DimVector = AxisInfo::DimVector;

int64_t gcd3(int64_t a, int64_t b, int64_t c) {
  return std::gcd(a, std::gcd(b, c));
}

/// The divisibility that holds for every element (not only the first of each
/// run): consecutive values alternate in parity.
int64_t elementDivisibility(const AxisInfo &info, unsigned d) {
  return info.getContiguity(d) > 1 ? 1 : info.getDivisibility(d);
}

/// Combines two operands dimension by dimension with `fn(d)`, which returns
/// {contiguity, divisibility, constancy}; `constant` folds constant values.
template <typename DimFn>
AxisInfo combine(const AxisInfo &lhs, const AxisInfo &rhs, DimFn fn,
                 std::optional<int64_t> constant) {
  DimVector contig, div, cons;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    auto [c, v, k] = fn(d);
    contig.push_back(c);
    div.push_back(std::clamp<int64_t>(v, 1, AxisInfo::kMaxDivisibility));
    cons.push_back(k);
  }
  return AxisInfo(contig, div, cons, constant);
}

std::optional<int64_t>
foldConstants(const AxisInfo &lhs, const AxisInfo &rhs,
              function_ref<int64_t(int64_t, int64_t)> fn) {
  if (lhs.getConstantValue() && rhs.getConstantValue())
    return fn(*lhs.getConstantValue(), *rhs.getConstantValue());
  return std::nullopt;
}

/// Addition of a value and an offset scaled by `scale` bytes (1 for integer
/// addition, the pointee size for addptr).
AxisInfo addInfo(const AxisInfo &lhs, const AxisInfo &rhs, int64_t scale) {
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t contig =
            std::max(std::gcd(lhs.getContiguity(d), rhs.getConstancy(d)),
                     std::gcd(lhs.getConstancy(d), rhs.getContiguity(d)));
        // Each run starts at the sum of two run starts.
        int64_t div =
            std::gcd(lhs.getDivisibility(d), rhs.getDivisibility(d) * scale);
        return std::tuple(contig, div,
                          std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs,
                    [&](int64_t a, int64_t b) { return a + b * scale; }));
}

AxisInfo subInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        // Only a run minus a constant stays a run.
        return std::tuple(
            std::gcd(lhs.getContiguity(d), rhs.getConstancy(d)),
            std::gcd(lhs.getDivisibility(d), rhs.getDivisibility(d)),
            std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs, [](int64_t a, int64_t b) { return a - b; }));
}

AxisInfo mulInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (rhs.getConstantValue() == 1)
    return lhs;
  if (lhs.getConstantValue() == 1)
    return rhs;
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        return std::tuple(
            int64_t(1),
            std::min(elementDivisibility(lhs, d) * elementDivisibility(rhs, d),
                     AxisInfo::kMaxDivisibility),
            std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs, [](int64_t a, int64_t b) { return a * b; }));
}

/// Division by a constant: aligned runs of a power of two dividing the
/// divisor give equal quotients.
AxisInfo divInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (rhs.getConstantValue() == 1)
    return lhs;
  std::optional<int64_t> divisor = rhs.getConstantValue();
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t cons = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        int64_t div = 1;
        if (divisor && *divisor > 0) {
          int64_t p2 = AxisInfo::highestPowerOf2Divisor(*divisor);
          if (lhs.getContiguity(d) > 1)
            cons = std::max(
                cons, gcd3(lhs.getContiguity(d), lhs.getDivisibility(d), p2));
          int64_t lhsDiv = elementDivisibility(lhs, d);
          if (p2 == *divisor && lhsDiv >= p2)
            div = lhsDiv / p2;
        }
        return std::tuple(int64_t(1), div, cons);
      },
      foldConstants(lhs, rhs,
                    [](int64_t a, int64_t b) { return b == 0 ? 0 : a / b; }));
}

/// Remainder keeps the aligned runs of the dividend that divide the divisor
/// (a constant, or a value of known divisibility, the same along the run):
/// `(pid * 64 + range) % n` stays in runs of 16 where 16 divides n.
AxisInfo remInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  std::optional<int64_t> divisor = rhs.getConstantValue();
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t cons = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        if (divisor && *divisor <= 0)
          return std::tuple(int64_t(1), int64_t(1), cons);
        int64_t p2 = divisor ? AxisInfo::highestPowerOf2Divisor(*divisor)
                             : std::gcd(AxisInfo::highestPowerOf2Divisor(
                                            rhs.getDivisibility(d)),
                                        rhs.getConstancy(d));
        int64_t contig = gcd3(lhs.getContiguity(d), lhs.getDivisibility(d), p2);
        int64_t div = contig == lhs.getContiguity(d)
                          ? std::gcd(lhs.getDivisibility(d), p2)
                          : contig;
        return std::tuple(contig, div, cons);
      },
      foldConstants(lhs, rhs,
                    [](int64_t a, int64_t b) { return b == 0 ? 0 : a % b; }));
}

/// Bitwise and, or and xor: runs break, constancy is kept.
AxisInfo bitwiseInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool isAnd,
                     function_ref<int64_t(int64_t, int64_t)> fold) {
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t l = elementDivisibility(lhs, d),
                r = elementDivisibility(rhs, d);
        // Low zero bits of either operand survive an and; of both, an or.
        return std::tuple(int64_t(1), isAnd ? std::max(l, r) : std::min(l, r),
                          std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs, fold));
}

AxisInfo shiftInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool left) {
  std::optional<int64_t> amount = rhs.getConstantValue();
  if (amount == 0)
    return lhs;
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t div = 1;
        if (amount && *amount > 0 && *amount < 62) {
          int64_t l = elementDivisibility(lhs, d);
          div = left ? std::min(l << *amount, AxisInfo::kMaxDivisibility)
                     : std::max<int64_t>(1, l >> *amount);
        }
        return std::tuple(int64_t(1), div,
                          std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs, [&](int64_t a, int64_t b) {
        if (b < 0 || b >= 64)
          return int64_t(0);
        return left ? int64_t(uint64_t(a) << b) : a >> b;
      }));
}

/// Ordered comparisons of a run against a constant are equal over aligned
/// sub-runs (the bound of `offs < n` is crossed at a multiple of its
/// divisibility); equality comparisons are not.
AxisInfo cmpInfo(arith::CmpIPredicate pred, const AxisInfo &lhs,
                 const AxisInfo &rhs) {
  bool ordered =
      pred != arith::CmpIPredicate::eq && pred != arith::CmpIPredicate::ne;
  std::optional<int64_t> constant;
  if (lhs.getConstantValue() && rhs.getConstantValue()) {
    int64_t a = *lhs.getConstantValue(), b = *rhs.getConstantValue();
    constant =
        arith::applyCmpPredicate(pred, APInt(64, a, true), APInt(64, b, true));
  }
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t cons = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        if (ordered && lhs.getContiguity(d) > 1 && rhs.getConstancy(d) > 1)
          cons =
              std::max(cons, gcd3(lhs.getContiguity(d), lhs.getDivisibility(d),
                                  rhs.getDivisibility(d)));
        if (ordered && rhs.getContiguity(d) > 1 && lhs.getConstancy(d) > 1)
          cons =
              std::max(cons, gcd3(rhs.getContiguity(d), rhs.getDivisibility(d),
                                  lhs.getDivisibility(d)));
        return std::tuple(int64_t(1), int64_t(1), cons);
      },
      constant);
}

AxisInfo selectInfo(const AxisInfo &cond, const AxisInfo &lhs,
                    const AxisInfo &rhs) {
  // The condition's constant runs pick whole runs of one side.
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        int64_t cc = cond.getConstancy(d);
        return std::tuple(
            std::min(std::gcd(lhs.getContiguity(d), cc),
                     std::gcd(rhs.getContiguity(d), cc)),
            std::min(lhs.getDivisibility(d), rhs.getDivisibility(d)),
            std::min(std::gcd(lhs.getConstancy(d), cc),
                     std::gcd(rhs.getConstancy(d), cc)));
      },
      lhs.getConstantValue() == rhs.getConstantValue() ? lhs.getConstantValue()
                                                       : std::nullopt);
}

AxisInfo minMaxInfo(const AxisInfo &lhs, const AxisInfo &rhs,
                    function_ref<int64_t(int64_t, int64_t)> fold) {
  return combine(
      lhs, rhs,
      [&](unsigned d) {
        // Each element is one of the operands' elements.
        return std::tuple(
            int64_t(1),
            std::min(elementDivisibility(lhs, d), elementDivisibility(rhs, d)),
            std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      foldConstants(lhs, rhs, fold));
}

std::optional<AxisInfo> constantInfo(arith::ConstantOp op) {
  Attribute value = op.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return AxisInfo::getSplat({1}, integer.getValue().getSExtValue());
  if (auto splat = dyn_cast<SplatElementsAttr>(value))
    if (auto integer = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
      return AxisInfo::getSplat(splat.getType().getShape(),
                                integer.getValue().getSExtValue());
  return std::nullopt;
}

AxisInfo broadcastInfo(const AxisInfo &src, ArrayRef<int64_t> srcShape,
                       ArrayRef<int64_t> resultShape) {
  DimVector contig, div, cons;
  for (unsigned d = 0; d < resultShape.size(); ++d) {
    bool repeated = srcShape[d] == 1 && resultShape[d] != 1;
    contig.push_back(repeated ? 1 : src.getContiguity(d));
    div.push_back(src.getDivisibility(d));
    cons.push_back(repeated ? resultShape[d] : src.getConstancy(d));
  }
  return AxisInfo(contig, div, cons, src.getConstantValue());
}

AxisInfo expandDimsInfo(const AxisInfo &src, unsigned axis) {
  // Along a new dimension of size 1, the "first element of each run" is every
  // element, so its divisibility is that of all elements.
  int64_t newDiv = AxisInfo::kMaxDivisibility;
  for (unsigned d = 0; d < src.getRank(); ++d)
    newDiv = std::min(newDiv, elementDivisibility(src, d));
  if (auto value = src.getConstantValue())
    newDiv = AxisInfo::highestPowerOf2Divisor(*value);
  DimVector contig = src.getContiguity(), div = src.getDivisibility(),
            cons = src.getConstancy();
  contig.insert(contig.begin() + axis, 1);
  div.insert(div.begin() + axis, newDiv);
  cons.insert(cons.begin() + axis, 1);
  return AxisInfo(contig, div, cons, src.getConstantValue());
}

AxisInfo transInfo(const AxisInfo &src, ArrayRef<int32_t> order) {
  DimVector contig, div, cons;
  for (int32_t d : order) {
    contig.push_back(src.getContiguity(d));
    div.push_back(src.getDivisibility(d));
    cons.push_back(src.getConstancy(d));
  }
  return AxisInfo(contig, div, cons, src.getConstantValue());
}

int64_t pointeeBytes(Type ptrType) {
  Type pointee = getElementTypeOrSelf(getPointeeType(ptrType));
  if (isa<PointerType>(pointee))
    return 8;
  return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
}

/// Computes the info of the single result of `op` from its operands' infos,
/// or nothing when no rule applies.
std::optional<AxisInfo> transfer(Operation *op, ArrayRef<AxisInfo> in) {
  Type resultType = op->getResult(0).getType();
  auto shape = analysisShape(resultType);
  auto binary = [&](auto fn) { return fn(in[0], in[1]); };
  return TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
      .Case([&](arith::ConstantOp op) { return constantInfo(op); })
      .Case([&](MakeRangeOp op) {
        return AxisInfo({shape[0]},
                        {AxisInfo::highestPowerOf2Divisor(op.getStart())}, {1});
      })
      .Case([&](SplatOp) {
        return AxisInfo(DimVector(shape.size(), 1),
                        DimVector(shape.size(), in[0].getDivisibility(0)),
                        DimVector(shape.begin(), shape.end()),
                        in[0].getConstantValue());
      })
      .Case([&](BroadcastOp op) {
        return broadcastInfo(in[0], op.getSrc().getType().getShape(), shape);
      })
      .Case(
          [&](ExpandDimsOp op) { return expandDimsInfo(in[0], op.getAxis()); })
      .Case([&](TransOp op) { return transInfo(in[0], op.getOrder()); })
      .Case([&](ReshapeOp op) -> std::optional<AxisInfo> {
        if (auto value = in[0].getConstantValue())
          return AxisInfo::getSplat(shape, *value);
        return std::nullopt;
      })
      .Case([&](AddPtrOp op) {
        return addInfo(in[0], in[1], pointeeBytes(op.getType()));
      })
      .Case([&](arith::AddIOp) { return addInfo(in[0], in[1], 1); })
      .Case([&](arith::SubIOp) { return binary(subInfo); })
      .Case([&](arith::MulIOp) { return binary(mulInfo); })
      .Case<arith::DivSIOp, arith::DivUIOp>(
          [&](Operation *) { return binary(divInfo); })
      .Case<arith::RemSIOp, arith::RemUIOp>(
          [&](Operation *) { return binary(remInfo); })
      .Case([&](arith::AndIOp) {
        return bitwiseInfo(in[0], in[1], true,
                           [](int64_t a, int64_t b) { return a & b; });
      })
      .Case([&](arith::OrIOp) {
        return bitwiseInfo(in[0], in[1], false,
                           [](int64_t a, int64_t b) { return a | b; });
      })
      .Case([&](arith::XOrIOp) {
        return bitwiseInfo(in[0], in[1], false,
                           [](int64_t a, int64_t b) { return a ^ b; });
      })
      .Case([&](arith::ShLIOp) { return shiftInfo(in[0], in[1], true); })
      .Case<arith::ShRSIOp, arith::ShRUIOp>(
          [&](Operation *) { return shiftInfo(in[0], in[1], false); })
      .Case<arith::MaxSIOp, arith::MaxUIOp>([&](Operation *) {
        return minMaxInfo(in[0], in[1],
                          [](int64_t a, int64_t b) { return std::max(a, b); });
      })
      .Case<arith::MinSIOp, arith::MinUIOp>([&](Operation *) {
        return minMaxInfo(in[0], in[1],
                          [](int64_t a, int64_t b) { return std::min(a, b); });
      })
      .Case([&](arith::CmpIOp op) {
        return cmpInfo(op.getPredicate(), in[0], in[1]);
      })
      .Case([&](arith::SelectOp op) {
        if (auto c = in[0].getConstantValue())
          return *c ? in[1] : in[2];
        // A scalar condition picks one whole operand.
        if (!isa<RankedTensorType>(op.getCondition().getType()))
          return AxisInfo::join(in[1], in[2]);
        return selectInfo(in[0], in[1], in[2]);
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>([&](Operation *) { return in[0]; })
      .Default([](Operation *) { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// The data-flow analysis
//===----------------------------------------------------------------------===//

using AxisInfoLattice = dataflow::Lattice<AxisInfo>;

class AxisInfoDataFlow
    : public dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const AxisInfoLattice *> operands,
                               ArrayRef<AxisInfoLattice *> results) override {
    SmallVector<AxisInfo> in;
    for (const AxisInfoLattice *operand : operands) {
      // Wait until every operand is known; this op is visited again then.
      if (!operand->getValue().isInitialized())
        return success();
      in.push_back(operand->getValue());
    }
    for (auto [i, result] : llvm::enumerate(results)) {
      Value value = op->getResult(i);
      std::optional<AxisInfo> info;
      if (results.size() == 1)
        info = transfer(op, in);
      if (!info)
        info = AxisInfo::getPessimisticValueState(value);
      // Hints from tl.multiple_of / tl.max_contiguous / tl.max_constancy.
      info = applyHints(*info, op->getAttr("tile.divisibility"),
                        op->getAttr("tile.contiguity"),
                        op->getAttr("tile.constancy"));
      propagateIfChanged(result, result->join(*info));
    }
    return success();
  }

  void visitNonControlFlowArguments(Operation *op,
                                    const RegionSuccessor &successor,
                                    ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override {
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp) {
      SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
          op, successor, argLattices, firstIndex);
      return;
    }
    // The induction variable takes lb, lb + step, ...: every value is
    // divisible by gcd(divisibility of lb, of step).
    ProgramPoint *point = getProgramPointAfter(op);
    const AxisInfo &lb =
        getLatticeElementFor(point, forOp.getLowerBound())->getValue();
    const AxisInfo &step =
        getLatticeElementFor(point, forOp.getStep())->getValue();
    if (!lb.isInitialized() || !step.isInitialized())
      return;
    AxisInfo iv({1}, {std::gcd(lb.getDivisibility(0), step.getDivisibility(0))},
                {1});
    propagateIfChanged(argLattices[0], argLattices[0]->join(iv));
  }

  void setToEntryState(AxisInfoLattice *lattice) override {
    propagateIfChanged(
        lattice, lattice->join(
                     AxisInfo::getPessimisticValueState(lattice->getAnchor())));
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root)
    : solver(std::make_unique<DataFlowSolver>()) {
  dataflow::loadBaselineAnalyses(*solver);
  solver->load<AxisInfoDataFlow>();
  if (failed(solver->initializeAndRun(root)))
    root->emitError("axis analysis failed to converge");
}

AxisInfoAnalysis::~AxisInfoAnalysis() = default;

const AxisInfo *AxisInfoAnalysis::lookup(Value value) const {
  auto *lattice = solver->lookupState<AxisInfoLattice>(value);
  if (!lattice || !lattice->getValue().isInitialized())
    return nullptr;
  return &lattice->getValue();
}
