//===- LayoutAttrs.h - layout attributes of the tile dialect --------------===//

#ifndef TESSERA_IR_LAYOUT_LAYOUTATTRS_H
#define TESSERA_IR_LAYOUT_LAYOUTATTRS_H

#include "ir/Layout/LayoutBuilders.h"
#include "ir/Layout/LinearLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/TensorEncoding.h"

#include "ir/Layout/LayoutInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ir/Layout/LayoutAttrs.h.inc"

namespace mlir::tile {
/// The linear form of `type`'s layout encoding, distributed or shared; none
/// when the type has no layout.
std::optional<LinearLayout> toLinearLayout(RankedTensorType type);

/// The padding a shared layout leaves between its elements: none but for
/// #tile.padded_shared.
SharedPadding getSharedPadding(Attribute encoding);
} // namespace mlir::tile

#endif // TESSERA_IR_LAYOUT_LAYOUTATTRS_H
