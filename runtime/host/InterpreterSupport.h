//===- InterpreterSupport.h - what the host interpreter's files share -----===//
//
// The interpreter keeps the ops of one concern in a file of its own (shared
// memory in InterpretSharedMemory.cpp). This header is what those files
// share: the values of tile IR at run time, and the hooks through which an
// op reads and writes the values of the interpreter running it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_HOST_INTERPRETERSUPPORT_H
#define TESSERA_RUNTIME_HOST_INTERPRETERSUPPORT_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::tile::host {

struct RtValue;

/// A view of a shared-memory buffer (a `!tile.memdesc`): the element of the
/// view at coordinates c is element `offset + sum(c[d] * strides[d])` of the
/// buffer. Copies share the buffer, so a write through one view is seen
/// through every other.
struct MemDescView {
  /// The allocation's elements, row-major in its allocation shape.
  std::shared_ptr<RtValue> buffer;
  int64_t offset = 0;
  /// One per dimension of the view, in elements of the buffer.
  SmallVector<int64_t, 4> strides;
};

/// A value at run time: a scalar (empty shape) or a tensor, row-major.
/// Integers and pointers are kept in `ints` (wrapped to their width), floats
/// in `floats` (rounded to their type after each operation).
struct RtValue {
  SmallVector<int64_t, 4> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool isFloat = false;
  /// Pointers: for each element, the buffer (an index into the kernel's
  /// buffers) of the argument it was derived from, -1 where not known (read
  /// from memory, made from an integer); empty where none is known.
  std::vector<int32_t> origins;
  /// Shared memory: the view `shape` is of; such a value holds no elements
  /// itself.
  std::optional<MemDescView> memdesc;

  int64_t size() const { return isFloat ? floats.size() : ints.size(); }
  int32_t originAt(int64_t i) const {
    return origins.empty() ? -1 : origins[origins.size() == 1 ? 0 : i];
  }
};

/// The interpreter as the files of its op families see it.
class OpInterpreter {
public:
  virtual ~OpInterpreter() = default;

  /// The value of `v`, computed by an op run before.
  virtual const RtValue &get(Value v) = 0;
  /// Gives `v` its value; references from get() may not survive it.
  virtual void set(Value v, RtValue value) = 0;
  /// An error at `op`'s source location.
  virtual llvm::Error error(Operation *op, const Twine &message) = 0;
  /// Reads the `element`s `ptrs` point to as tile.load does, with its checks
  /// that every access lies in the buffer its pointer came from: where
  /// `mask` (if any) is false nothing is read and the element is `other`,
  /// or zero without it.
  virtual llvm::Expected<RtValue>
  loadElements(Operation *op, const RtValue &ptrs, Type element,
               const RtValue *mask, const RtValue *other) = 0;
};

/// Runs one of the shared-memory and asynchronous-copy ops (tile.local_alloc,
/// local_dealloc, local_load, local_store, memdesc_index, memdesc_subslice,
/// memdesc_trans, async_copy_global_to_local, async_commit_group,
/// async_wait).
llvm::Error interpretSharedMemoryOp(Operation *op, OpInterpreter &interpreter);

} // namespace mlir::tile::host

#endif // TESSERA_RUNTIME_HOST_INTERPRETERSUPPORT_H
