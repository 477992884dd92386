//===- Builder.cpp - the IR builder behind the Python language ------------===//

#include "frontend/BuilderImpl.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;

frontend::Builder::Builder() : impl(std::make_unique<Impl>()) {}
frontend::Builder::~Builder() = default;

void frontend::Builder::setLocation(const std::string &file, unsigned line,
                                    unsigned column) {
  impl->loc = FileLineColLoc::get(&impl->context, file, line, column);
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

std::vector<Handle> frontend::Builder::beginFunction(
    const std::string &name, const std::vector<std::string> &argTypes,
    const std::vector<int64_t> &divisibility, bool isPublic) {
  Impl &s = *impl;
  if (s.function)
    fail("function '" + name + "' started inside another");
  SmallVector<Type> types;
  SmallVector<DType> dtypes;
  for (const std::string &t : argTypes) {
    dtypes.push_back(s.dtypeOf(t));
    types.push_back(dtypes.back().toMLIR(&s.context));
  }
  s.builder.setInsertionPointToEnd(s.module->getBody());
  s.function = func::FuncOp::create(s.builder, s.loc, name,
                                    s.builder.getFunctionType(types, {}));
  if (!isPublic)
    s.function.setPrivate();
  for (size_t i = 0; i < divisibility.size() && i < types.size(); ++i)
    if (divisibility[i] > 0)
      s.function.setArgAttr(i, "tile.divisibility",
                            s.builder.getI32IntegerAttr(divisibility[i]));
  Block *entry = s.function.addEntryBlock();
  s.builder.setInsertionPointToStart(entry);
  std::vector<Handle> args;
  for (auto [arg, dtype] : llvm::zip(entry->getArguments(), dtypes))
    args.push_back(s.handle(arg, dtype));
  return args;
}

void frontend::Builder::endFunction(const std::vector<Handle> &results) {
  Impl &s = *impl;
  s.requireFunction();
  if (!s.regions.empty())
    fail("a loop or branch is still open at the end of the function");
  SmallVector<Value> values = s.values(results);
  func::ReturnOp::create(s.builder, s.loc, values);
  if (s.explicitLayouts)
    s.checkAllLaidOut(s.function);
  s.function.setType(s.builder.getFunctionType(s.function.getArgumentTypes(),
                                               ValueRange(values).getTypes()));
  s.function = {};
  s.builder.setInsertionPointToEnd(s.module->getBody());
}

//===----------------------------------------------------------------------===//
// Constants, identity, construction
//===----------------------------------------------------------------------===//

Handle frontend::Builder::intConstant(int64_t value, const std::string &dtype) {
  Impl &s = *impl;
  DType t = s.dtypeOf(dtype);
  if (t.isFp8e4b15())
    return cast(floatConstant(static_cast<double>(value), "float32"), dtype);
  Type type = t.toMLIR(&s.context);
  if (t.isFloat())
    return s.handle(arith::ConstantOp::create(
                        s.builder, s.loc, s.builder.getFloatAttr(type, value)),
                    t);
  return s.handle(arith::ConstantOp::create(
                      s.builder, s.loc, s.builder.getIntegerAttr(type, value)),
                  t);
}

Handle frontend::Builder::floatConstant(double value,
                                        const std::string &dtype) {
  Impl &s = *impl;
  DType t = s.dtypeOf(dtype);
  if (!t.isFloat())
    fail("a float constant needs a float dtype, got " + dtype);
  if (t.isFp8e4b15())
    return cast(floatConstant(value, "float32"), dtype);
  return s.handle(arith::ConstantOp::create(
                      s.builder, s.loc,
                      s.builder.getFloatAttr(t.toMLIR(&s.context), value)),
                  t);
}

Handle frontend::Builder::programId(int axis) {
  Impl &s = *impl;
  if (axis < 0 || axis > 2)
    fail("program_id axis must be 0, 1 or 2, got " + Twine(axis));
  return s.handle(ProgramIdOp::create(s.builder, s.loc, ProgramAxis(axis)),
                  DType::integer(32));
}

Handle frontend::Builder::numPrograms(int axis) {
  Impl &s = *impl;
  if (axis < 0 || axis > 2)
    fail("num_programs axis must be 0, 1 or 2, got " + Twine(axis));
  return s.handle(NumProgramsOp::create(s.builder, s.loc, ProgramAxis(axis)),
                  DType::integer(32));
}

Handle frontend::Builder::arange(int64_t start, int64_t end,
                                 const std::string &layout) {
  Impl &s = *impl;
  if (end <= start)
    fail("arange's end (" + Twine(end) + ") must be greater than its start (" +
         Twine(start) + ")");
  int64_t n = end - start;
  if (!llvm::isPowerOf2_64(n))
    fail("arange's range must hold a power of two elements, got " + Twine(n));
  if (start < INT32_MIN || end > INT32_MAX)
    fail("arange's bounds must fit in int32");
  auto type = RankedTensorType::get({n}, s.builder.getI32Type());
  Value range = MakeRangeOp::create(s.builder, s.loc, type, start, end);
  if (!layout.empty())
    range = s.anchor(range, s.parseLayout(layout, {n}, /*shared=*/false));
  return s.handle(range, DType::integer(32));
}

Handle frontend::Builder::full(const std::vector<int64_t> &shape,
                               const Handle &scalar,
                               const std::string &layout) {
  Impl &s = *impl;
  if (!scalar.shape.empty())
    fail("full needs a scalar value");
  Impl::checkShape(shape);
  Value value = s.broadcastValue(s.valueOf(scalar), shape);
  if (!layout.empty())
    value = s.anchor(value, s.parseLayout(layout, shape, /*shared=*/false));
  return s.handle(value, s.dtypeOf(scalar.dtype));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Handle frontend::Builder::broadcastTo(const Handle &value,
                                      const std::vector<int64_t> &shape) {
  Impl &s = *impl;
  Impl::checkShape(shape);
  return s.handle(s.broadcastValue(s.valueOf(value), shape),
                  s.dtypeOf(value.dtype));
}

std::pair<Handle, Handle> frontend::Builder::broadcastPair(const Handle &a,
                                                           const Handle &b) {
  Impl &s = *impl;
  SmallVector<int64_t> shape = s.commonShape(a.shape, b.shape);
  if (shape.empty())
    return {a, b};
  return {s.handle(s.broadcastValue(s.valueOf(a), shape), s.dtypeOf(a.dtype)),
          s.handle(s.broadcastValue(s.valueOf(b), shape), s.dtypeOf(b.dtype))};
}

Handle frontend::Builder::expandDims(const Handle &value, int axis) {
  Impl &s = *impl;
  int rank = value.shape.size();
  if (axis < 0)
    axis += rank + 1;
  if (axis < 0 || axis > rank)
    fail("expand_dims axis " + Twine(axis) +
         " is out of range for a tensor "
         "of rank " +
         Twine(rank));
  Value v = s.valueOf(value);
  if (value.shape.empty())
    v = s.broadcastValue(v, {1});
  SmallVector<int64_t> shape(s.shapeOf(v));
  if (!value.shape.empty()) {
    shape.insert(shape.begin() + axis, 1);
    Type element = getElementTypeOrSelf(v.getType());
    v = ExpandDimsOp::create(s.builder, s.loc,
                             RankedTensorType::get(shape, element), v, axis);
  }
  return s.handle(v, s.dtypeOf(value.dtype));
}

Handle frontend::Builder::reshape(const Handle &value,
                                  const std::vector<int64_t> &shape,
                                  bool allowReorder) {
  Impl &s = *impl;
  Impl::checkShape(shape);
  int64_t from = 1, to = 1;
  for (int64_t d : value.shape)
    from *= d;
  for (int64_t d : shape)
    to *= d;
  if (from != to)
    fail("cannot reshape " + shapeText(value.shape) + " (" + Twine(from) +
         " elements) to " + shapeText(shape) + " (" + Twine(to) + ")");
  Value v = s.valueOf(value);
  if (value.shape.empty())
    return s.handle(s.broadcastValue(v, shape), s.dtypeOf(value.dtype));
  Type element = getElementTypeOrSelf(v.getType());
  auto op = ReshapeOp::create(s.builder, s.loc,
                              RankedTensorType::get(shape, element), v);
  if (allowReorder)
    op.setAllowReorder(true);
  return s.handle(op, s.dtypeOf(value.dtype));
}

Handle frontend::Builder::permute(const Handle &value,
                                  const std::vector<int32_t> &order) {
  Impl &s = *impl;
  if (order.size() != value.shape.size())
    fail("permute needs " + Twine(value.shape.size()) +
         " dimensions in its order, got " + Twine(order.size()));
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(order.size());
  for (int32_t d : order) {
    if (d < 0 || d >= int32_t(order.size()) || seen[d])
      fail("permute's order must be a permutation of the dimensions");
    seen[d] = true;
    shape.push_back(value.shape[d]);
  }
  Value v = s.valueOf(value);
  Type element = getElementTypeOrSelf(v.getType());
  return s.handle(TransOp::create(s.builder, s.loc,
                                  RankedTensorType::get(shape, element), v,
                                  order),
                  s.dtypeOf(value.dtype));
}

Handle frontend::Builder::cat(const Handle &a, const Handle &b) {
  Impl &s = *impl;
  if (a.shape != b.shape || a.dtype != b.dtype || a.shape.empty())
    fail("cat needs two tensors of one shape and dtype, got " + a.dtype +
         shapeText(a.shape) + " and " + b.dtype + shapeText(b.shape));
  SmallVector<int64_t> shape(a.shape.begin(), a.shape.end());
  shape[0] *= 2;
  Value va = s.valueOf(a);
  Type element = getElementTypeOrSelf(va.getType());
  return s.handle(CatOp::create(s.builder, s.loc,
                                RankedTensorType::get(shape, element), va,
                                s.valueOf(b)),
                  s.dtypeOf(a.dtype));
}

Handle frontend::Builder::gather(const Handle &src, const Handle &index,
                                 int axis) {
  Impl &s = *impl;
  int rank = src.shape.size();
  if (rank == 0 || index.shape.size() != src.shape.size())
    fail("gather needs a source and indices of one rank (at least 1), got " +
         src.dtype + shapeText(src.shape) + " and " + index.dtype +
         shapeText(index.shape));
  if (axis < -rank || axis >= rank)
    fail("gather's axis " + std::to_string(axis) + " is not a dimension of " +
         shapeText(src.shape));
  axis = axis < 0 ? axis + rank : axis;
  for (int d = 0; d < rank; ++d)
    if (d != axis && src.shape[d] != index.shape[d])
      fail("gather's indices " + shapeText(index.shape) +
           " must match the source " + shapeText(src.shape) +
           " in every dimension but the axis " + std::to_string(axis));
  if (!s.dtypeOf(index.dtype).isInt())
    fail("gather's indices must be integers, got " + index.dtype);
  Value v = s.valueOf(src);
  Type element = getElementTypeOrSelf(v.getType());
  return s.handle(GatherOp::create(s.builder, s.loc,
                                   RankedTensorType::get(index.shape, element),
                                   v, s.valueOf(index),
                                   s.builder.getI32IntegerAttr(axis)),
                  s.dtypeOf(src.dtype));
}

Handle frontend::Builder::histogram(const Handle &src, int64_t numBins,
                                    const std::optional<Handle> &mask) {
  Impl &s = *impl;
  if (src.shape.size() != 1 || !s.dtypeOf(src.dtype).isInt())
    fail("histogram counts a 1-D tensor of integers, got " + src.dtype +
         shapeText(src.shape));
  if (numBins < 1 || !llvm::isPowerOf2_64(numBins))
    fail("histogram's num_bins must be a power of two, got " +
         std::to_string(numBins));
  Value m;
  if (mask) {
    m = s.castValue(s.valueOf(*mask), s.dtypeOf(mask->dtype), DType::boolean());
    m = s.broadcastValue(m, src.shape);
  }
  DType i32 = DType::integer(32);
  return s.handle(HistogramOp::create(s.builder, s.loc,
                                      s.typeOf(i32, {numBins}), s.valueOf(src),
                                      m),
                  i32);
}

Handle frontend::Builder::join(const Handle &a, const Handle &b) {
  Impl &s = *impl;
  auto [x, y] = broadcastPair(a, b);
  if (x.dtype != y.dtype)
    fail("join needs two values of one dtype, got " + x.dtype + " and " +
         y.dtype);
  SmallVector<int64_t> shape(x.shape.begin(), x.shape.end());
  shape.push_back(2);
  Value vx = s.valueOf(x);
  Type element = getElementTypeOrSelf(vx.getType());
  return s.handle(JoinOp::create(s.builder, s.loc,
                                 RankedTensorType::get(shape, element), vx,
                                 s.valueOf(y)),
                  s.dtypeOf(x.dtype));
}

std::pair<Handle, Handle> frontend::Builder::split(const Handle &value) {
  Impl &s = *impl;
  if (value.shape.empty() || value.shape.back() != 2)
    fail("split needs a tensor whose last dimension has size 2, got shape " +
         shapeText(value.shape));
  Value v = s.valueOf(value);
  Type element = getElementTypeOrSelf(v.getType());
  SmallVector<int64_t> shape(value.shape.begin(), value.shape.end() - 1);
  Type half = shape.empty() ? element : RankedTensorType::get(shape, element);
  auto op = SplitOp::create(s.builder, s.loc, half, half, v);
  DType t = s.dtypeOf(value.dtype);
  return {s.handle(op.getOutLHS(), t), s.handle(op.getOutRHS(), t)};
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

Handle frontend::Builder::binary(const std::string &op, const Handle &a,
                                 const Handle &b, bool weakA, bool weakB) {
  Impl &s = *impl;
  OpBuilder &ob = s.builder;
  Location loc = s.loc;
  DType ta = s.dtypeOf(a.dtype), tb = s.dtypeOf(b.dtype);
  auto [x, y] = broadcastPair(a, b);
  Value va = s.valueOf(x), vb = s.valueOf(y);
  SmallVector<int64_t> shape(x.shape.begin(), x.shape.end());

  // Pointer arithmetic: ptr + int, int + ptr, ptr - int.
  if (ta.isPointer() || tb.isPointer()) {
    bool ptrLeft = ta.isPointer();
    const DType &ptr = ptrLeft ? ta : tb;
    const DType &off = ptrLeft ? tb : ta;
    Value p = ptrLeft ? va : vb, o = ptrLeft ? vb : va;
    if ((op == "add" || (op == "sub" && ptrLeft)) && off.isIntOrBool()) {
      if (op == "sub")
        o = arith::SubIOp::create(ob, loc, s.zeroOf(off, shape), o);
      return s.handle(AddPtrOp::create(ob, loc, p.getType(), p, o), ptr);
    }
    if (ta.isPointer() && tb.isPointer() && (op == "eq" || op == "ne")) {
      // Compare addresses as integers.
      fail("comparing pointers is not supported yet");
    }
    fail("cannot apply '" + op + "' to " + ta.name() + " and " + tb.name());
  }

  static const char *comparisons[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  bool isComparison = llvm::is_contained(comparisons, op);
  bool isLogical = op == "logical_and" || op == "logical_or";
  bool divOrMod = op == "truediv" || op == "floordiv" || op == "mod";
  if (divOrMod && !weakA && !weakB && ta.isInt() && tb.isInt() &&
      ta.isSigned() != tb.isSigned())
    fail("Cannot use /, //, or % with " + ta.name() + " and " + tb.name() +
         " because they have different signedness; this is unlikely to "
         "result in a useful answer. Cast them to the same signedness.");
  DType type = isLogical ? DType::boolean()
                         : s.computationType(ta, tb, weakA, weakB, op);
  bool isBitwise = op == "and" || op == "or" || op == "xor" || op == "lshift" ||
                   op == "rshift";
  if (isBitwise && type.isFloat())
    fail("invalid operands of type " + ta.name() + " and " + tb.name() + ": '" +
         op + "' needs integers");
  if ((op == "floordiv" || op == "mod") && type.isBool())
    type = DType::integer(32);
  // A Python integer takes the type computed in, which must hold it (as
  // Triton checks): 32 + 2**40 in int32 is an error, not a wrapped value.
  if (type.isInt()) {
    auto checkLiteral = [&](bool weak, const Handle &h, const DType &from) {
      APInt bits;
      if (!weak || !matchPattern(s.valueOf(h), m_ConstantInt(&bits)))
        return;
      bool negative = from.isSigned() && bits.isNegative();
      if (negative && !type.isSigned())
        fail("Cannot perform a binary operation between an unsigned tensor "
             "and a negative scalar. Perform a explicit cast on one of them.");
      unsigned width = type.bits() - (type.isSigned() ? 1 : 0);
      APInt magnitude = negative ? -bits - 1 : bits;
      if (magnitude.getActiveBits() > width)
        fail("Scalar " + llvm::toString(bits, 10, from.isSigned()) +
             " is out of range for type " + type.name());
    };
    checkLiteral(weakA, a, ta);
    checkLiteral(weakB, b, tb);
  }
  va = s.castValue(va, ta, type);
  vb = s.castValue(vb, tb, type);
  bool f = type.isFloat(), sgn = type.isSigned();

  Value r;
  if (isComparison) {
    if (f) {
      auto pred = llvm::StringSwitch<arith::CmpFPredicate>(op)
                      .Case("eq", arith::CmpFPredicate::OEQ)
                      .Case("ne", arith::CmpFPredicate::UNE)
                      .Case("lt", arith::CmpFPredicate::OLT)
                      .Case("le", arith::CmpFPredicate::OLE)
                      .Case("gt", arith::CmpFPredicate::OGT)
                      .Default(arith::CmpFPredicate::OGE);
      r = arith::CmpFOp::create(ob, loc, pred, va, vb);
    } else {
      using P = arith::CmpIPredicate;
      auto pred = llvm::StringSwitch<P>(op)
                      .Case("eq", P::eq)
                      .Case("ne", P::ne)
                      .Case("lt", sgn ? P::slt : P::ult)
                      .Case("le", sgn ? P::sle : P::ule)
                      .Case("gt", sgn ? P::sgt : P::ugt)
                      .Default(sgn ? P::sge : P::uge);
      r = arith::CmpIOp::create(ob, loc, pred, va, vb);
    }
    return s.handle(r, DType::boolean());
  }
  if (op == "add")
    r = f ? Value(arith::AddFOp::create(ob, loc, va, vb))
          : Value(arith::AddIOp::create(ob, loc, va, vb));
  else if (op == "sub")
    r = f ? Value(arith::SubFOp::create(ob, loc, va, vb))
          : Value(arith::SubIOp::create(ob, loc, va, vb));
  else if (op == "mul")
    r = f ? Value(arith::MulFOp::create(ob, loc, va, vb))
          : Value(arith::MulIOp::create(ob, loc, va, vb));
  else if (op == "truediv") // fp32: within 2 ulp, as Triton's `/` on GPUs
    r = arith::DivFOp::create(ob, loc, va, vb,
                              type == DType::floating("fp32")
                                  ? arith::FastMathFlags::arcp
                                  : arith::FastMathFlags::none);
  else if (op == "div_rn") // rounded as IEEE 754 says
    r = arith::DivFOp::create(ob, loc, va, vb);
  else if (op == "floordiv")
    r = f     ? Value(math::FloorOp::create(ob, loc,
                                            arith::DivFOp::create(ob, loc, va, vb)))
        : sgn ? Value(arith::DivSIOp::create(ob, loc, va, vb))
              : Value(arith::DivUIOp::create(ob, loc, va, vb));
  else if (op == "mod")
    r = f     ? Value(arith::RemFOp::create(ob, loc, va, vb))
        : sgn ? Value(arith::RemSIOp::create(ob, loc, va, vb))
              : Value(arith::RemUIOp::create(ob, loc, va, vb));
  else if (op == "and" || op == "logical_and")
    r = arith::AndIOp::create(ob, loc, va, vb);
  else if (op == "or" || op == "logical_or")
    r = arith::OrIOp::create(ob, loc, va, vb);
  else if (op == "xor")
    r = arith::XOrIOp::create(ob, loc, va, vb);
  else if (op == "lshift")
    r = arith::ShLIOp::create(ob, loc, va, vb);
  else if (op == "rshift") // arithmetic for a signed left operand
    r = ta.isSigned() ? Value(arith::ShRSIOp::create(ob, loc, va, vb))
                      : Value(arith::ShRUIOp::create(ob, loc, va, vb));
  // minimum/maximum return NaN where either operand is; minnum/maxnum the
  // other operand (Triton's PropagateNan.ALL and NONE).
  else if (op == "minimum" || op == "minnum")
    r = f ? (op == "minimum" ? Value(arith::MinimumFOp::create(ob, loc, va, vb))
                             : Value(arith::MinNumFOp::create(ob, loc, va, vb)))
        : sgn ? Value(arith::MinSIOp::create(ob, loc, va, vb))
              : Value(arith::MinUIOp::create(ob, loc, va, vb));
  else if (op == "maximum" || op == "maxnum")
    r = f ? (op == "maximum" ? Value(arith::MaximumFOp::create(ob, loc, va, vb))
                             : Value(arith::MaxNumFOp::create(ob, loc, va, vb)))
        : sgn ? Value(arith::MaxSIOp::create(ob, loc, va, vb))
              : Value(arith::MaxUIOp::create(ob, loc, va, vb));
  else
    fail("unknown binary operation '" + op + "'");
  return s.handle(r, type);
}

namespace {
template <typename Op>
Value makeUnary(OpBuilder &b, Location loc, Value x) {
  return Op::create(b, loc, x);
}
} // namespace

Handle frontend::Builder::unary(const std::string &op, const Handle &a) {
  Impl &s = *impl;
  OpBuilder &ob = s.builder;
  Location loc = s.loc;
  DType t = s.dtypeOf(a.dtype);
  Value v = s.valueOf(a);
  SmallVector<int64_t> shape(a.shape.begin(), a.shape.end());
  if (t.isPointer())
    fail("cannot apply '" + op + "' to a pointer");
  if (t.isFp8e4b15()) {
    // |x| clears the sign bit, as Triton's; the rest is computed in fp16.
    if (op == "abs")
      return s.handle(arith::AndIOp::create(ob, loc, v,
                                            s.intConstantOf(8, 0x7f, shape)),
                      t);
    return unary(op, cast(a, "float16"));
  }
  if (op == "neg") {
    if (t.isFloat())
      return s.handle(arith::NegFOp::create(ob, loc, v), t);
    return s.handle(arith::SubIOp::create(ob, loc, s.zeroOf(t, shape), v), t);
  }
  if (op == "invert" || op == "not") {
    if (t.isFloat())
      fail("'" + op + "' needs an integer or boolean operand, got " + t.name());
    if (op == "not" && !t.isBool()) {
      Value isZero = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, v,
                                           s.zeroOf(t, shape));
      return s.handle(isZero, DType::boolean());
    }
    Value allOnes =
        s.constantOf(ob.getIntegerAttr(t.toMLIR(&s.context), -1), shape);
    return s.handle(arith::XOrIOp::create(ob, loc, v, allOnes), t);
  }
  if (op == "abs") {
    if (t.isFloat() && t.bits() == 8) {
      // fp8: the sign bit cleared, as Triton's; but the FNUZ formats' NaN
      // (0x80, negative zero's code elsewhere) stays NaN.
      Value mask = s.intConstantOf(8, 0x7f, shape);
      Value bits = arith::BitcastOp::create(ob, loc, mask.getType(), v);
      Value cleared = arith::AndIOp::create(ob, loc, bits, mask);
      if (isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(getElementTypeOrSelf(v)))
        cleared = arith::SelectOp::create(
            ob, loc,
            arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, bits,
                                  s.intConstantOf(8, 0x80, shape)),
            bits, cleared);
      return s.handle(arith::BitcastOp::create(ob, loc, v.getType(), cleared),
                      t);
    }
    if (t.isFloat())
      return s.handle(math::AbsFOp::create(ob, loc, v), t);
    if (!t.isSigned())
      return a;
    return s.handle(math::AbsIOp::create(ob, loc, v), t);
  }
  // Math functions: integers are computed in fp32.
  DType ft = t.isFloat() ? t : DType::floating("fp32");
  v = s.castValue(v, t, ft);
  // fp16 and bf16 are computed in fp32 and rounded back, as Triton does.
  bool narrow = ft.bits() < 32;
  DType wide = narrow ? DType::floating("fp32") : ft;
  Value w = s.castValue(v, ft, wide);
  // The functions as written (sqrt_rn rounded as IEEE 754 says).
  static const llvm::StringMap<Value (*)(OpBuilder &, Location, Value)> plain =
      {{"exp", makeUnary<math::ExpOp>}, {"exp2", makeUnary<math::Exp2Op>},
       {"expm1", makeUnary<math::ExpM1Op>}, {"log", makeUnary<math::LogOp>},
       {"log2", makeUnary<math::Log2Op>}, {"log10", makeUnary<math::Log10Op>},
       {"log1p", makeUnary<math::Log1pOp>}, {"tan", makeUnary<math::TanOp>},
       {"asin", makeUnary<math::AsinOp>}, {"acos", makeUnary<math::AcosOp>},
       {"atan", makeUnary<math::AtanOp>}, {"sinh", makeUnary<math::SinhOp>},
       {"cosh", makeUnary<math::CoshOp>}, {"tanh", makeUnary<math::TanhOp>},
       {"asinh", makeUnary<math::AsinhOp>},
       {"acosh", makeUnary<math::AcoshOp>},
       {"atanh", makeUnary<math::AtanhOp>}, {"erfc", makeUnary<math::ErfcOp>},
       {"cbrt", makeUnary<math::CbrtOp>}, {"trunc", makeUnary<math::TruncOp>},
       {"rint", makeUnary<math::RoundEvenOp>},
       {"rsqrt", makeUnary<math::RsqrtOp>}, {"sin", makeUnary<math::SinOp>},
       {"cos", makeUnary<math::CosOp>}, {"erf", makeUnary<math::ErfOp>},
       {"floor", makeUnary<math::FloorOp>}, {"ceil", makeUnary<math::CeilOp>},
       {"sqrt_rn", makeUnary<math::SqrtOp>},
       {"round", makeUnary<math::RoundOp>}};
  Value r;
  if (auto make = plain.find(op); make != plain.end())
    r = make->second(ob, loc, w);
  else if (op == "sqrt") // fp32: approximate, as Triton's on GPUs
    r = math::SqrtOp::create(ob, loc, w,
                             wide == DType::floating("fp32")
                                 ? arith::FastMathFlags::afn
                                 : arith::FastMathFlags::none);
  else
    fail("unknown math function '" + op + "'");
  return s.handle(s.castValue(r, wide, ft), ft);
}

Handle frontend::Builder::mathBinary(const std::string &op, const Handle &a,
                                     const Handle &b) {
  Impl &s = *impl;
  auto [x, y] = broadcastPair(a, b);
  DType tx = s.dtypeOf(x.dtype), ty = s.dtypeOf(y.dtype);
  if (tx.isPointer() || ty.isPointer())
    fail("cannot apply '" + op + "' to a pointer");
  // Integers are computed in fp32, fp16 and bf16 in fp32 and rounded back.
  DType t = tx.isFloat() ? tx : DType::floating("fp32");
  if (ty.isFloat() && ty.bits() > t.bits())
    t = ty;
  DType wide = t.bits() < 32 ? DType::floating("fp32") : t;
  Value vx = s.castValue(s.valueOf(x), tx, wide);
  Value vy = s.castValue(s.valueOf(y), ty, wide);
  Value r;
  if (op == "pow")
    r = math::PowFOp::create(s.builder, s.loc, vx, vy);
  else if (op == "atan2")
    r = math::Atan2Op::create(s.builder, s.loc, vx, vy);
  else if (op == "fmod")
    r = arith::RemFOp::create(s.builder, s.loc, vx, vy);
  else
    fail("unknown math function '" + op + "'");
  return s.handle(s.castValue(r, wide, t), t);
}

Handle frontend::Builder::fma(const Handle &a, const Handle &b,
                              const Handle &c) {
  Handle ab = binary("mul", a, b);
  Impl &s = *impl;
  DType t = s.dtypeOf(ab.dtype);
  if (!t.isFloat())
    return binary("add", ab, c);
  auto [x, y] = broadcastPair(a, b);
  SmallVector<int64_t> shape = s.commonShape(x.shape, c.shape);
  Value va =
      s.broadcastValue(s.castValue(s.valueOf(x), s.dtypeOf(x.dtype), t), shape);
  Value vb =
      s.broadcastValue(s.castValue(s.valueOf(y), s.dtypeOf(y.dtype), t), shape);
  Value vc =
      s.broadcastValue(s.castValue(s.valueOf(c), s.dtypeOf(c.dtype), t), shape);
  return s.handle(math::FmaOp::create(s.builder, s.loc, va, vb, vc), t);
}

Handle frontend::Builder::mulhi(const Handle &a, const Handle &b) {
  Impl &s = *impl;
  DType ta = s.dtypeOf(a.dtype), tb = s.dtypeOf(b.dtype);
  if (!ta.isInt() || !tb.isInt())
    fail("umulhi needs integer operands, got " + ta.name() + " and " +
         tb.name());
  DType type = s.computationType(ta, tb, false, false, "mulhi");
  auto [x, y] = broadcastPair(a, b);
  Value va = s.castValue(s.valueOf(x), ta, type);
  Value vb = s.castValue(s.valueOf(y), tb, type);
  Value high =
      type.isSigned()
          ? arith::MulSIExtendedOp::create(s.builder, s.loc, va, vb).getHigh()
          : arith::MulUIExtendedOp::create(s.builder, s.loc, va, vb).getHigh();
  return s.handle(high, type);
}

Handle frontend::Builder::cast(const Handle &value, const std::string &dtype) {
  Impl &s = *impl;
  return s.handle(
      s.castValue(s.valueOf(value), s.dtypeOf(value.dtype), s.dtypeOf(dtype)),
      s.dtypeOf(dtype));
}

Handle frontend::Builder::bitcast(const Handle &value,
                                  const std::string &dtype) {
  Impl &s = *impl;
  DType from = s.dtypeOf(value.dtype), to = s.dtypeOf(dtype);
  if (from.isPointer() || to.isPointer())
    fail("bitcast between pointers is not supported yet");
  if (from.bits() != to.bits())
    fail("bitcast needs types of one width, got " + from.name() + " and " +
         to.name());
  Value v = s.valueOf(value);
  return s.handle(
      arith::BitcastOp::create(s.builder, s.loc, s.typeOf(to, value.shape), v),
      to);
}

std::vector<Handle> frontend::Builder::inlineAsm(
    const std::string &asmString, const std::string &constraints,
    const std::vector<Handle> &args, const std::vector<std::string> &dtypes,
    bool pure, int pack) {
  Impl &s = *impl;
  if (dtypes.empty())
    fail("inline_asm_elementwise needs at least one result dtype");
  if (pack < 1 || pack > kMaxPackedElements)
    fail("inline_asm_elementwise's pack must be from 1 to " +
         std::to_string(kMaxPackedElements) + ", got " + std::to_string(pack));
  // Without arguments, one scalar a thread (Triton's globaltimer, smid).
  SmallVector<int64_t> shape;
  for (const Handle &arg : args)
    shape = s.commonShape(shape, arg.shape);
  SmallVector<Value> operands;
  for (const Handle &arg : args)
    operands.push_back(s.broadcastValue(s.valueOf(arg), shape));
  SmallVector<Type> types;
  for (const std::string &dtype : dtypes)
    types.push_back(s.typeOf(s.dtypeOf(dtype), shape));
  auto op = InlineAsmOp::create(s.builder, s.loc, types, operands,
                                s.builder.getStringAttr(asmString),
                                s.builder.getStringAttr(constraints),
                                pure ? s.builder.getUnitAttr() : UnitAttr(),
                                s.builder.getI32IntegerAttr(pack));
  std::vector<Handle> results;
  for (auto [result, dtype] : llvm::zip(op.getResults(), dtypes))
    results.push_back(s.handle(result, s.dtypeOf(dtype)));
  return results;
}

Handle frontend::Builder::where(const Handle &condition, const Handle &a,
                                const Handle &b, bool weakA, bool weakB) {
  Impl &s = *impl;
  DType tc = s.dtypeOf(condition.dtype);
  DType ta = s.dtypeOf(a.dtype), tb = s.dtypeOf(b.dtype);
  if ((ta.isPointer() || tb.isPointer()) && ta != tb)
    fail("where needs pointers of one type, got " + ta.name() + " and " +
         tb.name());
  DType type =
      ta.isPointer() ? ta : s.computationType(ta, tb, weakA, weakB, "where");
  SmallVector<int64_t> shape =
      s.commonShape(s.commonShape(condition.shape, a.shape), b.shape);
  Value c = s.castValue(s.valueOf(condition), tc, DType::boolean());
  c = s.broadcastValue(c, shape);
  Value va = s.broadcastValue(s.castValue(s.valueOf(a), ta, type), shape);
  Value vb = s.broadcastValue(s.castValue(s.valueOf(b), tb, type), shape);
  return s.handle(arith::SelectOp::create(s.builder, s.loc, c, va, vb), type);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Handle frontend::Builder::load(const Handle &pointer,
                               const std::optional<Handle> &mask,
                               const std::optional<Handle> &other,
                               const std::string &cache,
                               const std::string &eviction, bool isVolatile) {
  Impl &s = *impl;
  DType tp = s.dtypeOf(pointer.dtype);
  if (!tp.isPointer())
    fail("load needs a pointer or a tensor of pointers, got " + tp.name());
  // Mask and other broadcast to the pointers' shape.
  SmallVector<int64_t> shape(pointer.shape.begin(), pointer.shape.end());
  if (mask)
    shape = s.commonShape(shape, mask->shape);
  Value p = s.broadcastValue(s.valueOf(pointer), shape);
  Value m, o;
  if (mask)
    m = s.broadcastValue(
        s.castValue(s.valueOf(*mask), s.dtypeOf(mask->dtype), DType::boolean()),
        shape);
  if (other) {
    if (!mask)
      fail("load's 'other' needs a mask");
    o = s.broadcastValue(
        s.castValue(s.valueOf(*other), s.dtypeOf(other->dtype), tp.pointee()),
        shape);
  }
  auto op = LoadOp::create(s.builder, s.loc, p, m, o, cacheModifier(cache),
                           evictionPolicy(eviction), isVolatile);
  return s.handle(op, tp.pointee());
}

void frontend::Builder::store(const Handle &pointer, const Handle &value,
                              const std::optional<Handle> &mask,
                              const std::string &cache,
                              const std::string &eviction) {
  Impl &s = *impl;
  DType tp = s.dtypeOf(pointer.dtype);
  if (!tp.isPointer())
    fail("store needs a pointer or a tensor of pointers, got " + tp.name());
  SmallVector<int64_t> shape(pointer.shape.begin(), pointer.shape.end());
  if (value.shape.size() > shape.size() ||
      (value.shape.size() == shape.size() && value.shape != pointer.shape))
    shape = s.commonShape(shape, value.shape);
  if (mask)
    shape = s.commonShape(shape, mask->shape);
  Value p = s.broadcastValue(s.valueOf(pointer), shape);
  Value v = s.broadcastValue(
      s.castValue(s.valueOf(value), s.dtypeOf(value.dtype), tp.pointee()),
      shape);
  Value m;
  if (mask)
    m = s.broadcastValue(
        s.castValue(s.valueOf(*mask), s.dtypeOf(mask->dtype), DType::boolean()),
        shape);
  auto op = StoreOp::create(s.builder, s.loc, p, v, m, cacheModifier(cache),
                            evictionPolicy(eviction));
  if (s.explicitLayouts)
    s.settleOp(op);
}

/// The IR kind of atomic `kind` on `element`s: add is fadd on floats,
/// max and min are umax and umin on unsigned integers.
static RMWKind rmwKind(const std::string &kind, const DType &element) {
  std::string k = kind;
  if (k == "add" && element.isFloat())
    k = "fadd";
  if ((k == "max" || k == "min") && element.isInt() && !element.isSigned())
    k = "u" + k;
  std::optional<RMWKind> rmw = symbolizeRMWKind(k);
  if (!rmw)
    fail("unknown atomic operation '" + kind + "'");
  return *rmw;
}

Handle frontend::Builder::atomicRMW(const std::string &kind,
                                    const Handle &pointer, const Handle &value,
                                    const std::optional<Handle> &mask,
                                    const std::string &sem,
                                    const std::string &scope) {
  Impl &s = *impl;
  DType tp = s.dtypeOf(pointer.dtype);
  if (!tp.isPointer())
    fail("atomics need a pointer or a tensor of pointers, got " + tp.name());
  const DType &element = tp.pointee();
  RMWKind rmw = rmwKind(kind, element);
  auto order = symbolizeMemOrder(sem);
  auto memScope = symbolizeMemScope(scope);
  if (!order)
    fail("unknown memory order '" + sem +
         "' (expected relaxed, acquire, "
         "release or acq_rel)");
  if (!memScope)
    fail("unknown scope '" + scope + "' (expected gpu, cta or sys)");
  SmallVector<int64_t> shape = s.commonShape(pointer.shape, value.shape);
  if (mask)
    shape = s.commonShape(shape, mask->shape);
  Value p = s.broadcastValue(s.valueOf(pointer), shape);
  Value v = s.broadcastValue(
      s.castValue(s.valueOf(value), s.dtypeOf(value.dtype), element), shape);
  Value m;
  if (mask)
    m = s.broadcastValue(
        s.castValue(s.valueOf(*mask), s.dtypeOf(mask->dtype), DType::boolean()),
        shape);
  auto op =
      AtomicRMWOp::create(s.builder, s.loc, rmw, *order, *memScope, p, v, m);
  if (failed(mlir::verify(op)))
    fail("atomic '" + kind + "' does not apply to " + element.name());
  return s.handle(op, element);
}

Handle frontend::Builder::atomicCAS(const Handle &pointer, const Handle &cmp,
                                    const Handle &value, const std::string &sem,
                                    const std::string &scope) {
  Impl &s = *impl;
  DType tp = s.dtypeOf(pointer.dtype);
  if (!tp.isPointer())
    fail("atomic_cas needs a pointer or a tensor of pointers, got " +
         tp.name());
  auto order = symbolizeMemOrder(sem);
  auto memScope = symbolizeMemScope(scope);
  if (!order || !memScope)
    fail("unknown memory order '" + sem + "' or scope '" + scope + "'");
  const DType &element = tp.pointee();
  SmallVector<int64_t> shape =
      s.commonShape(s.commonShape(pointer.shape, cmp.shape), value.shape);
  Value p = s.broadcastValue(s.valueOf(pointer), shape);
  Value c = s.broadcastValue(
      s.castValue(s.valueOf(cmp), s.dtypeOf(cmp.dtype), element), shape);
  Value v = s.broadcastValue(
      s.castValue(s.valueOf(value), s.dtypeOf(value.dtype), element), shape);
  auto op = AtomicCASOp::create(s.builder, s.loc, *order, *memScope, p, c, v);
  if (failed(mlir::verify(op)))
    fail("atomic_cas does not apply to " + element.name());
  return s.handle(op, element);
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

namespace {
/// `values` (scalar integers) as IR values of `dtype`; `what` names them in
/// errors.
SmallVector<Value> integers(frontend::Builder::Impl &s,
                            const std::vector<Handle> &values,
                            const DType &dtype, const std::string &what) {
  SmallVector<Value> result;
  for (const Handle &h : values) {
    DType t = s.dtypeOf(h.dtype);
    if (!h.shape.empty() || !t.isIntOrBool())
      fail(what + " must be integer scalars, got a " +
           (h.shape.empty() ? t.name() : "tensor"));
    result.push_back(s.castValue(s.valueOf(h), t, dtype));
  }
  return result;
}

TensorDescType descriptorType(frontend::Builder::Impl &s, const Handle &desc,
                              size_t indices) {
  auto type = dyn_cast<TensorDescType>(s.valueOf(desc).getType());
  if (!type)
    fail("expected a tensor descriptor");
  if (indices != static_cast<size_t>(type.getBlockType().getRank()))
    fail("a rank-" + std::to_string(type.getBlockType().getRank()) +
         " descriptor needs " + std::to_string(type.getBlockType().getRank()) +
         " offsets, got " + std::to_string(indices));
  return type;
}

/// `value` as a block of `desc`: cast to its dtype, broadcast to its shape.
Value blockValue(frontend::Builder::Impl &s, const Handle &desc,
                 const Handle &value) {
  SmallVector<int64_t> shape(desc.shape.begin(), desc.shape.end());
  if (s.commonShape(value.shape, shape) != shape)
    fail("a value of shape " + shapeText(value.shape) +
         " does not fit a block of shape " + shapeText(shape));
  return s.broadcastValue(s.castValue(s.valueOf(value), s.dtypeOf(value.dtype),
                                      s.dtypeOf(desc.dtype)),
                          shape);
}

std::optional<DenseI32ArrayAttr>
checkedDims(OpBuilder &b, const std::optional<std::vector<int32_t>> &dims,
            size_t rank) {
  if (!dims)
    return std::nullopt;
  for (int32_t d : *dims)
    if (d < 0 || static_cast<size_t>(d) >= rank)
      fail("boundary_check names dimension " + std::to_string(d) +
           " of a rank-" + std::to_string(rank) + " block");
  return b.getDenseI32ArrayAttr(*dims);
}
} // namespace

Handle frontend::Builder::makeTensorDescriptor(
    const Handle &base, const std::vector<Handle> &shape,
    const std::vector<Handle> &strides, const std::vector<int64_t> &blockShape,
    bool nanPadding, bool aligned) {
  Impl &s = *impl;
  DType tp = s.dtypeOf(base.dtype);
  if (!tp.isPointer() || !base.shape.empty())
    fail("a tensor descriptor's base must be a pointer, got " +
         (base.shape.empty() ? tp.name() : "a tensor"));
  if (blockShape.empty())
    fail("a tensor descriptor's block needs at least one dimension");
  Impl::checkShape(blockShape);
  if (shape.size() != blockShape.size() || strides.size() != blockShape.size())
    fail("a tensor descriptor needs one shape and one stride per dimension "
         "of its block (" + std::to_string(blockShape.size()) + "), got " +
         std::to_string(shape.size()) + " and " +
         std::to_string(strides.size()));
  auto block = RankedTensorType::get(blockShape, tp.pointee().toMLIR(&s.context));
  auto op = MakeTensorDescriptorOp::create(
      s.builder, s.loc, TensorDescType::get(&s.context, block),
      s.valueOf(base), integers(s, shape, DType::integer(32), "shapes"),
      integers(s, strides, DType::integer(64), "strides"), nanPadding,
      aligned);
  Handle h;
  h.value = Value(op).getAsOpaquePointer();
  h.dtype = tp.pointee().name();
  h.shape = blockShape;
  return h;
}

Handle frontend::Builder::descriptorLoad(
    const Handle &desc, const std::vector<Handle> &indices,
    const std::optional<std::vector<int32_t>> &boundaryCheck,
    const std::string &cache, const std::string &eviction) {
  Impl &s = *impl;
  TensorDescType type = descriptorType(s, desc, indices.size());
  auto op = DescriptorLoadOp::create(
      s.builder, s.loc, type.getBlockType(), s.valueOf(desc),
      integers(s, indices, DType::integer(32), "offsets"),
      checkedDims(s.builder, boundaryCheck, indices.size()).value_or(nullptr),
      cacheModifier(cache), evictionPolicy(eviction));
  return s.handle(op, s.dtypeOf(desc.dtype));
}

void frontend::Builder::descriptorStore(
    const Handle &desc, const std::vector<Handle> &indices, const Handle &value,
    const std::optional<std::vector<int32_t>> &boundaryCheck) {
  Impl &s = *impl;
  descriptorType(s, desc, indices.size());
  DescriptorStoreOp::create(
      s.builder, s.loc, s.valueOf(desc),
      integers(s, indices, DType::integer(32), "offsets"),
      blockValue(s, desc, value),
      checkedDims(s.builder, boundaryCheck, indices.size()).value_or(nullptr));
}

void frontend::Builder::descriptorReduce(const std::string &kind,
                                         const Handle &desc,
                                         const std::vector<Handle> &indices,
                                         const Handle &value) {
  Impl &s = *impl;
  descriptorType(s, desc, indices.size());
  DType element = s.dtypeOf(desc.dtype);
  auto op = DescriptorReduceOp::create(
      s.builder, s.loc, rmwKind(kind, element), s.valueOf(desc),
      integers(s, indices, DType::integer(32), "offsets"),
      blockValue(s, desc, value));
  if (failed(mlir::verify(op)))
    fail("atomic '" + kind + "' does not apply to " + element.name());
}

Handle frontend::Builder::dot(const Handle &a, const Handle &b,
                              const std::optional<Handle> &acc,
                              const std::string &inputPrecision,
                              const std::string &outDtype,
                              int64_t maxNumImpreciseAcc) {
  Impl &s = *impl;
  if (maxNumImpreciseAcc < 0 || maxNumImpreciseAcc > INT32_MAX)
    fail("max_num_imprecise_acc must be from 0 to 2**31 - 1, got " +
         std::to_string(maxNumImpreciseAcc));
  DType ta = s.dtypeOf(a.dtype), tb = s.dtypeOf(b.dtype);
  // fp8e4b15 is multiplied as fp16, as Triton does.
  if (ta.isFp8e4b15() || tb.isFp8e4b15())
    return dot(ta.isFp8e4b15() ? cast(a, "float16") : a,
               tb.isFp8e4b15() ? cast(b, "float16") : b, acc, inputPrecision,
               outDtype, maxNumImpreciseAcc);
  // bf16x3 and bf16x6 (as Triton): fp32 operands split into two or three
  // bf16 parts (x = hi + lo, or hi + mid + lo), and the products of the
  // parts that matter summed in fp32, the smallest first.
  if ((inputPrecision == "bf16x3" || inputPrecision == "bf16x6") &&
      ta == DType::floating("fp32") && tb == ta) {
    unsigned count = inputPrecision == "bf16x3" ? 2 : 3;
    auto split = [&](const Handle &x) {
      std::vector<Handle> parts;
      Handle rest = x;
      for (unsigned i = 0; i < count; ++i) {
        parts.push_back(cast(rest, "bfloat16"));
        if (i + 1 < count)
          rest = binary("sub", rest, cast(parts.back(), "float32"));
      }
      return parts;
    };
    std::vector<Handle> partsA = split(a), partsB = split(b);
    // (i, j): part i of A times part j of B.
    static const std::pair<unsigned, unsigned> x3[] = {{0, 1}, {1, 0}, {0, 0}};
    static const std::pair<unsigned, unsigned> x6[] = {{1, 1}, {2, 0}, {0, 2},
                                                       {1, 0}, {0, 1}, {0, 0}};
    std::optional<Handle> sum = acc;
    for (auto [i, j] : count == 2 ? ArrayRef(x3) : ArrayRef(x6))
      sum = dot(partsA[i], partsB[j], sum, "ieee", outDtype);
    return *sum;
  }
  if (a.shape.size() < 2 || a.shape.size() > 3 ||
      b.shape.size() != a.shape.size())
    fail("dot needs two 2-D (or 3-D, batched) tensors, got shapes " +
         shapeText(a.shape) + " and " + shapeText(b.shape));
  size_t r = a.shape.size();
  if (a.shape[r - 1] != b.shape[r - 2])
    fail("dot: the inner dimensions differ: " + shapeText(a.shape) + " and " +
         shapeText(b.shape));
  if (ta.isFloat() != tb.isFloat())
    fail("dot needs operands of one kind, got " + ta.name() + " and " +
         tb.name());
  // Inputs of one type (the wider of the two), except that two fp8 formats
  // may mix.
  bool mixedFp8 = ta != tb && ta.isFloat() && ta.bits() == 8 && tb.bits() == 8;
  DType in = ta == tb || mixedFp8
                 ? ta
                 : s.computationType(ta, tb, false, false, "dot");
  // As Triton: integers into i32, fp64 into fp64, fp32 and bf16 into fp32,
  // narrower floats into `outDtype` (fp32 where empty).
  DType out = !in.isFloat()     ? DType::integer(32)
              : in.bits() == 64 ? in
              : in.bits() == 32 || in == DType::floating("bf16")
                  ? DType::floating("fp32")
              : outDtype.empty() ? DType::floating("fp32")
                                 : s.dtypeOf(outDtype);
  SmallVector<int64_t> shape(a.shape.begin(), a.shape.end());
  shape[r - 1] = b.shape[r - 1];
  Value va = s.castValue(s.valueOf(a), ta, in);
  Value vb = s.castValue(s.valueOf(b), tb, mixedFp8 ? tb : in);
  Value c =
      acc ? s.broadcastValue(
                s.castValue(s.valueOf(*acc), s.dtypeOf(acc->dtype), out), shape)
          : s.zeroOf(out, shape);
  // Only fp32 operands have a precision to choose.
  bool bf16Split = inputPrecision == "bf16x3" || inputPrecision == "bf16x6";
  auto precision = symbolizeInputPrecision(bf16Split ? "ieee" : inputPrecision);
  if (!precision)
    fail("unknown input precision '" + inputPrecision +
         "' (expected tf32, tf32x3, bf16x3, bf16x6 or ieee)");
  auto op = DotOp::create(s.builder, s.loc, va, vb, c, *precision,
                          int32_t(maxNumImpreciseAcc));
  if (failed(mlir::verify(op)))
    fail("dot of " + ta.name() + " and " + tb.name() + " into " + out.name() +
         " is not supported");
  return s.handle(op, out);
}

std::vector<Handle>
frontend::Builder::beginCombiner(const std::vector<Handle> &values, int axis,
                                 bool isScan, bool reverse) {
  Impl &s = *impl;
  if (values.empty())
    fail("a reduction needs at least one tensor");
  size_t rank = values[0].shape.size();
  for (const Handle &h : values)
    if (h.shape != values[0].shape)
      fail("the tensors of a reduction must have one shape");
  if (rank == 0)
    fail("cannot reduce a scalar");
  if (axis < 0)
    axis += rank;
  if (axis < 0 || size_t(axis) >= rank)
    fail("axis " + Twine(axis) + " is out of range for a tensor of rank " +
         Twine(rank));
  SmallVector<Value> srcs = s.values(values);
  SmallVector<Type> elementTypes, resultTypes;
  for (Value v : srcs) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    elementTypes.push_back(t.getElementType());
    SmallVector<int64_t> shape(t.getShape());
    shape.erase(shape.begin() + axis);
    resultTypes.push_back(isScan          ? Type(t)
                          : shape.empty() ? t.getElementType()
                                          : Type(RankedTensorType::get(
                                                shape, t.getElementType())));
  }
  Operation *op;
  if (isScan) {
    auto scan =
        ScanOp::create(s.builder, s.loc, resultTypes, srcs, axis, reverse);
    op = scan;
  } else {
    op = ReduceOp::create(s.builder, s.loc, resultTypes, srcs, axis);
  }
  Block *block = new Block();
  op->getRegion(0).push_back(block);
  for (int copy = 0; copy < 2; ++copy)
    for (Type t : elementTypes)
      block->addArgument(t, s.loc);
  s.regions.push_back(op);
  std::vector<std::string> dtypes;
  for (const Handle &h : values)
    dtypes.push_back(h.dtype);
  s.combinerDtypes.push_back(dtypes);
  s.builder.setInsertionPointToStart(block);
  std::vector<Handle> args;
  for (auto [i, arg] : llvm::enumerate(block->getArguments()))
    args.push_back(s.handle(arg, s.dtypeOf(values[i % values.size()].dtype)));
  return args;
}

std::vector<Handle>
frontend::Builder::endCombiner(const std::vector<Handle> &results) {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<ReduceOp, ScanOp>(s.regions.back()))
    fail("no reduction is being built");
  Operation *op = s.regions.pop_back_val();
  std::vector<std::string> dtypes = s.combinerDtypes.pop_back_val();
  if (results.size() != op->getNumResults())
    fail("the combiner must return " + Twine(op->getNumResults()) +
         " values, got " + Twine(results.size()));
  SmallVector<Value> values;
  for (auto [h, dtype] : llvm::zip(results, dtypes)) {
    if (!h.shape.empty())
      fail("a combiner must return scalars");
    // The combiner's own promotions may have widened a value: back to the
    // dtype being reduced.
    values.push_back(
        s.castValue(s.valueOf(h), s.dtypeOf(h.dtype), s.dtypeOf(dtype)));
  }
  if (llvm::isa<ReduceOp>(op))
    ReduceReturnOp::create(s.builder, s.loc, values);
  else
    ScanReturnOp::create(s.builder, s.loc, values);
  s.builder.setInsertionPointAfter(op);
  std::vector<Handle> out;
  for (auto [r, dtype] : llvm::zip(op->getResults(), dtypes))
    out.push_back(s.handle(r, s.dtypeOf(dtype)));
  return out;
}

Handle frontend::Builder::reduce(const Handle &value, int axis,
                                 const std::string &kind) {
  Impl &s = *impl;
  DType t = s.dtypeOf(value.dtype);
  if (t.isFp8e4b15() && kind != "first")
    return reduce(cast(value, "float16"), axis, kind);
  Handle v = value;
  // Sums of small integers and of bools accumulate in int32.
  if ((kind == "sum" || kind == "prod") && t.isIntOrBool() && t.bits() < 32)
    v = cast(value, "int32");
  if ((kind == "sum" || kind == "prod") && t.isFloat() && t.bits() < 32)
    v = cast(value, "float32");
  if (kind == "argmax" || kind == "argmin") {
    int rank = value.shape.size();
    int ax = axis < 0 ? axis + rank : axis;
    if (ax < 0 || ax >= rank)
      fail("axis " + Twine(axis) + " is out of range for a tensor of rank " +
           Twine(rank));
    // Index along the axis, broadcast to the tensor's shape.
    Handle index = arange(0, value.shape[ax]);
    for (int d = 0; d < rank; ++d)
      if (d != ax)
        index = expandDims(index, d);
    index = broadcastTo(index, value.shape);
    std::vector<Handle> args = beginCombiner({v, index}, axis, false, false);
    // (va, ia), (vb, ib): keep the extreme value, the lower index on ties.
    Handle better = binary(kind == "argmax" ? "gt" : "lt", args[0], args[2]);
    Handle equal = binary("eq", args[0], args[2]);
    Handle lower = binary("lt", args[1], args[3]);
    Handle pick =
        binary("logical_or", better, binary("logical_and", equal, lower));
    Handle val = where(pick, args[0], args[2]);
    Handle idx = where(pick, args[1], args[3]);
    return endCombiner({val, idx})[1];
  }
  std::vector<Handle> args = beginCombiner({v}, axis, false, false);
  // The element of a one-element axis (tensor.item).
  if (kind == "first")
    return endCombiner({args[0]})[0];
  std::string op = llvm::StringSwitch<std::string>(kind)
                       .Case("sum", "add")
                       .Case("prod", "mul")
                       // As Triton's tl.max/tl.min: NaNs are passed over.
                       .Case("max", "maxnum")
                       .Case("min", "minnum")
                       .Case("xor_sum", "xor")
                       .Default("");
  if (op.empty())
    fail("unknown reduction '" + kind + "'");
  return endCombiner({binary(op, args[0], args[1])})[0];
}

Handle frontend::Builder::scan(const Handle &value, int axis,
                               const std::string &kind, bool reverse) {
  Impl &s = *impl;
  DType t = s.dtypeOf(value.dtype);
  if (t.isFp8e4b15())
    return scan(cast(value, "float16"), axis, kind, reverse);
  Handle v = value;
  if (t.isIntOrBool() && t.bits() < 32)
    v = cast(value, "int32");
  std::vector<Handle> args = beginCombiner({v}, axis, true, reverse);
  std::string op = kind == "cumsum" ? "add" : kind == "cumprod" ? "mul" : "";
  if (op.empty())
    fail("unknown scan '" + kind + "'");
  return endCombiner({binary(op, args[0], args[1])})[0];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

std::vector<Handle>
frontend::Builder::beginFor(const Handle &lower, const Handle &upper,
                            const Handle &step,
                            const std::vector<Handle> &carried,
                            int numStages, bool flatten,
                            bool warpSpecialize) {
  Impl &s = *impl;
  if (numStages < 0)
    fail("num_stages must be positive, got " + std::to_string(numStages));
  for (const Handle *h : {&lower, &upper, &step})
    if (!h->shape.empty() || !s.dtypeOf(h->dtype).isIntOrBool())
      fail("loop bounds must be integer scalars, got " + h->dtype +
           shapeText(h->shape));
  // The induction variable has the widest bound's type (int32 usually).
  DType iv = s.computationType(s.computationType(s.dtypeOf(lower.dtype),
                                                 s.dtypeOf(upper.dtype), false,
                                                 false, "for"),
                               s.dtypeOf(step.dtype), false, false, "for");
  Value lb = s.castValue(s.valueOf(lower), s.dtypeOf(lower.dtype), iv);
  Value ub = s.castValue(s.valueOf(upper), s.dtypeOf(upper.dtype), iv);
  Value st = s.castValue(s.valueOf(step), s.dtypeOf(step.dtype), iv);
  if (s.explicitLayouts)
    for (const Handle &h : carried)
      s.requireLayout(s.valueOf(h), "a tensor a loop carries");
  auto loop =
      scf::ForOp::create(s.builder, s.loc, lb, ub, st, s.values(carried));
  if (numStages)
    loop->setAttr(tile::kNumStagesAttr, s.builder.getI32IntegerAttr(numStages));
  if (flatten)
    loop->setAttr(tile::kFlattenAttr, s.builder.getUnitAttr());
  if (warpSpecialize)
    loop->setAttr(tile::kWarpSpecializeAttr, s.builder.getUnitAttr());
  // Without carried values the body comes with a yield; endFor makes it.
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<mlir::OpTrait::IsTerminator>())
    body->back().erase();
  s.regions.push_back(loop);
  s.builder.setInsertionPointToStart(loop.getBody());
  std::vector<Handle> args{s.handle(loop.getInductionVar(), iv)};
  for (auto [arg, h] : llvm::zip(loop.getRegionIterArgs(), carried))
    args.push_back(s.handle(arg, s.dtypeOf(h.dtype)));
  return args;
}

std::vector<Handle>
frontend::Builder::endFor(const std::vector<Handle> &yielded) {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<scf::ForOp>(s.regions.back()))
    fail("no loop is being built");
  auto loop = llvm::cast<scf::ForOp>(s.regions.pop_back_val());
  std::vector<Handle> yieldedLaidOut = yielded;
  if (s.explicitLayouts)
    for (auto [arg, h] : llvm::zip(loop.getRegionIterArgs(), yieldedLaidOut))
      if (auto tensor = dyn_cast<RankedTensorType>(arg.getType()))
        h.value =
            s.relaid(s.valueOf(h), tensor.getEncoding()).getAsOpaquePointer();
  for (auto [arg, h] : llvm::zip(loop.getRegionIterArgs(), yieldedLaidOut))
    if (arg.getType() != s.valueOf(h).getType()) {
      std::string before;
      llvm::raw_string_ostream os(before);
      os << arg.getType();
      fail("a value carried by the loop changes type in its body, from " +
           before + " to " + h.dtype + shapeText(h.shape));
    }
  // Hints on carried values (hint) go to the values the body yields.
  for (NamedAttribute attr : llvm::to_vector(loop->getAttrs())) {
    auto [hint, index] = attr.getName().getValue().rsplit(kCarriedHint);
    unsigned i = 0;
    if (index.empty() || index.getAsInteger(10, i) || i >= yielded.size())
      continue;
    if (Operation *def = s.valueOf(yielded[i]).getDefiningOp())
      def->setAttr(hint, attr.getValue());
    loop->removeAttr(attr.getName());
  }
  scf::YieldOp::create(s.builder, s.loc, s.values(yieldedLaidOut));
  s.builder.setInsertionPointAfter(loop);
  return s.handles(loop.getResults(), yielded);
}

void frontend::Builder::beginIf(const Handle &condition) {
  Impl &s = *impl;
  if (!condition.shape.empty())
    fail("an if condition must be a scalar, got shape " +
         shapeText(condition.shape));
  Value c = s.castValue(s.valueOf(condition), s.dtypeOf(condition.dtype),
                        DType::boolean());
  // Results are known once both branches are built; endIf makes the final
  // op and moves the branches into it.
  auto op = scf::IfOp::create(s.builder, s.loc, TypeRange(), c,
                              /*withElseRegion=*/true);
  // The branches get their yields when they are closed.
  for (Region *r : {&op.getThenRegion(), &op.getElseRegion()})
    r->front().getTerminator()->erase();
  s.regions.push_back(op);
  s.builder.setInsertionPointToStart(&op.getThenRegion().front());
}

void frontend::Builder::beginElse() {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<scf::IfOp>(s.regions.back()))
    fail("no branch is being built");
  auto op = llvm::cast<scf::IfOp>(s.regions.back());
  s.builder.setInsertionPointToStart(&op.getElseRegion().front());
}

std::vector<Handle>
frontend::Builder::endIf(const std::vector<Handle> &thenYielded,
                         const std::vector<Handle> &elseYielded) {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<scf::IfOp>(s.regions.back()))
    fail("no branch is being built");
  auto op = llvm::cast<scf::IfOp>(s.regions.pop_back_val());
  if (thenYielded.size() != elseYielded.size())
    fail("the branches of an if yield different numbers of values");
  SmallVector<Type> types;
  for (auto [t, e] : llvm::zip(thenYielded, elseYielded)) {
    Type type = s.valueOf(t).getType();
    if (s.valueOf(e).getType() != type)
      fail("a value set in an if has type " + t.dtype + shapeText(t.shape) +
           " after one branch and " + e.dtype + shapeText(e.shape) +
           " after the other");
    types.push_back(type);
  }
  for (auto [region, yielded] :
       {std::pair(&op.getThenRegion(), &thenYielded),
        std::pair(&op.getElseRegion(), &elseYielded)}) {
    s.builder.setInsertionPointToEnd(&region->front());
    scf::YieldOp::create(s.builder, s.loc, s.values(*yielded));
  }
  s.builder.setInsertionPoint(op);
  auto result = scf::IfOp::create(s.builder, op.getLoc(), types,
                                  op.getCondition(), /*withElse=*/true);
  for (Region *r : {&result.getThenRegion(), &result.getElseRegion()})
    if (!r->empty())
      r->front().erase();
  result.getThenRegion().takeBody(op.getThenRegion());
  result.getElseRegion().takeBody(op.getElseRegion());
  op.erase();
  s.builder.setInsertionPointAfter(result);
  return s.handles(result.getResults(), thenYielded);
}

std::vector<Handle>
frontend::Builder::beginWhile(const std::vector<Handle> &carried) {
  Impl &s = *impl;
  SmallVector<Value> inits = s.values(carried);
  SmallVector<Type> types(ValueRange(inits).getTypes());
  auto op = scf::WhileOp::create(s.builder, s.loc, types, inits);
  Block *before = s.builder.createBlock(&op.getBefore());
  for (Type t : types)
    before->addArgument(t, s.loc);
  s.regions.push_back(op);
  s.builder.setInsertionPointToStart(before);
  return s.handles(before->getArguments(), carried);
}

std::vector<Handle>
frontend::Builder::beginWhileBody(const Handle &condition,
                                  const std::vector<Handle> &carried) {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<scf::WhileOp>(s.regions.back()))
    fail("no while loop is being built");
  auto op = llvm::cast<scf::WhileOp>(s.regions.back());
  if (!condition.shape.empty())
    fail("a while condition must be a scalar");
  Value c = s.castValue(s.valueOf(condition), s.dtypeOf(condition.dtype),
                        DType::boolean());
  scf::ConditionOp::create(s.builder, s.loc, c, s.values(carried));
  SmallVector<Type> types(op.getResultTypes());
  Block *after = s.builder.createBlock(&op.getAfter());
  for (Type t : types)
    after->addArgument(t, s.loc);
  s.builder.setInsertionPointToStart(after);
  return s.handles(after->getArguments(), carried);
}

std::vector<Handle>
frontend::Builder::endWhile(const std::vector<Handle> &yielded) {
  Impl &s = *impl;
  if (s.regions.empty() || !llvm::isa<scf::WhileOp>(s.regions.back()))
    fail("no while loop is being built");
  auto op = llvm::cast<scf::WhileOp>(s.regions.pop_back_val());
  scf::YieldOp::create(s.builder, s.loc, s.values(yielded));
  s.builder.setInsertionPointAfter(op);
  return s.handles(op.getResults(), yielded);
}

//===----------------------------------------------------------------------===//
// Debugging and results
//===----------------------------------------------------------------------===//

void frontend::Builder::print(const std::string &prefix,
                              const std::vector<Handle> &args, bool hex) {
  Impl &s = *impl;
  SmallVector<bool> isSigned;
  for (const Handle &h : args)
    isSigned.push_back(s.dtypeOf(h.dtype).isSigned() ||
                       s.dtypeOf(h.dtype).isFloat());
  PrintOp::create(s.builder, s.loc, prefix, hex, s.values(args), isSigned);
}

void frontend::Builder::deviceAssert(const Handle &condition,
                                     const std::string &message) {
  Impl &s = *impl;
  Value c = s.castValue(s.valueOf(condition), s.dtypeOf(condition.dtype),
                        DType::boolean());
  AssertOp::create(s.builder, s.loc, c, message);
}

void frontend::Builder::barrier() {
  Impl &s = *impl;
  BarrierOp::create(s.builder, s.loc);
}

void frontend::Builder::scopeRecord(const Handle &buffer, int scope, int slots,
                                    int warps, bool end) {
  Impl &s = *impl;
  ScopeRecordOp::create(
      s.builder, s.loc, s.valueOf(buffer), s.builder.getI32IntegerAttr(scope),
      s.builder.getI32IntegerAttr(slots), s.builder.getI32IntegerAttr(warps),
      end ? s.builder.getUnitAttr() : UnitAttr());
}

Handle frontend::Builder::hint(const Handle &value, const std::string &name,
                               const std::vector<int64_t> &values) {
  Impl &s = *impl;
  Value v = s.valueOf(value);
  size_t rank = std::max<size_t>(1, value.shape.size());
  SmallVector<int64_t> dims(values.begin(), values.end());
  if (dims.size() == 1 && rank > 1)
    dims.assign(rank, dims[0]);
  if (dims.size() != rank)
    fail(name + " needs one value per dimension (" + Twine(rank) + "), got " +
         Twine(values.size()));
  for (int64_t d : dims)
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      fail(name + " values must be powers of two, got " + Twine(d));
  Attribute hint = s.builder.getDenseI64ArrayAttr(dims);
  if (Operation *def = v.getDefiningOp()) {
    def->setAttr("tile." + name, hint);
    return value;
  }
  // A value a loop carries: the hint holds for each value it takes, the
  // first and those the body yields (endFor hints them). Function
  // arguments get theirs from specialisation.
  auto arg = llvm::cast<BlockArgument>(v);
  auto loop = llvm::dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() == 0)
    return value;
  unsigned index = arg.getArgNumber() - 1;
  loop->setAttr(("tile." + name + kCarriedHint + Twine(index)).str(), hint);
  if (Operation *init = loop.getInitArgs()[index].getDefiningOp())
    init->setAttr("tile." + name, hint);
  return value;
}

void frontend::Builder::verify() {
  Impl &s = *impl;
  std::string messages;
  ScopedDiagnosticHandler handler(&s.context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(messages);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    return success();
  });
  if (failed(mlir::verify(*s.module)))
    fail("the kernel's IR does not verify:\n" + messages);
}

void frontend::Builder::optimize() {
  Impl &s = *impl;
  verify();
  PassManager pm(&s.context);
  buildDefaultPipeline(pm);
  std::string messages;
  ScopedDiagnosticHandler handler(&s.context, [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  if (failed(pm.run(*s.module)))
    fail("the target-independent pipeline failed:\n" + messages);
}

std::string frontend::Builder::text(bool withLocations) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  impl->module->print(os, OpPrintingFlags().enableDebugInfo(withLocations));
  return text;
}
