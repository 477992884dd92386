//===- LayoutInference.h - an op's layouts from one another ---------------===//
//
// How the layouts of an op's tensors follow from each other where the op
// does not choose them: elementwise ops and memory accesses keep one layout,
// a reduction gives the slice of its operand's, expand_dims takes a slice
// back to its parent, permutes and reshapes move their operand's elements.
// The explicit level's frontend and the resolution of CoalescedLayout
// derive layouts by these rules.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_IR_TILE_LAYOUTINFERENCE_H
#define TESSERA_IR_TILE_LAYOUTINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// The tensor type `type` (a RankedTensorType) in `layout`.
RankedTensorType withLayout(Type type, Attribute layout);

/// The layout of tensors that `layout` holds with their dimensions permuted
/// (dimension i of the result is dimension order[i] of the `shape`): a
/// blocked layout's fields permuted, others in their linear form.
Attribute permutedLayout(Attribute layout, ArrayRef<int32_t> order,
                         ArrayRef<int64_t> shape);

/// The layout of `layout`'s tensors of shape `from` reshaped row-major to
/// `to`, as tile.reshape is: each thread keeps its elements, in linear form.
Attribute reshapedLayout(Attribute layout, ArrayRef<int64_t> from,
                         ArrayRef<int64_t> to);

/// The layout operand `index` of `op` has when `op`'s result has `layout`;
/// null where `op` does not determine it. A CoalescedLayout stays one.
Attribute inferOperandLayout(Operation *op, unsigned index, Attribute layout);

/// The layout of `op`'s results when its operand `index` has `layout`; null
/// where that does not determine it. A CoalescedLayout stays one.
Attribute inferResultLayout(Operation *op, unsigned index, Attribute layout);

} // namespace mlir::tile

#endif // TESSERA_IR_TILE_LAYOUTINFERENCE_H
