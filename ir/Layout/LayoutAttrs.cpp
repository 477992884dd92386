//===- LayoutAttrs.cpp - layout attributes of the tile dialect ------------===//

#include "ir/Layout/LayoutAttrs.h"

#include "ir/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "ir/Layout/LayoutInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ir/Layout/LayoutAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ir/Layout/LayoutAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static unsigned product(ArrayRef<unsigned> values) {
  unsigned result = 1;
  for (unsigned v : values)
    result *= v;
  return result;
}

static LogicalResult
verifyPowersOfTwo(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                  ArrayRef<unsigned> values) {
  uint64_t product = 1;
  for (unsigned v : values) {
    if (!llvm::isPowerOf2_32(v))
      return emitError() << name << " must hold powers of two, got " << v;
    product *= v;
    // No tensor has more elements: larger counts only overflow the layout.
    if (product > uint64_t(kMaxTensorElements))
      return emitError() << name << " must hold at most " << kMaxTensorElements
                         << " in all, got " << product;
  }
  return success();
}

static LogicalResult verifyOrder(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<unsigned> order, unsigned rank) {
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "order must be a permutation of 0.." << rank - 1;
    seen[d] = true;
  }
  if (order.size() != rank)
    return emitError() << "order must be a permutation of 0.." << rank - 1;
  return success();
}

static LogicalResult verifyRank(function_ref<InFlightDiagnostic()> emitError,
                                Attribute layout, unsigned rank,
                                ArrayRef<int64_t> shape) {
  if (rank != shape.size())
    return emitError() << "layout " << layout << " is for rank " << rank
                       << " but the tensor has rank " << shape.size();
  return success();
}

std::optional<LinearLayout> mlir::tile::toLinearLayout(RankedTensorType type) {
  if (auto distributed = dyn_cast_if_present<DistributedLayoutAttrInterface>(
          type.getEncoding()))
    return distributed.toLinearLayout(type.getShape());
  if (auto shared =
          dyn_cast_if_present<SharedLayoutAttrInterface>(type.getEncoding()))
    return shared.toLinearLayout(type.getShape());
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  unsigned rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "blocked layout needs at least one dimension";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp and warpsPerCTA "
                          "must have one entry per dimension";
  if (failed(verifyPowersOfTwo(emitError, "sizePerThread", sizePerThread)) ||
      failed(verifyPowersOfTwo(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)))
    return failure();
  return verifyOrder(emitError, order, rank);
}

LogicalResult BlockedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getRank(), shape);
}

LinearLayout BlockedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return blockedLayout(shape, getSizePerThread(), getThreadsPerWarp(),
                       getWarpsPerCTA(), getOrder());
}

unsigned BlockedLayoutAttr::getRank() const { return getOrder().size(); }
unsigned BlockedLayoutAttr::getWarpSize() const {
  return product(getThreadsPerWarp());
}
unsigned BlockedLayoutAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}

BlockedLayoutAttr
BlockedLayoutAttr::getDefault(MLIRContext *context, ArrayRef<int64_t> shape,
                              unsigned elementBitWidth, unsigned numWarps,
                              unsigned warpSize, unsigned contiguity,
                              ArrayRef<unsigned> order) {
  BlockedParams p = defaultBlockedParams(shape, elementBitWidth, numWarps,
                                         warpSize, contiguity, order);
  return get(context, p.sizePerThread, p.threadsPerWarp, p.warpsPerCTA,
             p.order);
}

//===----------------------------------------------------------------------===//
// SliceLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, DistributedLayoutAttrInterface parent) {
  if (!parent)
    return emitError() << "the parent of a slice must be a distributed layout";
  if (dim >= parent.getRank())
    return emitError() << "cannot slice dimension " << dim
                       << " of a layout of rank " << parent.getRank();
  return success();
}

LogicalResult SliceLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getRank(), shape);
}

LinearLayout SliceLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return sliceLayout(getParent().toLinearLayout(parentShape), getDim());
}

unsigned SliceLayoutAttr::getRank() const { return getParent().getRank() - 1; }
unsigned SliceLayoutAttr::getWarpSize() const {
  return getParent().getWarpSize();
}
unsigned SliceLayoutAttr::getNumWarps() const {
  return getParent().getNumWarps();
}

//===----------------------------------------------------------------------===//
// LinearEncodingAttr
//===----------------------------------------------------------------------===//

static constexpr const char *kHardwareDims[] = {kRegister, kLane, kWarp,
                                                kBlock};

LogicalResult
LinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           LinearLayout layout) {
  if (layout.getInDimNames() !=
      SmallVector<std::string>(std::begin(kHardwareDims),
                               std::end(kHardwareDims)))
    return emitError() << "a linear layout maps register, lane, warp and "
                          "block, in that order";
  if (layout.getOutDimNames() != dimNames(layout.getNumOutDims()))
    return emitError() << "a linear layout maps to dim0, dim1, ...";
  return success();
}

/// `[[b00, b01, ...], [b10, ...], ...]`: a list of bases, each of one value
/// per tensor dimension; `rank` is that number once a basis gave it (0
/// before).
static ParseResult parseBases(AsmParser &parser, size_t &rank,
                              LinearLayout::Bases &bases) {
  auto parseBasis = [&]() -> ParseResult {
    std::vector<int32_t> basis;
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       [&]() -> ParseResult {
                                         int32_t value;
                                         if (parser.parseInteger(value))
                                           return failure();
                                         basis.push_back(value);
                                         return success();
                                       }))
      return failure();
    if (rank && basis.size() != rank)
      return parser.emitError(parser.getCurrentLocation(),
                              "every basis needs one value per tensor "
                              "dimension (")
             << rank << ")";
    rank = basis.size();
    bases.push_back(std::move(basis));
    return success();
  };
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                        parseBasis);
}

/// Prints bases as parseBases reads them.
static void printBases(AsmPrinter &printer, const LinearLayout::Bases &bases) {
  printer << "[";
  llvm::interleaveComma(bases, printer, [&](const auto &basis) {
    printer << "[";
    llvm::interleaveComma(basis, printer);
    printer << "]";
  });
  printer << "]";
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  std::vector<LinearLayout::InDim> ins;
  size_t rank = 0;
  if (parser.parseLess() || parser.parseLBrace())
    return {};
  for (const char *name : kHardwareDims) {
    if (name != kHardwareDims[0] && parser.parseComma())
      return {};
    LinearLayout::InDim in{name, {}};
    if (parser.parseKeyword(name) || parser.parseEqual() ||
        parseBases(parser, rank, in.bases))
      return {};
    ins.push_back(std::move(in));
  }
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  llvm::Expected<LinearLayout> layout =
      LinearLayout::createWithMinimalOuts(std::move(ins), dimNames(rank));
  if (!layout) {
    parser.emitError(parser.getNameLoc(), llvm::toString(layout.takeError()));
    return {};
  }
  return parser.getChecked<LinearEncodingAttr>(parser.getContext(), *layout);
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  llvm::interleaveComma(getLayout().getInDims(), printer,
                        [&](const LinearLayout::InDim &in) {
                          printer << in.name << " = ";
                          printBases(printer, in.bases);
                        });
  printer << "}>";
}

LogicalResult LinearEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyRank(emitError, *this, getRank(), shape)))
    return failure();
  for (auto [d, size] : llvm::enumerate(shape))
    if (getLayout().getOutDimSize(dimName(d)) > size)
      return emitError() << "layout " << *this << " needs dimension " << d
                         << " to have at least "
                         << getLayout().getOutDimSize(dimName(d))
                         << " elements, but it has " << size;
  return success();
}

LinearLayout LinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // Smaller than the layout along a dimension (a slice's parent, whose
  // sliced dimension has size 1): bits beyond it hold the same elements.
  for (auto [d, size] : llvm::enumerate(shape))
    if (getLayout().getOutDimSize(dimName(d)) > size)
      return fitToShape(getLayout(), shape);
  std::vector<LinearLayout::OutDim> outs;
  for (auto [d, size] : llvm::enumerate(shape))
    outs.push_back({dimName(d), static_cast<int32_t>(size)});
  LinearLayout layout = getLayout();
  std::vector<LinearLayout::InDim> ins(layout.getInDims().begin(),
                                       layout.getInDims().end());
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

unsigned LinearEncodingAttr::getRank() const {
  return getLayout().getNumOutDims();
}
unsigned LinearEncodingAttr::getWarpSize() const {
  return getLayout().getInDimSize(kLane);
}
unsigned LinearEncodingAttr::getNumWarps() const {
  return getLayout().getInDimSize(kWarp);
}

//===----------------------------------------------------------------------===//
// DotOperandLayoutAttr
//===----------------------------------------------------------------------===//

/// The largest kWidth a dot operand layout takes.
static constexpr unsigned kMaxKWidth = 256;

LogicalResult DotOperandLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
    DistributedLayoutAttrInterface parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (kWidth != 0 && !llvm::isPowerOf2_32(kWidth))
    return emitError() << "kWidth must be 0 or a power of two, got " << kWidth;
  // More K elements than any instruction takes from a thread (with AMD's
  // kpack) would only overflow the layout's arithmetic.
  if (kWidth > kMaxKWidth)
    return emitError() << "kWidth must be at most " << kMaxKWidth << ", got "
                       << kWidth;
  if (!parent)
    return emitError() << "the parent of a dot operand must be a "
                          "distributed layout";
  if (parent.getRank() < 2)
    return emitError() << "the parent of a dot operand must have rank 2 or "
                          "3, got "
                       << parent.getRank();
  return success();
}

LogicalResult DotOperandLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getRank(), shape);
}

LinearLayout
DotOperandLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return getParent().toDotOperandLinearLayout(shape, getOpIdx(), getKWidth());
}

unsigned DotOperandLayoutAttr::getRank() const { return getParent().getRank(); }
unsigned DotOperandLayoutAttr::getWarpSize() const {
  return getParent().getWarpSize();
}
unsigned DotOperandLayoutAttr::getNumWarps() const {
  return getParent().getNumWarps();
}

//===----------------------------------------------------------------------===//
// CoalescedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
CoalescedLayoutAttr::verifyEncoding(ArrayRef<int64_t>, Type,
                                    function_ref<InFlightDiagnostic()>) const {
  return success();
}

//===----------------------------------------------------------------------===//
// Shared layouts
//===----------------------------------------------------------------------===//

LogicalResult
SwizzledSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned vec, unsigned perPhase,
                                 unsigned maxPhase, ArrayRef<unsigned> order) {
  if (failed(verifyPowersOfTwo(emitError, "vec, perPhase and maxPhase",
                               {vec, perPhase, maxPhase})))
    return failure();
  if (order.empty())
    return emitError() << "swizzled shared layout needs an order";
  return verifyOrder(emitError, order, order.size());
}

LogicalResult SwizzledSharedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getOrder().size(), shape);
}

LinearLayout
SwizzledSharedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return swizzledSharedLayout(shape, getVec(), getPerPhase(), getMaxPhase(),
                              getOrder());
}

LogicalResult
NVMMASharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned swizzlingByteWidth, bool transposed,
                              unsigned elementBitWidth) {
  if (!llvm::is_contained({0u, 32u, 64u, 128u}, swizzlingByteWidth))
    return emitError() << "swizzlingByteWidth must be 0, 32, 64 or 128, got "
                       << swizzlingByteWidth;
  if (!llvm::is_contained({8u, 16u, 32u, 64u}, elementBitWidth))
    return emitError() << "elementBitWidth must be 8, 16, 32 or 64, got "
                       << elementBitWidth;
  return success();
}

LogicalResult NVMMASharedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyRank(emitError, *this, 2, shape)))
    return failure();
  if (elementType.isIntOrFloat() &&
      elementType.getIntOrFloatBitWidth() != getElementBitWidth())
    return emitError() << "layout " << *this << " is for "
                       << getElementBitWidth() << "-bit elements, not "
                       << elementType;
  return success();
}

LinearLayout
NVMMASharedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return nvmmaSharedLayout(shape, getSwizzlingByteWidth(), getTransposed(),
                           getElementBitWidth());
}

LogicalResult
SharedLinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 LinearLayout layout, unsigned alignment) {
  if (layout.getInDimNames() != SmallVector<std::string>{kOffset})
    return emitError() << "a shared linear layout maps the offset only";
  if (layout.getOutDimNames() != dimNames(layout.getNumOutDims()))
    return emitError() << "a shared linear layout maps to dim0, dim1, ...";
  if (!layout.isInjective())
    return emitError() << "a shared linear layout puts two elements at one "
                          "offset";
  if (!llvm::isPowerOf2_32(alignment))
    return emitError() << "alignment must be a power of two, got " << alignment;
  return success();
}

Attribute SharedLinearEncodingAttr::parse(AsmParser &parser, Type) {
  LinearLayout::Bases bases;
  size_t rank = 0;
  unsigned alignment = 16;
  if (parser.parseLess() || parser.parseLBrace() ||
      parser.parseKeyword(kOffset) || parser.parseEqual() ||
      parseBases(parser, rank, bases))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("alignment") || parser.parseEqual() ||
       parser.parseInteger(alignment)))
    return {};
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  llvm::Expected<LinearLayout> layout = LinearLayout::createWithMinimalOuts(
      {{kOffset, std::move(bases)}}, dimNames(rank));
  if (!layout) {
    parser.emitError(parser.getNameLoc(), llvm::toString(layout.takeError()));
    return {};
  }
  return parser.getChecked<SharedLinearEncodingAttr>(parser.getContext(),
                                                     *layout, alignment);
}

void SharedLinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{" << kOffset << " = ";
  printBases(printer, getLayout().getInDims().front().bases);
  printer << ", alignment = " << getAlignment() << "}>";
}

/// Checks that `attr`, whose linear form is `layout`, lays out tensors of
/// `shape`.
static LogicalResult
verifyLinearShape(function_ref<InFlightDiagnostic()> emitError, Attribute attr,
                  const LinearLayout &layout, ArrayRef<int64_t> shape) {
  if (failed(verifyRank(emitError, attr, layout.getNumOutDims(), shape)))
    return failure();
  for (auto [d, size] : llvm::enumerate(shape))
    if (layout.getOutDimSize(dimName(d)) != size)
      return emitError() << "layout " << attr << " lays out "
                         << layout.getOutDimSize(dimName(d))
                         << " elements along dimension " << d << ", not "
                         << size;
  return success();
}

LogicalResult SharedLinearEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLinearShape(emitError, *this, getLayout(), shape);
}

LinearLayout
SharedLinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return getLayout();
}

LogicalResult PaddedSharedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> intervals,
    ArrayRef<unsigned> paddings, LinearLayout layout) {
  if (failed(SharedLinearEncodingAttr::verify(emitError, layout, 16)))
    return failure();
  if (intervals.size() != paddings.size())
    return emitError() << "intervals size (" << intervals.size()
                       << ") must match paddings size (" << paddings.size()
                       << ")";
  if (intervals.empty())
    return emitError() << "must have at least one interval-padding pair";
  for (auto [i, interval] : llvm::enumerate(intervals)) {
    if (!llvm::isPowerOf2_32(interval))
      return emitError() << "interval values must all be power of two";
    if (!llvm::isPowerOf2_32(paddings[i]))
      return emitError() << "padding values must all be power of two";
    if (llvm::is_contained(intervals.take_front(i), interval))
      return emitError() << "interval values cannot have duplicates";
  }
  return success();
}

Attribute PaddedSharedLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<unsigned> intervals, paddings;
  auto parsePair = [&]() -> ParseResult {
    unsigned interval, padding;
    if (parser.parseInteger(interval) || parser.parseColon() ||
        parser.parseOptionalPlus() || parser.parseInteger(padding))
      return failure();
    intervals.push_back(interval);
    paddings.push_back(padding);
    return success();
  };
  LinearLayout::Bases bases;
  size_t rank = 0;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parsePair) ||
      parser.parseLBrace() || parser.parseKeyword(kOffset) ||
      parser.parseEqual() || parseBases(parser, rank, bases) ||
      parser.parseRBrace() || parser.parseGreater())
    return {};
  llvm::Expected<LinearLayout> layout = LinearLayout::createWithMinimalOuts(
      {{kOffset, std::move(bases)}}, dimNames(rank));
  if (!layout) {
    parser.emitError(parser.getNameLoc(), llvm::toString(layout.takeError()));
    return {};
  }
  return parser.getChecked<PaddedSharedLayoutAttr>(
      parser.getContext(), intervals, paddings, *layout);
}

void PaddedSharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(
      llvm::zip(getIntervals(), getPaddings()), printer, [&](auto pair) {
        printer << std::get<0>(pair) << ":+" << std::get<1>(pair);
      });
  printer << "] {" << kOffset << " = ";
  printBases(printer, getLayout().getInDims().front().bases);
  printer << "}>";
}

LogicalResult PaddedSharedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLinearShape(emitError, *this, getLayout(), shape);
}

LinearLayout
PaddedSharedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return getLayout();
}

SharedPadding mlir::tile::getSharedPadding(Attribute encoding) {
  if (auto padded = dyn_cast_if_present<PaddedSharedLayoutAttr>(encoding))
    return padded.getPadding();
  return {};
}

//===----------------------------------------------------------------------===//
// Module-level checks
//===----------------------------------------------------------------------===//

/// The axis analysis' hints (tl.multiple_of, tl.max_contiguous,
/// tl.max_constancy, and the divisibility a launch specialises on): an
/// integer, or an array of one per dimension, of positive powers of two,
/// which the analysis' gcds and products assume. Other attributes succeed.
static LogicalResult
verifyAxisHint(function_ref<InFlightDiagnostic()> emitError,
               NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != "tile.divisibility" && name != "tile.contiguity" &&
      name != "tile.constancy")
    return success();
  SmallVector<int64_t> values;
  if (auto value = dyn_cast<IntegerAttr>(attr.getValue()))
    values.push_back(value.getInt());
  else if (auto array = dyn_cast<DenseI64ArrayAttr>(attr.getValue()))
    llvm::append_range(values, array.asArrayRef());
  else
    return emitError() << "'" << name
                       << "' must be an integer or an array of integers";
  for (int64_t value : values)
    if (value < 1 || !llvm::isPowerOf2_64(value))
      return emitError() << "'" << name
                         << "' must hold positive powers of two, got " << value;
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  return verifyAxisHint(
      [&] { return op->emitError() << "argument " << argIndex << ": "; }, attr);
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kNumStagesAttr) {
    auto stages = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stages || stages.getInt() < 1)
      return op->emitError() << "'" << name << "' must be a positive integer";
    return success();
  }
  if (failed(verifyAxisHint([&] { return op->emitError(); }, attr)))
    return failure();
  bool isWarpSize = name == "tile.warp_size";
  if (!isWarpSize && name != "tile.num_warps")
    return success();
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value)
    return op->emitError() << "'" << name << "' must be an integer";
  // Warps of up to 64 lanes, as many as a block of 1024 threads holds.
  llvm::Error invalid = llvm::Error::success();
  if (isWarpSize) {
    invalid = verifyWarpSize(value.getInt(), ("'" + name + "'").str());
  } else {
    auto warpSize = op->getAttrOfType<IntegerAttr>("tile.warp_size");
    unsigned lanes = warpSize && warpSize.getInt() == 64 ? 64 : 32;
    invalid = verifyNumWarps(value.getInt(), kMaxThreadsPerBlock / lanes,
                             ("'" + name + "'").str());
  }
  if (invalid)
    return op->emitError() << llvm::toString(std::move(invalid));
  // Every distributed layout in the module is made for this warp size and
  // number of warps, for a tensor small enough for its linear form.
  unsigned expected = value.getInt();
  auto check = [&](Operation *user, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    auto layout = dyn_cast_if_present<DistributedLayoutAttrInterface>(
        tensor ? tensor.getEncoding() : Attribute());
    if (!layout)
      return success();
    if (llvm::Error error = verifyTensorSize(tensor.getShape()))
      return user->emitOpError() << llvm::toString(std::move(error));
    unsigned actual = isWarpSize ? layout.getWarpSize() : layout.getNumWarps();
    if (actual == expected)
      return success();
    return user->emitOpError()
           << "has a layout with " << actual
           << (isWarpSize ? " threads per warp" : " warps")
           << " but the module's '" << name << "' is " << expected;
  };
  WalkResult result = op->walk([&](Operation *nested) {
    for (Type type : nested->getResultTypes())
      if (failed(check(nested, type)))
        return WalkResult::interrupt();
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(check(nested, type)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
