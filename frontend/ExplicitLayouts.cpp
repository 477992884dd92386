//===- ExplicitLayouts.cpp - the explicit level: layouts and shared memory ===//
//
// With explicit layouts (Gluon's level) every tensor carries the layout the
// kernel gives it. Constructors take one; every other op derives its
// result's from its operands by Gluon's rules: elementwise ops keep their
// operands' (which must agree), a reduction gives the slice of its
// operand's along its axis, expand_dims takes a slice back to its parent,
// a dot gives its accumulator's (ir/Tile/LayoutInference.h). Values nothing
// fixes (a splat of a Python scalar, a range in AutoLayout) wait for a use
// to give them its layout. CoalescedLayout (#tile.coalesced) goes through
// these ops as it is; the backend resolves it for its target. The ops a
// kernel writes here are the ones the backends' automatic passes produce;
// the backend keeps their layouts (tile.explicit_layouts).
//
//===----------------------------------------------------------------------===//

#include "frontend/BuilderImpl.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/LayoutInference.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;

namespace {

Attribute layoutOf(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  return tensor ? tensor.getEncoding() : Attribute();
}

bool needsLayout(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  return tensor && !tensor.getEncoding();
}

/// Gives `v` `layout` in place (a constant's value too).
void setLayout(Value v, Attribute layout) {
  RankedTensorType type = withLayout(v.getType(), layout);
  v.setType(type);
  if (auto constant = v.getDefiningOp<arith::ConstantOp>())
    constant.setValueAttr(
        cast<DenseElementsAttr>(constant.getValue()).reshape(type));
}

std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  return "";
}

} // namespace

std::string frontend::Builder::Impl::attributeText(Attribute attr) {
  if (!attr)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

Attribute frontend::parseLayoutAttribute(const std::string &text,
                                         MLIRContext *context) {
  std::string messages;
  Attribute layout;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      messages += (messages.empty() ? "" : "; ") + diag.str();
      return success();
    });
    layout = parseAttribute(text, context);
  }
  if (!layout)
    fail("invalid layout " + text + (messages.empty() ? "" : ": " + messages));
  return layout;
}

Attribute frontend::Builder::Impl::parseLayout(const std::string &text,
                                               ArrayRef<int64_t> shape,
                                               bool shared) {
  Attribute layout = parseLayoutAttribute(text, &context);
  if (shared) {
    if (!isa<SharedLayoutAttrInterface>(layout))
      fail("shared memory needs a shared layout, got " + text);
    return layout;
  }
  // The backend gives a CoalescedLayout's tensors their layout, of any rank.
  if (isa<CoalescedLayoutAttr>(layout))
    return layout;
  auto distributed = dyn_cast<DistributedLayoutAttrInterface>(layout);
  if (!distributed)
    fail("a tensor needs a distributed layout, got " + text);
  if (distributed.getRank() != shape.size())
    fail("the layout " + text + " is for tensors of rank " +
         Twine(distributed.getRank()) + ", not of shape " + shapeText(shape));
  return layout;
}

Value frontend::Builder::Impl::relaid(Value v, Attribute layout) {
  Attribute current = layoutOf(v);
  if (current == layout)
    return v;
  Operation *def = v.getDefiningOp();
  if (current && (!def || !adopted.contains(def)))
    fail("layout mismatch: " + attributeText(current) + " and " +
         attributeText(layout) +
         " (gl.convert_layout changes a tensor's layout)");
  if (!def)
    fail("a tensor argument needs a layout");
  // Another use gave an adopted value its layout: this use gets a copy.
  if (current) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(def);
    def = builder.clone(*def);
    v = def->getResult(llvm::cast<OpResult>(v).getResultNumber());
  }
  for (OpOperand &operand : def->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    Attribute wanted =
        inferOperandLayout(def, operand.getOperandNumber(), layout);
    if (!wanted)
      fail("cannot lay out the operands of '" + def->getName().getStringRef() +
           "' for the layout " + attributeText(layout));
    operand.set(relaid(operand.get(), wanted));
  }
  for (Value result : def->getResults())
    if (isa<RankedTensorType>(result.getType()))
      setLayout(result, layout);
  adopted.insert(def);
  return v;
}

Value frontend::Builder::Impl::anchor(Value v, Attribute layout) {
  v = relaid(v, layout);
  adopted.erase(v.getDefiningOp());
  return v;
}

void frontend::Builder::Impl::settle(Value v) {
  if (Operation *def = v.getDefiningOp())
    if (!settled.contains(def))
      settleOp(def);
}

void frontend::Builder::Impl::settleOp(Operation *op) {
  // Ops MLIR types from their operands (arith's) may have a layout
  // already, and still operands to lay out.
  settled.insert(op);
  for (Value operand : op->getOperands())
    settle(operand);
  auto setResults = [&](Attribute layout) {
    for (Value result : op->getResults())
      if (needsLayout(result))
        setLayout(result, layout);
  };
  TypeSwitch<Operation *>(op)
      .Case<SplatOp, MakeRangeOp, arith::ConstantOp, ConvertLayoutOp>(
          [](Operation *) {})
      .Case([&](ExpandDimsOp expand) {
        Attribute layout = layoutOf(expand.getSrc());
        if (!layout)
          return;
        Attribute result = inferResultLayout(expand, 0, layout);
        if (!result)
          fail("expand_dims at axis " + Twine(expand.getAxis()) +
               " needs its operand in a SliceLayout with dim=" +
               Twine(expand.getAxis()) + ", got " + attributeText(layout));
        setResults(result);
      })
      .Case<BroadcastOp, TransOp, ReshapeOp>([&](Operation *op) {
        if (Attribute layout = layoutOf(op->getOperand(0)))
          setResults(inferResultLayout(op, 0, layout));
      })
      .Case([&](ReduceOp reduce) {
        Attribute layout;
        for (Value operand : reduce.getOperands())
          if ((layout = layoutOf(operand)))
            break;
        if (!layout)
          return;
        for (OpOperand &operand : reduce->getOpOperands())
          operand.set(relaid(operand.get(), layout));
        setResults(inferResultLayout(reduce, 0, layout));
      })
      .Case([&](DotOp dot) {
        Attribute layout = layoutOf(dot.getC());
        if (!layout)
          return;
        for (auto [index, operand] :
             llvm::enumerate(SmallVector<Value>{dot.getA(), dot.getB()})) {
          auto operandLayout =
              dyn_cast_or_null<DotOperandLayoutAttr>(layoutOf(operand));
          if (!operandLayout || operandLayout.getOpIdx() != index ||
              operandLayout.getParent() != layout)
            fail("operand " + Twine(index) + " of a dot with accumulator in " +
                 attributeText(layout) +
                 " must be in DotOperandLayout(operand_index=" + Twine(index) +
                 ", parent=that layout), got " +
                 attributeText(layoutOf(operand)));
        }
        setResults(layout);
      })
      .Default([&](Operation *other) {
        if (other->getNumRegions() != 0)
          return;
        // The operands that share the result's shape (all of them for a
        // store) share its layout.
        auto resultType =
            other->getNumResults()
                ? dyn_cast<RankedTensorType>(other->getResult(0).getType())
                : RankedTensorType();
        SmallVector<OpOperand *> sharing;
        for (OpOperand &operand : other->getOpOperands()) {
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (type && (!resultType || type.getShape() == resultType.getShape()))
            sharing.push_back(&operand);
        }
        // Values the kernel laid out win over adopted ones.
        Attribute layout;
        for (bool adoptedToo : {false, true})
          for (OpOperand *operand : sharing) {
            Attribute l = layoutOf(operand->get());
            Operation *def = operand->get().getDefiningOp();
            if (!l || layout || (!adoptedToo && def && adopted.contains(def)))
              continue;
            layout = l;
          }
        if (!layout)
          return;
        for (OpOperand *operand : sharing)
          operand->set(relaid(operand->get(), layout));
        if (resultType && !needsLayout(other->getResult(0)))
          return;
        for (Value result : other->getResults())
          if (auto type = dyn_cast<RankedTensorType>(result.getType())) {
            if (resultType && type.getShape() != resultType.getShape())
              fail("'" + other->getName().getStringRef() +
                   "' is not supported with explicit layouts");
            setLayout(result, layout);
          }
      });
}

void frontend::Builder::Impl::requireLayout(Value v, StringRef what) {
  settle(v);
  if (needsLayout(v))
    fail(what + " needs a layout (AutoLayout must be resolved before: "
                "gl.set_auto_layout or gl.convert_layout)");
}

void frontend::Builder::Impl::checkAllLaidOut(Operation *function) {
  // Ops without results (stores, prints) settle their operands last.
  function->walk([&](Operation *op) {
    if (op->getNumResults() == 0 && op->getNumRegions() == 0)
      settleOp(op);
  });
  function->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (needsLayout(result))
        fail("a tensor made at " + locationText(op->getLoc()) +
             " never gets a layout: give it one (a layout argument, "
             "gl.set_auto_layout or gl.convert_layout)");
  });
}

//===----------------------------------------------------------------------===//
// The Builder's explicit-level methods
//===----------------------------------------------------------------------===//

void frontend::Builder::setExplicitLayouts() {
  Impl &s = *impl;
  s.explicitLayouts = true;
  s.module->getOperation()->setAttr(kExplicitLayoutsAttr,
                                    s.builder.getUnitAttr());
}

Handle frontend::Builder::convertLayout(const Handle &value,
                                        const std::string &layout,
                                        bool assertTrivial) {
  Impl &s = *impl;
  Value v = s.valueOf(value);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    fail("convert_layout needs a tensor, got a scalar");
  Attribute target = s.parseLayout(layout, type.getShape(), /*shared=*/false);
  s.settle(v);
  Value result;
  if (needsLayout(v)) {
    result = s.relaid(v, target);
  } else {
    if (assertTrivial) {
      std::optional<LinearLayout> from = toLinearLayout(type),
                                  to = toLinearLayout(withLayout(type, target));
      if (!from || !to || *from != *to)
        fail("convert_layout from " + value.layout + " to " + layout +
             " moves data between threads (assert_trivial)");
    }
    // A conversion to CoalescedLayout stays: it lets the backend choose
    // the result's layout apart from the operand's.
    result = type.getEncoding() == target && !isa<CoalescedLayoutAttr>(target)
                 ? v
                 : ConvertLayoutOp::create(s.builder, s.loc,
                                           withLayout(type, target), v)
                       .getResult();
  }
  return s.handle(result, s.dtypeOf(value.dtype));
}

Handle frontend::Builder::setAutoLayout(const Handle &value,
                                        const std::string &layout) {
  Impl &s = *impl;
  Value v = s.valueOf(value);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    fail("set_auto_layout needs a tensor, got a scalar");
  s.settle(v);
  if (!needsLayout(v))
    fail("set_auto_layout needs a tensor in AutoLayout, got one in " +
         value.layout);
  Attribute target = s.parseLayout(layout, type.getShape(), /*shared=*/false);
  return s.handle(s.anchor(v, target), s.dtypeOf(value.dtype));
}

namespace {
/// A memdesc type, or the reason it is not one (a layout of another rank).
MemDescType checkedMemDesc(MLIRContext *context, ArrayRef<int64_t> shape,
                           Type element, Attribute encoding, bool isMutable,
                           ArrayRef<int64_t> allocShape) {
  std::string messages;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      messages += (messages.empty() ? "" : "; ") + diag.str();
      return success();
    });
    if (failed(MemDescType::verify(
            [&] { return emitError(UnknownLoc::get(context)); }, shape, element,
            encoding, isMutable, allocShape)))
      fail("invalid shared memory buffer: " + messages);
  }
  return MemDescType::get(shape, element, encoding, isMutable, allocShape);
}

MemDescType memdescOf(Value v) {
  auto type = dyn_cast<MemDescType>(v.getType());
  if (!type)
    fail("expected a shared memory descriptor, got a tensor or scalar");
  return type;
}
} // namespace

Handle frontend::Builder::localAlloc(const std::string &dtype,
                                     const std::vector<int64_t> &shape,
                                     const std::string &layout,
                                     const std::optional<Handle> &value) {
  Impl &s = *impl;
  DType element = s.dtypeOf(dtype);
  if (element.isPointer())
    fail("shared memory holds numbers, not pointers");
  // Leading dimensions stack buffers (a pipeline's stages): any number.
  for (auto [i, d] : llvm::enumerate(shape))
    if (d <= 0 || (i + std::min<size_t>(2, shape.size()) >= shape.size() &&
                   !llvm::isPowerOf2_64(d)))
      fail("shared memory of shape " + shapeText(shape) +
           ": dimensions must be positive, the last two powers of two");
  Attribute encoding = s.parseLayout(layout, shape, /*shared=*/true);
  auto type = checkedMemDesc(&s.context, shape, element.toMLIR(&s.context),
                             encoding, /*isMutable=*/true, shape);
  Value src;
  if (value) {
    if (value->shape != shape || value->dtype != dtype)
      fail("allocate_shared_memory of " + dtype + shapeText(shape) +
           " cannot hold a value of " + value->dtype + shapeText(value->shape));
    src = s.valueOf(*value);
    s.requireLayout(src, "the value a shared memory buffer is made from");
  }
  return s.handle(LocalAllocOp::create(s.builder, s.loc, type, src), element);
}

Handle frontend::Builder::localLoad(const Handle &buffer,
                                    const std::string &layout) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  Attribute target = s.parseLayout(layout, type.getShape(), /*shared=*/false);
  auto result =
      RankedTensorType::get(type.getShape(), type.getElementType(), target);
  return s.handle(
      LocalLoadOp::create(s.builder, s.loc, result, s.valueOf(buffer)),
      s.dtypeOf(buffer.dtype));
}

void frontend::Builder::localStore(const Handle &buffer, const Handle &value) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  if (value.shape != std::vector<int64_t>(type.getShape()) ||
      value.dtype != buffer.dtype)
    fail("cannot store a value of " + value.dtype + shapeText(value.shape) +
         " into shared memory of " + buffer.dtype + shapeText(type.getShape()));
  if (!type.getMutableMemory())
    fail("cannot store into an immutable shared memory buffer");
  s.requireLayout(s.valueOf(value), "a value stored into shared memory");
  LocalStoreOp::create(s.builder, s.loc, s.valueOf(value), s.valueOf(buffer));
}

void frontend::Builder::localDealloc(const Handle &buffer) {
  Impl &s = *impl;
  Value v = s.valueOf(buffer);
  memdescOf(v);
  if (!v.getDefiningOp<LocalAllocOp>())
    fail("only a buffer allocate_shared_memory made can be freed, not a view");
  LocalDeallocOp::create(s.builder, s.loc, v);
}

Handle frontend::Builder::memdescIndex(const Handle &buffer,
                                       const Handle &index) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  if (type.getRank() < 2)
    fail("index() needs a buffer of at least two dimensions, got " +
         shapeText(type.getShape()));
  if (!index.shape.empty() || !s.dtypeOf(index.dtype).isInt())
    fail("a buffer index must be an integer scalar, got " + index.dtype);
  Value i =
      s.castValue(s.valueOf(index), s.dtypeOf(index.dtype), DType::integer(32));
  auto result = checkedMemDesc(&s.context, type.getShape().drop_front(),
                               type.getElementType(), type.getEncoding(),
                               type.getMutableMemory(), type.getAllocShape());
  return s.handle(
      MemDescIndexOp::create(s.builder, s.loc, result, s.valueOf(buffer), i),
      s.dtypeOf(buffer.dtype));
}

Handle frontend::Builder::memdescSlice(const Handle &buffer, int64_t start,
                                       int64_t length, int dim) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  int rank = type.getRank();
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    fail("slice dimension " + Twine(dim) + " is out of range for a buffer of " +
         shapeText(type.getShape()));
  if (start < 0 || length <= 0 || !llvm::isPowerOf2_64(length) ||
      start + length > type.getShape()[dim] || start % length)
    fail("slice(" + Twine(start) + ", " + Twine(length) + ", dim=" +
         Twine(dim) + ") of a buffer of " + shapeText(type.getShape()) +
         " must take a power-of-two length at a multiple of it, within it");
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = length;
  SmallVector<int32_t> offsets(rank, 0);
  offsets[dim] = start;
  auto result = checkedMemDesc(&s.context, shape, type.getElementType(),
                               type.getEncoding(), type.getMutableMemory(),
                               type.getAllocShape());
  return s.handle(MemDescSubsliceOp::create(s.builder, s.loc, result,
                                            s.valueOf(buffer), offsets),
                  s.dtypeOf(buffer.dtype));
}

Handle frontend::Builder::memdescPermute(const Handle &buffer,
                                         const std::vector<int32_t> &order) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  SmallVector<bool> seen(type.getRank(), false);
  if (order.size() != type.getRank())
    fail("permute needs one entry per dimension of the buffer");
  for (int32_t d : order) {
    if (d < 0 || d >= (int32_t)type.getRank() || seen[d])
      fail("permute's order must be a permutation of the buffer's dimensions");
    seen[d] = true;
  }
  MemDescType result = transposedMemDesc(type, order);
  if (!result)
    fail("cannot permute a buffer laid out by " + buffer.layout);
  return s.handle(MemDescTransOp::create(s.builder, s.loc, result,
                                         s.valueOf(buffer), order),
                  s.dtypeOf(buffer.dtype));
}

namespace {
/// `type` seen as `result`: a memdesc_reinterpret, checked here for a
/// message in the kernel's words.
Value reinterpretBuffer(OpBuilder &builder, Location loc, Value buffer,
                        MemDescType result) {
  auto type = cast<MemDescType>(buffer.getType());
  if (type.getShape() != type.getLayoutShape())
    fail("only a whole buffer can be reshaped or reinterpreted, not a slice");
  if (getBufferBits(result) > getBufferBits(type))
    fail("a buffer of " + Twine(getBufferBits(type) / 8) +
         " bytes cannot hold " + Twine(getBufferBits(result) / 8));
  return MemDescReinterpretOp::create(builder, loc, result, buffer);
}
} // namespace

Handle frontend::Builder::memdescReshape(const Handle &buffer,
                                         const std::vector<int64_t> &shape) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      fail("reshape's shape must hold powers of two, got " + shapeText(shape));
    count *= d;
  }
  if (count != type.getNumElements())
    fail("cannot reshape a buffer of " + shapeText(type.getShape()) + " to " +
         shapeText(shape));
  // Each element keeps its offset: the linear form, reshaped row-major,
  // with the same padding.
  LinearLayout linear =
      reshapeRowMajor(llvm::cast<SharedLayoutAttrInterface>(type.getEncoding())
                          .toLinearLayout(type.getShape()),
                      shape);
  SharedPadding padding = getSharedPadding(type.getEncoding());
  Attribute encoding =
      padding.empty()
          ? Attribute(SharedLinearEncodingAttr::get(&s.context, linear,
                                                    /*alignment=*/16))
          : PaddedSharedLayoutAttr::get(&s.context, padding.intervals,
                                        padding.paddings, linear);
  auto result = checkedMemDesc(&s.context, shape, type.getElementType(),
                               encoding, type.getMutableMemory(), shape);
  return s.handle(
      reinterpretBuffer(s.builder, s.loc, s.valueOf(buffer), result),
      s.dtypeOf(buffer.dtype));
}

Handle frontend::Builder::memdescReinterpret(const Handle &buffer,
                                             const std::string &dtype,
                                             const std::vector<int64_t> &shape,
                                             const std::string &layout) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  DType element = s.dtypeOf(dtype);
  if (element.isPointer())
    fail("shared memory holds numbers, not pointers");
  Attribute encoding = s.parseLayout(layout, shape, /*shared=*/true);
  auto result = checkedMemDesc(&s.context, shape, element.toMLIR(&s.context),
                               encoding, type.getMutableMemory(), shape);
  return s.handle(
      reinterpretBuffer(s.builder, s.loc, s.valueOf(buffer), result), element);
}

void frontend::Builder::asyncCopyGlobalToLocal(
    const Handle &buffer, const Handle &pointer,
    const std::optional<Handle> &mask, const std::string &cache,
    const std::string &eviction) {
  Impl &s = *impl;
  MemDescType type = memdescOf(s.valueOf(buffer));
  DType tp = s.dtypeOf(pointer.dtype);
  if (!tp.isPointer() || pointer.shape != std::vector<int64_t>(type.getShape()))
    fail("async_copy_global_to_shared needs a tensor of pointers of the "
         "buffer's shape " +
         shapeText(type.getShape()) + ", got " + pointer.dtype +
         shapeText(pointer.shape));
  if (tp.pointee().toMLIR(&s.context) != type.getElementType())
    fail("the pointers point to " + tp.pointee().name() +
         " but the buffer holds " + buffer.dtype);
  if (!type.getMutableMemory())
    fail("cannot copy into an immutable shared memory buffer");
  Value p = s.valueOf(pointer);
  s.requireLayout(p, "the pointers of an async copy");
  Value m;
  if (mask) {
    m = s.broadcastValue(
        s.castValue(s.valueOf(*mask), s.dtypeOf(mask->dtype), DType::boolean()),
        type.getShape());
    m = s.relaid(m, layoutOf(p));
  }
  AsyncCopyGlobalToLocalOp::create(s.builder, s.loc, p, s.valueOf(buffer), m,
                                   Value(), cacheModifier(cache),
                                   evictionPolicy(eviction));
}

void frontend::Builder::asyncCommitGroup() {
  Impl &s = *impl;
  AsyncCommitGroupOp::create(s.builder, s.loc);
}

void frontend::Builder::asyncWait(int pending) {
  Impl &s = *impl;
  if (pending < 0)
    fail("wait_group needs a number of groups from 0, got " + Twine(pending));
  AsyncWaitOp::create(s.builder, s.loc, pending);
}
