//===- BuilderImpl.h - the state behind frontend::Builder -----------------===//
//
// Private to the frontend: the Builder's context, module and open regions,
// with the typing, promotion and broadcasting helpers its methods share,
// split across files by concern (Builder.cpp, ExplicitLayouts.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_FRONTEND_BUILDERIMPL_H
#define TESSERA_FRONTEND_BUILDERIMPL_H

#include "frontend/Builder.h"

#include "frontend/DType.h"
#include "ir/Tile/KernelDialects.h"
#include "ir/Tile/TileOps.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile::frontend {

[[noreturn]] inline void fail(const Twine &message) {
  throw FrontendError(message.str());
}

inline std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A layout attribute from its text; fails naming the text and what the
/// parser said of it.
Attribute parseLayoutAttribute(const std::string &text, MLIRContext *context);

/// A load's or copy's cache modifier from its name (".cg").
inline CacheModifier cacheModifier(const std::string &name) {
  if (name.empty())
    return CacheModifier::none;
  std::string n = name[0] == '.' ? name.substr(1) : name;
  if (auto c = symbolizeCacheModifier(n))
    return *c;
  fail("unknown cache modifier '" + name +
       "' (expected .ca, .cg, .cs, .wb, "
       ".wt or .cv)");
}

/// An eviction policy from its name ("evict_last").
inline EvictionPolicy evictionPolicy(const std::string &name) {
  if (name.empty())
    return EvictionPolicy::normal;
  if (auto e = symbolizeEvictionPolicy(name))
    return *e;
  fail("unknown eviction policy '" + name +
       "' (expected evict_first or "
       "evict_last)");
}

/// A loop's attribute holding a hint on the value it carries at an index
/// ("tile.divisibility_carried0"), until the loop's body is built.
constexpr llvm::StringLiteral kCarriedHint = "_carried";

/// The state behind a Builder: the context, the module, and the functions,
/// loops and branches being built.
struct Builder::Impl {
  Impl() : builder(&context), loc(UnknownLoc::get(&context)) {
    DialectRegistry registry;
    registerKernelDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  /// Open loops, branches and combiners, innermost last.
  SmallVector<Operation *> regions;
  /// For each open combiner, the dtypes of the values it combines.
  SmallVector<std::vector<std::string>> combinerDtypes;

  //===--------------------------------------------------------------------===//
  // Handles
  //===--------------------------------------------------------------------===//

  DType dtypeOf(const std::string &name) {
    std::optional<DType> t = DType::parse(name);
    if (!t)
      fail("unknown dtype '" + name + "'");
    return *t;
  }

  Value valueOf(const Handle &h) {
    return Value::getFromOpaquePointer(h.value);
  }

  /// Every value the language sees passes here: tensors beyond the dialect's
  /// bound stop at the line that makes them.
  Handle handle(Value v, const DType &dtype) {
    Handle h;
    if (explicitLayouts)
      settle(v);
    h.value = v.getAsOpaquePointer();
    h.dtype = dtype.name();
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType())) {
      if (llvm::Error error = verifyTensorSize(tensor.getShape()))
        fail(llvm::toString(std::move(error)));
      h.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      h.layout = attributeText(tensor.getEncoding());
    } else if (auto desc = dyn_cast<MemDescType>(v.getType())) {
      h.shape.assign(desc.getShape().begin(), desc.getShape().end());
      h.layout = attributeText(desc.getEncoding());
    }
    return h;
  }

  //===--------------------------------------------------------------------===//
  // Explicit layouts (ExplicitLayouts.cpp)
  //===--------------------------------------------------------------------===//

  /// Whether tensors carry the layouts the kernel gives them (the Gluon
  /// level) instead of getting them from the backend later.
  bool explicitLayouts = false;
  /// Ops built without a layout (splats, constants, ranges in AutoLayout)
  /// that a use gave one: another use may want them in another layout.
  llvm::DenseSet<Operation *> adopted;
  /// Ops whose operands and results have the layouts they can have yet.
  llvm::DenseSet<Operation *> settled;

  static std::string attributeText(Attribute attr);
  /// A layout from its text (`#tile.blocked<{...}>`), checked to suit
  /// tensors of `shape` (a distributed one) or buffers of it (a shared one).
  Attribute parseLayout(const std::string &text, ArrayRef<int64_t> shape,
                        bool shared);
  /// Gives `v`, and the values it is computed from, the layouts their
  /// operands imply (Gluon's rules). Values nothing fixes yet (a splat, a
  /// range in AutoLayout) stay without one until a use gives them its own.
  void settle(Value v);
  /// Settles `op`'s operands, then its results.
  void settleOp(Operation *op);
  /// `v` in `layout`: itself where it is, or where it had none (it takes
  /// it); a copy of an adopted value another use laid out otherwise.
  Value relaid(Value v, Attribute layout);
  /// `v`, made without a layout, in the `layout` the kernel gives it: uses
  /// that want another are an error.
  Value anchor(Value v, Attribute layout);
  /// A tensor value that must have a layout by now (one a loop carries, a
  /// store into shared memory).
  void requireLayout(Value v, StringRef what);
  /// Fails where a tensor of the function has no layout at its end.
  void checkAllLaidOut(Operation *function);

  Type typeOf(const DType &dtype, ArrayRef<int64_t> shape) {
    Type element = dtype.toMLIR(&context);
    if (shape.empty())
      return element;
    return RankedTensorType::get(shape, element);
  }

  static void checkShape(ArrayRef<int64_t> shape) {
    for (int64_t d : shape)
      if (d <= 0 || !llvm::isPowerOf2_64(d))
        fail("tensor dimensions must be powers of two, got shape " +
             shapeText(shape));
  }

  //===--------------------------------------------------------------------===//
  // Types: Triton's promotion rules
  //===--------------------------------------------------------------------===//

  static int floatRank(const DType &t) {
    StringRef n = t.floatName();
    if (n == "fp64")
      return 4;
    if (n == "fp32")
      return 3;
    if (n == "fp16" || n == "bf16")
      return 2;
    return 1;
  }

  /// The dtype both operands of an arithmetic op are computed in (fp8e4b15
  /// as fp16).
  DType computationType(const DType &a, const DType &b, bool weakA, bool weakB,
                        StringRef op) {
    if (a.isFp8e4b15() || b.isFp8e4b15())
      return computationType(computable(a), computable(b), weakA, weakB, op);
    if (a.isPointer() || b.isPointer())
      fail("cannot apply '" + op + "' to pointers " + a.name() + " and " +
           b.name());
    // A Python literal takes the other operand's dtype where it can.
    if (weakA && !weakB)
      return weakOperand(a, b, op);
    if (weakB && !weakA)
      return weakOperand(b, a, op);
    if ((op == "truediv" || op == "div_rn") && !a.isFloat() && !b.isFloat())
      return DType::floating("fp32");
    if (a.isFloat() || b.isFloat()) {
      if (!b.isFloat())
        return a;
      if (!a.isFloat())
        return b;
      if (a == b)
        return a;
      if (floatRank(a) != floatRank(b))
        return floatRank(a) > floatRank(b) ? a : b;
      // fp16 with bf16, or two fp8 formats: the next wider type.
      return DType::floating(floatRank(a) == 2 ? "fp32" : "fp16");
    }
    if (a.isBool() && b.isBool())
      return a;
    if (a.isBool())
      return b;
    if (b.isBool())
      return a;
    unsigned bits = std::max(a.bits(), b.bits());
    if (a.isSigned() == b.isSigned())
      return DType::integer(bits, a.isSigned());
    // Mixed signedness: unsigned wins when it is at least as wide.
    const DType &u = a.isSigned() ? b : a;
    const DType &s = a.isSigned() ? a : b;
    return DType::integer(bits, !(u.bits() >= s.bits()));
  }

  /// The dtype values of `t` are computed in: fp16 for fp8e4b15.
  static DType computable(const DType &t) {
    return t.isFp8e4b15() ? DType::floating("fp16") : t;
  }

  DType weakOperand(const DType &weak, const DType &strong, StringRef op) {
    if ((op == "truediv" || op == "div_rn") && !strong.isFloat())
      return DType::floating("fp32");
    if (weak.isFloat() && !strong.isFloat())
      return DType::floating("fp32");
    if (strong.isBool() && weak.isInt())
      return DType::integer(32);
    return strong;
  }

  //===--------------------------------------------------------------------===//
  // Conversions and broadcasting
  //===--------------------------------------------------------------------===//

  Value castValue(Value v, const DType &from, const DType &to) {
    if (from == to)
      return v;
    if (from.isFp8e4b15() || to.isFp8e4b15())
      return castFp8e4b15(v, from, to);
    auto shape = shapeOf(v);
    Type target = typeOf(to, shape);
    OpBuilder &b = builder;
    if (from.isPointer() || to.isPointer()) {
      // Pointers are 64-bit addresses, cast to and from 64-bit integers
      // (and between pointee types through one).
      auto address = [](const DType &t) { return t.isInt() && t.bits() == 64; };
      if (from.isPointer() && to.isPointer()) {
        DType i64 = DType::integer(64);
        return castValue(castValue(v, from, i64), i64, to);
      }
      if (to.isPointer() && address(from))
        return IntToPtrOp::create(b, loc, target, v);
      if (from.isPointer() && address(to))
        return PtrToIntOp::create(b, loc, target, v);
      fail("cannot cast " + from.name() + " to " + to.name() +
           ": pointers cast to and from 64-bit integers");
    }
    if (from.isFloat() && to.isFloat()) {
      if (to.bits() > from.bits() ||
          (to.bits() == from.bits() && floatRank(to) > floatRank(from)))
        return arith::ExtFOp::create(b, loc, target, v);
      if (to.bits() < from.bits())
        return arith::TruncFOp::create(b, loc, target, v);
      // fp16 <-> bf16: through fp32.
      Value wide = arith::ExtFOp::create(
          b, loc, typeOf(DType::floating("fp32"), shape), v);
      return arith::TruncFOp::create(b, loc, target, wide);
    }
    if (from.isFloat()) {
      if (to.isBool()) {
        Value zero = zeroOf(from, shape);
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                     zero);
      }
      if (to.isSigned())
        return arith::FPToSIOp::create(b, loc, target, v);
      return arith::FPToUIOp::create(b, loc, target, v);
    }
    if (to.isFloat()) {
      if (from.isSigned())
        return arith::SIToFPOp::create(b, loc, target, v);
      return arith::UIToFPOp::create(b, loc, target, v);
    }
    // Integers and bools.
    if (to.isBool()) {
      Value zero = zeroOf(from, shape);
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    }
    if (to.bits() > from.bits()) {
      if (from.isSigned())
        return arith::ExtSIOp::create(b, loc, target, v);
      return arith::ExtUIOp::create(b, loc, target, v);
    }
    if (to.bits() < from.bits())
      return arith::TruncIOp::create(b, loc, target, v);
    return v; // same width, other signedness: the same bits
  }

  static SmallVector<int64_t> shapeOf(Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      return SmallVector<int64_t>(t.getShape());
    return {};
  }

  /// The constant `value`, splat to `shape` (a scalar where it is empty).
  Value constantOf(TypedAttr value, ArrayRef<int64_t> shape) {
    if (shape.empty())
      return arith::ConstantOp::create(builder, loc, value);
    return arith::ConstantOp::create(
        builder, loc,
        SplatElementsAttr::get(RankedTensorType::get(shape, value.getType()),
                               value));
  }

  Value zeroOf(const DType &dtype, ArrayRef<int64_t> shape) {
    Type element = dtype.toMLIR(&context);
    return constantOf(dtype.isFloat() && !dtype.isFp8e4b15()
                          ? TypedAttr(builder.getFloatAttr(element, 0.0))
                          : TypedAttr(builder.getIntegerAttr(element, 0)),
                      shape);
  }

  /// Conversions to and from fp8e4b15 (Triton's, bit for bit), through
  /// fp16, whose exponent has the same bias: a byte s|eeee|mmm is the fp16
  /// s|0eeee|mmm0000000. Into fp8e4b15, a value becomes fp16 rounding
  /// toward zero, its magnitude is clamped to 1.75 (infinities and NaN
  /// too) and rounded to 3 mantissa bits, halves away from zero.
  Value castFp8e4b15(Value v, const DType &from, const DType &to) {
    auto shape = shapeOf(v);
    DType f16 = DType::floating("fp16");
    Type i16 = typeOf(DType::integer(16), shape),
         i8 = typeOf(DType::integer(8), shape);
    auto constant = [&](int64_t c) { return intConstantOf(16, c, shape); };
    OpBuilder &b = builder;
    if (from.isFp8e4b15()) {
      Value bits = arith::ExtUIOp::create(b, loc, i16, v);
      Value sign = arith::ShLIOp::create(
          b, loc, arith::AndIOp::create(b, loc, bits, constant(0x80)),
          constant(8));
      Value magnitude = arith::ShLIOp::create(
          b, loc, arith::AndIOp::create(b, loc, bits, constant(0x7f)),
          constant(7));
      Value half = arith::BitcastOp::create(
          b, loc, typeOf(f16, shape),
          arith::OrIOp::create(b, loc, sign, magnitude));
      return castValue(half, f16, to);
    }
    // bf16, the other fp8 formats and integers go through fp32.
    DType wide = from;
    if (!from.isFloat() || (from != f16 && from.bits() < 32)) {
      wide = DType::floating("fp32");
      v = castValue(v, from, wide);
    }
    Value half = castValue(v, wide, f16);
    if (wide != f16) {
      // Rounded to nearest, a value whose magnitude grew steps back a unit
      // in the last place: rounded toward zero (NaN compares false).
      Value grew = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OGT,
          math::AbsFOp::create(b, loc, castValue(half, f16, wide)),
          math::AbsFOp::create(b, loc, v));
      Value back = arith::SubIOp::create(
          b, loc, arith::BitcastOp::create(b, loc, i16, half),
          arith::ExtUIOp::create(b, loc, i16, grew));
      half = arith::BitcastOp::create(b, loc, typeOf(f16, shape), back);
    }
    Value bits = arith::BitcastOp::create(b, loc, i16, half);
    Value magnitude = arith::MinUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, bits, constant(0x7fff)),
        constant(0x3f00));
    Value rounded = arith::ShRUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, magnitude, constant(0x40)),
        constant(7));
    Value sign = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, constant(8)),
        constant(0x80));
    return arith::TruncIOp::create(b, loc, i8,
                                   arith::OrIOp::create(b, loc, rounded, sign));
  }

  /// An integer constant of `bits` bits, splat to `shape`.
  Value intConstantOf(unsigned bits, int64_t value, ArrayRef<int64_t> shape) {
    return constantOf(
        builder.getIntegerAttr(builder.getIntegerType(bits), value), shape);
  }

  Value broadcastValue(Value v, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> from = shapeOf(v);
    if (ArrayRef<int64_t>(from) == shape)
      return v;
    Type element = getElementTypeOrSelf(v.getType());
    if (from.empty())
      return SplatOp::create(builder, loc,
                             RankedTensorType::get(shape, element), v);
    if (from.size() > shape.size())
      fail("cannot broadcast shape " + shapeText(from) + " to " +
           shapeText(shape));
    // Leading dimensions of size 1 first, as numpy does.
    while (from.size() < shape.size()) {
      from.insert(from.begin(), 1);
      v = ExpandDimsOp::create(builder, loc,
                               RankedTensorType::get(from, element), v, 0);
    }
    for (size_t d = 0; d < shape.size(); ++d)
      if (from[d] != shape[d] && from[d] != 1)
        fail("cannot broadcast shape " + shapeText(shapeOf(v)) + " to " +
             shapeText(shape));
    if (ArrayRef<int64_t>(from) == shape)
      return v;
    return BroadcastOp::create(builder, loc,
                               RankedTensorType::get(shape, element), v);
  }

  SmallVector<int64_t> commonShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
    SmallVector<int64_t> result;
    size_t rank = std::max(a.size(), b.size());
    for (size_t i = 0; i < rank; ++i) {
      int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
      int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
      if (x != y && x != 1 && y != 1)
        fail("incompatible shapes " + shapeText(a) + " and " + shapeText(b) +
             " for broadcasting");
      result.push_back(std::max(x, y));
    }
    return result;
  }

  //===--------------------------------------------------------------------===//
  // Region bookkeeping
  //===--------------------------------------------------------------------===//

  void requireFunction() {
    if (!function)
      fail("no function is being built");
  }

  SmallVector<Value> values(const std::vector<Handle> &handles) {
    SmallVector<Value> vs;
    for (const Handle &h : handles)
      vs.push_back(valueOf(h));
    return vs;
  }

  std::vector<Handle> handles(ValueRange vs, const std::vector<Handle> &like) {
    std::vector<Handle> hs;
    for (auto [v, h] : llvm::zip(vs, like))
      hs.push_back(handle(v, dtypeOf(h.dtype)));
    return hs;
  }
};

} // namespace mlir::tile::frontend

#endif // TESSERA_FRONTEND_BUILDERIMPL_H
