//===- InterpretSharedMemory.cpp - shared memory on the host --------------===//
//
// The host runs a program's ops whole, one program at a time: a buffer in
// shared memory is an array of its own, an asynchronous copy is done when it
// starts, and the ops that wait for copies have nothing to wait for.
// Layouts, of tensors and of buffers, say where elements live on a GPU, not
// what they are: buffers and views are row-major.
//
//===----------------------------------------------------------------------===//

#include "ir/Tile/TileOps.h"
#include "runtime/host/InterpreterSupport.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;

namespace {

/// A value holding the view `desc` of the shape of `type`.
RtValue viewValue(MemDescType type, MemDescView desc) {
  RtValue view;
  view.shape.assign(type.getShape().begin(), type.getShape().end());
  view.memdesc = std::move(desc);
  return view;
}

/// The index in its buffer of each element of `view`, in row-major order.
std::vector<int64_t> bufferIndices(const RtValue &view) {
  const MemDescView &desc = *view.memdesc;
  int64_t n = 1;
  for (int64_t size : view.shape)
    n *= size;
  std::vector<int64_t> indices(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = desc.offset, rest = i;
    for (size_t d = view.shape.size(); d-- > 0;) {
      index += rest % view.shape[d] * desc.strides[d];
      rest /= view.shape[d];
    }
    indices[i] = index;
  }
  return indices;
}

/// Writes `value`, a tensor of the view's shape, through `view`.
void writeThrough(const RtValue &view, const RtValue &value) {
  RtValue &buffer = *view.memdesc->buffer;
  for (auto [i, index] : llvm::enumerate(bufferIndices(view))) {
    if (buffer.isFloat)
      buffer.floats[index] = value.floats[i];
    else
      buffer.ints[index] = value.ints[i];
  }
}

/// A new buffer of the allocation's shape, holding `src` where there is one
/// and zeros (its contents are undefined) where not.
RtValue allocate(LocalAllocOp op, const RtValue *src) {
  MemDescType type = op.getType();
  auto buffer = std::make_shared<RtValue>();
  buffer->shape.assign(type.getShape().begin(), type.getShape().end());
  buffer->isFloat = isa<FloatType>(type.getElementType());
  if (src) {
    buffer->ints = src->ints;
    buffer->floats = src->floats;
  } else if (buffer->isFloat) {
    buffer->floats.assign(type.getNumElements(), 0.0);
  } else {
    buffer->ints.assign(type.getNumElements(), 0);
  }
  SmallVector<int64_t, 4> strides(type.getRank());
  int64_t stride = 1;
  for (unsigned d = type.getRank(); d-- > 0;) {
    strides[d] = stride;
    stride *= type.getShape()[d];
  }
  return viewValue(type, {std::move(buffer), 0, std::move(strides)});
}

RtValue localLoad(LocalLoadOp op, const RtValue &src) {
  const RtValue &buffer = *src.memdesc->buffer;
  RtValue result;
  ArrayRef<int64_t> shape = op.getType().getShape();
  result.shape.assign(shape.begin(), shape.end());
  result.isFloat = buffer.isFloat;
  for (int64_t index : bufferIndices(src)) {
    if (buffer.isFloat)
      result.floats.push_back(buffer.floats[index]);
    else
      result.ints.push_back(buffer.ints[index]);
  }
  return result;
}

llvm::Error memDescIndex(MemDescIndexOp op, OpInterpreter &interpreter) {
  const RtValue &src = interpreter.get(op.getSrc());
  int64_t index = interpreter.get(op.getIndex()).ints[0];
  // Undefined in the IR; here it would reach past the buffer's array.
  if (index < 0 || index >= src.shape[0])
    return interpreter.error(op, "buffer index " + Twine(index) +
                                     " is outside [0, " + Twine(src.shape[0]) +
                                     ")");
  MemDescView desc = *src.memdesc;
  desc.offset += index * desc.strides[0];
  desc.strides.erase(desc.strides.begin());
  interpreter.set(op.getResult(), viewValue(op.getType(), std::move(desc)));
  return llvm::Error::success();
}

RtValue memDescSubslice(MemDescSubsliceOp op, const RtValue &src) {
  MemDescView desc = *src.memdesc;
  for (auto [offset, stride] : llvm::zip(op.getOffsets(), desc.strides))
    desc.offset += offset * stride;
  return viewValue(op.getType(), std::move(desc));
}

/// Dimension i of the view is dimension order[i] of the source.
RtValue memDescTrans(MemDescTransOp op, const RtValue &src) {
  MemDescView desc = *src.memdesc;
  for (auto [i, dim] : llvm::enumerate(op.getOrder()))
    desc.strides[i] = src.memdesc->strides[dim];
  return viewValue(op.getType(), std::move(desc));
}

/// The same elements, row-major in the new shape; another element type is
/// not seen on the host (its values are kept as numbers, not bytes).
llvm::Error memDescReinterpret(MemDescReinterpretOp op,
                               OpInterpreter &interpreter) {
  const RtValue &src = interpreter.get(op.getSrc());
  MemDescType from = op.getSrc().getType(), to = op.getType();
  if (from.getElementType() != to.getElementType())
    return interpreter.error(op, "the interpreter cannot reinterpret " +
                                     Twine("shared memory as another "
                                           "element type"));
  // A whole buffer's view is row-major: strides are the trailing products.
  int64_t stride = 1;
  for (auto [size, s] :
       llvm::reverse(llvm::zip(from.getShape(), src.memdesc->strides))) {
    if (s != stride)
      return interpreter.error(op, "reinterprets a permuted view");
    stride *= size;
  }
  MemDescView desc = *src.memdesc;
  desc.strides.assign(to.getRank(), 1);
  for (int d = int(to.getRank()) - 2; d >= 0; --d)
    desc.strides[d] = desc.strides[d + 1] * to.getShape()[d + 1];
  interpreter.set(op.getResult(), viewValue(to, std::move(desc)));
  return llvm::Error::success();
}

/// Copies at once, through the checks of tile.load.
llvm::Error asyncCopy(AsyncCopyGlobalToLocalOp op, OpInterpreter &interpreter) {
  Value mask = op.getMask(), other = op.getOther();
  llvm::Expected<RtValue> loaded = interpreter.loadElements(
      op, interpreter.get(op.getPtrs()), op.getDst().getType().getElementType(),
      mask ? &interpreter.get(mask) : nullptr,
      other ? &interpreter.get(other) : nullptr);
  if (!loaded)
    return loaded.takeError();
  writeThrough(interpreter.get(op.getDst()), *loaded);
  return llvm::Error::success();
}

} // namespace

llvm::Error
mlir::tile::host::interpretSharedMemoryOp(Operation *op,
                                          OpInterpreter &interpreter) {
  auto done = [] { return llvm::Error::success(); };
  return TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](LocalAllocOp a) {
        const RtValue *src =
            a.getSrc() ? &interpreter.get(a.getSrc()) : nullptr;
        interpreter.set(a.getResult(), allocate(a, src));
        return done();
      })
      .Case([&](LocalLoadOp l) {
        interpreter.set(l.getResult(),
                        localLoad(l, interpreter.get(l.getSrc())));
        return done();
      })
      .Case([&](LocalStoreOp s) {
        writeThrough(interpreter.get(s.getDst()),
                     interpreter.get(s.getValue()));
        return done();
      })
      .Case([&](MemDescIndexOp i) { return memDescIndex(i, interpreter); })
      .Case([&](MemDescSubsliceOp s) {
        interpreter.set(s.getResult(),
                        memDescSubslice(s, interpreter.get(s.getSrc())));
        return done();
      })
      .Case([&](MemDescTransOp t) {
        interpreter.set(t.getResult(),
                        memDescTrans(t, interpreter.get(t.getSrc())));
        return done();
      })
      .Case([&](MemDescReinterpretOp r) {
        return memDescReinterpret(r, interpreter);
      })
      .Case(
          [&](AsyncCopyGlobalToLocalOp c) { return asyncCopy(c, interpreter); })
      // The buffer lives while views of it do; copies are already done.
      .Case<LocalDeallocOp, AsyncCommitGroupOp, AsyncWaitOp>(
          [&](Operation *) { return done(); })
      .Default([&](Operation *) {
        return interpreter.error(op, "not a shared-memory op: " +
                                         op->getName().getStringRef());
      });
}
