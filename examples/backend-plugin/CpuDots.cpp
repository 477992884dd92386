//===- CpuDots.cpp - dots as loops over a program's buffers ---------------===//
//
// A program's tiles are the registers of one thread, so the shared
// lowering's dot, a multiply-add for every element of the result at every
// K step, would be M*N*K operations of straight-line code: seconds of LLVM
// at 32x32x32, minutes at 64x64x64. Here the operands and the accumulator go
// to the program's shared memory, row-major, and the dot becomes a loop nest
// over them: for each row of the result and chunk of that row (a vector of
// up to four registers), the K steps carry the chunk and add a row of B's
// chunk times an element of A. Every element of the result gets the same
// multiply-adds in the same order as in the shared lowering.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Lowering.h"
#include "ir/Layout/LayoutBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

/// `value` as a vector: itself where it is one, else `lanes` copies
/// (CpuBackend.cpp).
Value splat(OpBuilder &b, Location loc, Value value, unsigned lanes);

namespace {

/// Whether one thread holds every element of a tensor in `layout`.
bool heldByOneThread(const LinearLayout &layout) {
  return layout.getTotalInDimSize() == numRegisters(layout);
}

/// A tensor of the dot in the op's scratch: row-major from byte `offset`,
/// elements of `bytes` bytes.
struct Buffer {
  ArrayRef<int64_t> shape;
  int64_t offset;
  unsigned bytes;

  int64_t elements() const {
    int64_t elements = 1;
    for (int64_t extent : shape)
      elements *= extent;
    return elements;
  }
  int64_t end() const { return offset + elements() * bytes; }
  /// Elements a vector access moves: up to 64 bytes of a row.
  unsigned vectorWidth() const {
    return unsigned(std::min<int64_t>(shape.back(), std::max(1u, 64 / bytes)));
  }
  /// Elements of a row that one vector of the dot's loop holds: up to
  /// 256 bytes (four 64-byte registers), a divisor of the row.
  unsigned chunkWidth() const {
    int64_t width = std::min<int64_t>(shape.back(), std::max(1u, 256 / bytes));
    while (shape.back() % width)
      --width;
    return unsigned(width);
  }
  int64_t index(ArrayRef<int32_t> coords) const {
    int64_t index = 0;
    for (auto [coord, extent] : llvm::zip_equal(coords, shape))
      index = index * extent + coord;
    return index;
  }
};

class CpuDotPattern : public LoweringPattern<DotOp> {
public:
  using LoweringPattern::LoweringPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto cType = cast<RankedTensorType>(op.getType());
    std::optional<LinearLayout> a = layoutOf(aType), b = layoutOf(bType),
                                c = layoutOf(cType);
    if (!a || !b || !c || !heldByOneThread(*a) || !heldByOneThread(*b) ||
        !heldByOneThread(*c))
      return failure();
    Location loc = op.getLoc();
    Type aElement = convertElement(aType), bElement = convertElement(bType),
         accElement = convertElement(cType);
    // The accumulator first, then A and B, each on a cache line of its own.
    Buffer acc{cType.getShape(), 0, storageBytes(accElement)};
    Buffer x{aType.getShape(), int64_t(llvm::alignTo(acc.end(), 64)),
             storageBytes(aElement)};
    Buffer y{bType.getShape(), int64_t(llvm::alignTo(x.end(), 64)),
             storageBytes(bElement)};
    state.requireScratch(rewriter, y.end());

    auto address = [&](const Buffer &buffer, Value index) {
      Value offset = arith::AddIOp::create(
          rewriter, loc, i32Constant(rewriter, loc, buffer.offset),
          arith::MulIOp::create(rewriter, loc, index,
                                i32Constant(rewriter, loc, buffer.bytes)));
      return sharedAddress(rewriter, loc, state, offset);
    };
    // The registers to and from the buffers in vectors along rows.
    auto vectorType = [](const Buffer &buffer, Type element) -> Type {
      Type memory = memoryType(element);
      unsigned vec = buffer.vectorWidth();
      return vec == 1 ? memory : VectorType::get(vec, memory);
    };
    auto vectorAddress = [&](const Buffer &buffer, int64_t index) {
      return sharedAddress(
          rewriter, loc, state,
          i32Constant(rewriter, loc, buffer.offset + index * buffer.bytes));
    };
    auto store = [&](const Buffer &buffer, const LinearLayout &layout,
                     ValueRange values) {
      SmallVector<Value> elements(buffer.elements());
      for (auto [reg, value] : llvm::enumerate(values))
        elements[buffer.index(registerCoords(layout, reg))] = value;
      Type type = vectorType(buffer, values.front().getType());
      for (int64_t i = 0, e = elements.size(); i < e;
           i += buffer.vectorWidth()) {
        SmallVector<Value> parts;
        for (unsigned j = 0; j < buffer.vectorWidth(); ++j)
          parts.push_back(toMemory(rewriter, loc, elements[i + j]));
        LLVM::StoreOp::create(rewriter, loc,
                              packVector(rewriter, loc, parts, type),
                              vectorAddress(buffer, i), buffer.bytes);
      }
    };
    store(acc, *c, adaptor.getC());
    store(x, *a, adaptor.getA());
    store(y, *b, adaptor.getB());

    // for batch, row, chunk of the row's columns, step:
    // acc[row][chunk] += x[row][step] * y[step][chunk], the chunk of acc in
    // a vector that the steps carry.
    auto loop = [&](int64_t extent, llvm::function_ref<void(Value)> body) {
      auto forOp = scf::ForOp::create(
          rewriter, loc, i32Constant(rewriter, loc, 0),
          i32Constant(rewriter, loc, extent), i32Constant(rewriter, loc, 1));
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(forOp.getBody()->getTerminator());
      body(forOp.getInductionVar());
    };
    auto flatten = [&](Value outer, int64_t extent, Value inner) {
      return mulAdd(rewriter, loc, outer, extent, inner);
    };
    unsigned width = acc.chunkWidth();
    Type chunkType =
        width == 1 ? accElement : VectorType::get(width, accElement);
    // `width` elements of `element` from `buffer` at an element index, in
    // the accumulator's type: as a vector where LLVM converts one, else
    // element by element (fp8, converted in software).
    auto loadChunk = [&](const Buffer &buffer, Value index, Type element) {
      Type memory = memoryType(element);
      Value loaded = LLVM::LoadOp::create(
          rewriter, loc, width == 1 ? memory : VectorType::get(width, memory),
          address(buffer, index), buffer.bytes);
      if (LLVM::isCompatibleType(element))
        return convertDotOperand(rewriter, loc, loaded, chunkType);
      SmallVector<Value> elements;
      unpackVector(rewriter, loc, loaded, width, elements);
      for (Value &value : elements)
        value = convertDotOperand(rewriter, loc,
                                  fromMemory(rewriter, loc, value, element),
                                  accElement);
      return packVector(rewriter, loc, elements, chunkType);
    };
    unsigned rank = cType.getRank();
    int64_t rows = acc.shape[rank - 2], columns = acc.shape[rank - 1];
    int64_t steps = aType.getShape()[rank - 1];
    loop(rank == 3 ? acc.shape[0] : 1, [&](Value batch) {
      loop(rows, [&](Value row) {
        Value accRow = flatten(batch, rows, row);
        loop(columns / width, [&](Value chunk) {
          Value column = arith::MulIOp::create(
              rewriter, loc, chunk, i32Constant(rewriter, loc, width));
          Value target = flatten(accRow, columns, column);
          auto stepLoop = scf::ForOp::create(
              rewriter, loc, i32Constant(rewriter, loc, 0),
              i32Constant(rewriter, loc, steps), i32Constant(rewriter, loc, 1),
              ValueRange{loadChunk(acc, target, accElement)},
              [&](OpBuilder &b, Location loc, Value step, ValueRange sums) {
                Value lhs = convertDotOperand(
                    b, loc,
                    loadShared(b, loc, address(x, flatten(accRow, steps, step)),
                               aElement),
                    accElement);
                Value rhs = loadChunk(
                    y, flatten(flatten(batch, steps, step), columns, column),
                    bElement);
                scf::YieldOp::create(
                    b, loc,
                    multiplyAdd(b, loc, width == 1 ? lhs : splat(b, loc, lhs, width),
                                rhs, sums.front()));
              });
          LLVM::StoreOp::create(rewriter, loc, stepLoop.getResult(0),
                                address(acc, target), acc.bytes);
        });
      });
    });

    SmallVector<Value> elements;
    Type type = vectorType(acc, accElement);
    for (int64_t i = 0, e = acc.elements(); i < e; i += acc.vectorWidth())
      unpackVector(rewriter, loc,
                   LLVM::LoadOp::create(rewriter, loc, type,
                                        vectorAddress(acc, i), acc.bytes),
                   acc.vectorWidth(), elements);
    SmallVector<Value> result;
    for (unsigned reg = 0, e = numRegisters(*c); reg < e; ++reg)
      result.push_back(fromMemory(rewriter, loc,
                                  elements[acc.index(registerCoords(*c, reg))],
                                  accElement));
    replaceWithRegisters(rewriter, op, result);
    return success();
  }
};

} // namespace

void populateCpuDotPatterns(TypeConverter &converter,
                            RewritePatternSet &patterns, LoweringState &state) {
  // Before the shared lowering's dot, which matches every dot too.
  patterns.add<CpuDotPattern>(converter, state, /*benefit=*/2);
}
