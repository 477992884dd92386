//===- TileOps.td - operations of the tile dialect ----------*- tablegen -*-===//
//
// Each op follows the semantics of the Triton-IR op of the same name.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_IR_TILE_TILEOPS_TD
#define TESSERA_IR_TILE_TILEOPS_TD

include "ir/Tile/TileDialect.td"
include "ir/Tile/TileTypes.td"
include "ir/Tile/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis";
  let description = [{
    Returns the index of the running program instance along axis `x`, `y` or
    `z` of the launch grid.

    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of program instances along a grid axis";
  let description = [{
    Returns the size of the launch grid along axis `x`, `y` or `z`.

    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "a 1-D tensor of consecutive integers";
  let description = [{
    Returns the values `start, start + 1, ..., end - 1` as a 1-D tensor of
    `i32`. `end - start` must equal the result's (power-of-two) size.

    ```mlir
    %r = tile.make_range 0, 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs Tile_I32Tensor:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the operand type",
                   "result", "src", "getElementTypeOrSelf($_self)">]> {
  let summary = "a tensor filled with one scalar";
  let description = [{
    Returns a tensor of the result's shape whose every element is `src`.

    ```mlir
    %t = tile.splat %x : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Elem:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "repeat a tensor along its dimensions of size one";
  let description = [{
    Broadcasts `src` to the result's shape. Both have the same rank; each
    dimension of `src` either equals the result's or is 1, in which case its
    one slice is repeated.

    ```mlir
    %b = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a dimension of size one";
  let description = [{
    Returns `src` with a new dimension of size 1 inserted before dimension
    `axis` (which may equal the rank of `src`, appending it).

    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "view a tensor with another shape of the same size";
  let description = [{
    Returns the elements of `src`, in row-major order, in the result's shape.
    With `allow_reorder`, the order of the elements may change: a backend may
    pick whichever order needs no data movement (Triton's `can_reorder`).

    ```mlir
    %r = tile.reshape %x : tensor<4x32xf16> -> tensor<128xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Dimension `i` of the result is dimension `order[i]` of `src`.

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_CatOp : Tile_Op<"cat", [Pure, SameTypeOperands,
                                 SameOperandsAndResultElementType]> {
  let summary = "concatenate two tensors along dimension 0";
  let description = [{
    Returns `lhs` followed by `rhs` along dimension 0; both have the same
    type, so the result's first dimension is twice theirs.

    ```mlir
    %c = tile.cat %a, %b : tensor<32xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, SameTypeOperands,
                                   SameOperandsAndResultElementType]> {
  let summary = "interleave two tensors along a new minor dimension";
  let description = [{
    Stacks `lhs` and `rhs` along a new last dimension of size 2:
    `result[..., 0] = lhs[...]` and `result[..., 1] = rhs[...]`. Scalars join
    into a tensor of two elements.

    ```mlir
    %j = tile.join %a, %b : tensor<32xf32> -> tensor<32x2xf32>
    ```
  }];
  let arguments = (ins Tile_Value:$lhs, Tile_Value:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure, AllTypesMatch<["outLHS", "outRHS"]>]> {
  let summary = "split a tensor along its last dimension, which has size 2";
  let description = [{
    The inverse of `tile.join`: `outLHS = src[..., 0]` and
    `outRHS = src[..., 1]`. A 1-D source of two elements splits into scalars.

    ```mlir
    %lo, %hi = tile.split %x : tensor<32x2xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Value:$outLHS, Tile_Value:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "gather elements of a tensor along one axis";
  let description = [{
    `result[i] = src[i with i[axis] replaced by indices[i]]`: the result has
    the shape of `indices` and the element type of `src`, whose other
    dimensions `indices` shares. An index outside `src` along `axis` has no
    defined result.

    ```mlir
    %g = tile.gather %src[%idx] {axis = 0 : i32}
        : (tensor<64x8xf32>, tensor<128x8xi32>) -> tensor<128x8xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_Tensor:$indices, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "count the integers of a tensor in bins of width 1";
  let description = [{
    `result[b]` is how many elements of the 1-D `src` equal `b`, for `b` in
    [0, N) where N is the result's size; other values, and elements whose
    `mask` is false, are not counted.

    ```mlir
    %h = tile.histogram %x, %m : tensor<1024xi32>, tensor<1024xi1>
        -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Optional<Tile_Tensor>:$mask);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`,` $mask^)? attr-dict `:` type($src) (`,` type($mask)^)? `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
    SameOperandsAndResultElementType]> {
  let summary = "move a tensor to another layout";
  let description = [{
    The same tensor with another layout encoding: only which thread holds
    which element changes. Backends insert it where two ops want a value in
    different layouts and lower it from its conversion plan (no-op, register
    permutation, warp shuffles, or a trip through shared memory).

    ```mlir
    %y = tile.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by a number of elements";
  let description = [{
    Returns `ptr + offset`, with `offset` counted in elements of the pointee
    type. `ptr` and `offset` are both scalars or tensors of the same shape.

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_Pointer:$ptr, Tile_Int:$offset);
  let results = (outs Tile_Pointer:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "pointers at 64-bit addresses";
  let description = [{
    Each 64-bit integer read as the address of an element of the pointee
    type: `x.to(tl.pointer_type(tl.float16))` of an int64, as kernels that
    take tables of addresses (grouped GEMMs) make their pointers.

    ```mlir
    %p = tile.int_to_ptr %a : tensor<16xi64> -> tensor<16x!tile.ptr<f16>>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I64, RankedTensorOf<[I64]>]>:$src);
  let results = (outs Tile_Pointer:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "the 64-bit addresses of pointers";
  let description = [{
    ```mlir
    %a = tile.ptr_to_int %p : tensor<16x!tile.ptr<f16>> -> tensor<16xi64>
    ```
  }];
  let arguments = (ins Tile_Pointer:$src);
  let results = (outs AnyTypeOf<[I64, RankedTensorOf<[I64]>]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 shaped like ptr", "ptr", "mask",
                           "::mlir::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other has the result's type", "ptr", "other",
                           "::mlir::tile::getPointeeType($_self)">]> {
  let summary = "load from memory, with an optional mask";
  let description = [{
    Loads the value each pointer points to. Where `mask` is false nothing is
    read and the element is `other` (undefined without `other`). `cache` and
    `evict` are hints; `volatile` loads are never merged or removed.

    ```mlir
    %v = tile.load %ptrs, %mask, %zero cache = cg : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_Pointer:$ptr, Optional<Tile_Bool>:$mask,
                   Optional<Tile_Value>:$other,
                   DefaultValuedAttr<Tile_CacheModifier,
                                     "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy,
                                     "::mlir::tile::EvictionPolicy::normal">:$evict,
                   UnitAttr:$isVolatile);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    (`volatile` $isVolatile^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value matches the pointee of ptr", "ptr", "value",
                   "::mlir::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 shaped like ptr", "ptr", "mask",
                           "::mlir::tile::getI1SameShape($_self)">]> {
  let summary = "store to memory, with an optional mask";
  let description = [{
    Stores each element of `value` where the matching pointer points, except
    where `mask` is false.

    ```mlir
    tile.store %ptrs, %v, %mask : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_Pointer:$ptr, Tile_Value:$value, Optional<Tile_Bool>:$mask,
                   DefaultValuedAttr<Tile_CacheModifier,
                                     "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy,
                                     "::mlir::tile::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` type($ptr)
  }];
  let hasCanonicalizer = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"val matches the pointee of ptr", "ptr", "val",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 shaped like ptr", "ptr", "mask",
                           "::mlir::tile::getI1SameShape($_self)">]> {
  let summary = "atomic read-modify-write";
  let description = [{
    For each element where `mask` is true (or everywhere without a mask),
    atomically replaces `*ptr` with `kind(*ptr, val)` and returns the old
    value. `add`, `max`, `min`, `umax`, `umin`, `and`, `or` and `xor` take
    integers (`max`/`min` also floats), `fadd` takes floats, `xchg` either.

    ```mlir
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %ptrs, %v, %mask : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_RMWKind:$kind, Tile_MemOrder:$order,
                   Tile_MemScope:$scope, Tile_Pointer:$ptr, Tile_Value:$val,
                   Optional<Tile_Bool>:$mask);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind `,` $order `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"cmp matches the pointee of ptr", "ptr", "cmp",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"val matches the pointee of ptr", "ptr", "val",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">]> {
  let summary = "atomic compare-and-swap";
  let description = [{
    For each element, atomically stores `val` to `*ptr` if `*ptr == cmp`, and
    returns the old value.

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_MemOrder:$order, Tile_MemScope:$scope,
                   Tile_Pointer:$ptr, Tile_Value:$cmp, Tile_Value:$val);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $order `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Tile_MakeTensorDescriptorOp : Tile_Op<"make_tensor_descriptor", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "a strided tensor in global memory, accessed in blocks";
  let description = [{
    Describes the tensor at `base` with one `shape` entry (i32) and one
    `strides` entry (i64, in elements) per dimension, read and written in
    blocks of the result type's block shape. Elements outside the tensor
    read as zero, or as NaN with `nan_padding`. Both `tl.make_tensor_descriptor`
    (whose last stride is 1) and `tl.make_block_ptr` (any strides) build it.
    With `aligned`, the base is 16-byte aligned and every stride but the last
    a multiple of 16 bytes, as `tl.make_tensor_descriptor` requires of its
    arguments (the bounds of a TMA copy).

    ```mlir
    %d = tile.make_tensor_descriptor %base, [%m, %n], [%ld, %one] aligned
        : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                   Variadic<I64>:$strides, UnitAttr:$nanPadding,
                   UnitAttr:$aligned);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` (`nan_padding` $nanPadding^)?
    (`aligned` $aligned^)? attr-dict `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "load a block of a tensor descriptor";
  let description = [{
    Loads the block whose first element is at `indices` (one i32 per
    dimension; any may be negative or past the end). Elements outside the
    tensor along the dimensions in `boundary_check` (all, when absent) are
    the descriptor's padding; along other dimensions they are not checked.

    ```mlir
    %b = tile.descriptor_load %d[%i, %k]
        : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                   OptionalAttr<DenseI32ArrayAttr>:$boundaryCheck,
                   DefaultValuedAttr<Tile_CacheModifier,
                                     "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy,
                                     "::mlir::tile::EvictionPolicy::normal">:$evict);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` type($desc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "store a block of a tensor descriptor";
  let description = [{
    Stores `value` as the block whose first element is at `indices`;
    elements outside the tensor along the dimensions in `boundary_check`
    (all, when absent) are not written.

    ```mlir
    tile.descriptor_store %d[%i, %j], %v
        : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                   Tile_Tensor:$value,
                   OptionalAttr<DenseI32ArrayAttr>:$boundaryCheck);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $value attr-dict `:` type($desc) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorReduceOp : Tile_Op<"descriptor_reduce", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "combine a block into a tensor descriptor atomically";
  let description = [{
    For each element of the block at `indices` inside the tensor, atomically
    replaces it with `kind(element, value)` (the kinds of `tile.atomic_rmw`).

    ```mlir
    tile.descriptor_reduce fadd, %d[%i, %j], %v
        : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_RMWKind:$kind, Tile_TensorDesc:$desc,
                   Variadic<I32>:$indices, Tile_Tensor:$value);
  let assemblyFormat = [{
    $kind `,` $desc `[` $indices `]` `,` $value attr-dict `:` type($desc) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "matrix product with accumulator";
  let description = [{
    Returns `d = a * b + c` for `a` of shape MxK, `b` KxN and `c` MxN, or
    with a leading batch dimension on all three. `a` and `b` have the same
    element type (two fp8 formats may mix); `c` is at least as wide (`i32`
    for integer inputs).
    `precision` says how fp32 inputs may be multiplied: `tf32`, `tf32x3` or
    `ieee` (exact fp32). `maxNumImpreciseAcc` bounds how many fp8 products a
    backend may add in reduced precision before promoting (0: no bound).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_IntOrFloatTensor:$a, Tile_IntOrFloatTensor:$b,
                   Tile_IntOrFloatTensor:$c,
                   DefaultValuedAttr<Tile_InputPrecision,
                                     "::mlir::tile::InputPrecision::ieee">:$precision,
                   DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_IntOrFloatTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`precision` `=` $precision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SameOperandsShape, SingleBlock]> {
  let summary = "reduce tensors along an axis with a combiner";
  let description = [{
    Reduces the N operands (of one shape) together along `axis` with the
    combiner region, which takes 2N scalars (an accumulated element of each
    operand, then a new one) and returns N. The combiner must be associative
    and commutative: the order of combination is unspecified. A result drops
    dimension `axis`; reducing a 1-D tensor gives a scalar.

    ```mlir
    %s = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce.return %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Value>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    `(` $srcs `)` `axis` `=` $axis attr-dict `:` functional-type($srcs, $result) $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return",
    [HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "yield the combined values of a reduction step";
  let description = [{
    Terminates the combiner of a `tile.reduce`.

    ```mlir
    tile.reduce.return %r : f32
    ```
  }];
  let arguments = (ins Variadic<Tile_Elem>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SameOperandsAndResultShape, SingleBlock]> {
  let summary = "inclusive scan of tensors along an axis with a combiner";
  let description = [{
    Computes the inclusive prefix combination of the N operands along `axis`
    (from the end with `reverse`). The combiner takes 2N scalars (the
    running values, then the new elements) and returns N; it must be
    associative. Results have the operands' types.

    ```mlir
    %c = tile.scan(%x) axis = 0 : (tensor<128xi32>) -> tensor<128xi32> {
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tile.scan.return %r : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    `(` $srcs `)` `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:`
    functional-type($srcs, $result) $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return",
    [HasParent<"ScanOp">, Pure, Terminator, ReturnLike]> {
  let summary = "yield the combined values of a scan step";
  let description = [{
    Terminates the combiner of a `tile.scan`.

    ```mlir
    tile.scan.return %r : i32
    ```
  }];
  let arguments = (ins Variadic<Tile_Elem>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [
    Elementwise, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call an external scalar function on each element";
  let description = [{
    Applies the device-library function `symbol` (from `libname` at
    `libpath`) elementwise. All operands and the result have one shape.
    With `pure`, the call has no side effects and may be removed or merged.

    ```mlir
    %y = tile.extern_elementwise %x {libname = "libdevice", libpath = "",
        symbol = "__nv_erff", pure} : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Value>:$srcs, StrAttr:$libname,
                   StrAttr:$libpath, StrAttr:$symbol, UnitAttr:$pure);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$srcs attr-dict `:` functional-type($srcs, $result)";
  let hasVerifier = 1;
}

def Tile_InlineAsmOp : Tile_Op<"inline_asm", [
    Elementwise, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "run target assembly on each group of elements";
  let description = [{
    Runs `asm_string` (PTX or AMDGCN, with LLVM inline-asm `constraints`)
    once per `packed_element` consecutive elements a thread holds. Operands
    narrower than 32 bits reach the assembly packed into 32-bit registers
    (four i8 or two f16 per register, as far as `packed_element` allows);
    results are returned the same way. The assembly's operands are the
    results' registers, then each operand's, in order. Without operands the
    results are scalars (a clock or a special register, read once by each
    thread). Without `pure`, the
    assembly may read and write memory and is never removed or merged.

    ```mlir
    %y = tile.inline_asm %x {asm_string = "shl.b32 $0, $1, 3;",
        constraints = "=r,r", packed_element = 4 : i32, pure}
        : (tensor<512xi8>) -> tensor<512xi8>
    ```
  }];
  let arguments = (ins Variadic<Tile_Value>:$args, StrAttr:$asm_string,
                   StrAttr:$constraints, UnitAttr:$pure,
                   ConfinedAttr<I32Attr, [IntPositive]>:$packed_element);
  let results = (outs Variadic<Tile_Value>:$results);
  let assemblyFormat = "$args attr-dict `:` functional-type($args, $results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print values from the device";
  let description = [{
    Prints `prefix` followed by each argument, per program instance. With
    `hex`, integers print in hexadecimal. `isSigned[i]` says whether integer
    argument `i` is signed (integers are signless in the IR).

    ```mlir
    tile.print " x: " %x : tensor<16xi32> {isSigned = array<i1: true>}
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex, Variadic<Tile_Value>:$args,
                   DefaultValuedAttr<DenseBoolArrayAttr, "{}">:$isSigned);
  let assemblyFormat = [{
    $prefix (`hex` $hex^)? ($args^ `:` type($args))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_ScopeRecordOp : Tile_Op<"scope_record", [MemoryEffects<[MemWrite]>]> {
  let summary = "record the time a warp enters or leaves a profiled scope";
  let description = [{
    The first lane of each of the program's first `warps` warps writes a
    record of 16 bytes to its warp's `slots` records in `buffer`: the
    scope's number times two, plus one when it leaves the scope (i32); the
    warp's count of records so far (i32); the time in nanoseconds (i64: the
    global timer on NVIDIA, the real-time counter on AMD). A warp's record n
    goes to its slot n % slots; warp w of program p owns the slots from
    (p * warps + w) * slots, programs counted x fastest. The kernels a
    profiler session instruments have these
    (`tessera.profiler.language.enter_scope`).

    ```mlir
    tile.scope_record %buffer {scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
    tile.scope_record %buffer {end, scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
    ```
  }];
  let arguments = (ins Tile_Ptr:$buffer, I32Attr:$scope, I32Attr:$slots,
                   I32Attr:$warps, UnitAttr:$end);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "stop the kernel with a message where a condition is false";
  let description = [{
    Reports `message` with the op's source location and stops the kernel if
    any element of `condition` is false.

    ```mlir
    tile.assert %ok, "index out of bounds" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_Bool:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies
//===----------------------------------------------------------------------===//

/// The shared memory of a block, for the memory effects of the ops below.
def Tile_SharedMemory : Resource<"::mlir::tile::SharedMemory">;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "allocate a buffer in shared memory";
  let description = [{
    Allocates a buffer of the result's allocation shape in the block's shared
    memory, laid out by its encoding. With `src`, the buffer holds `src` and
    may be immutable; without, it must be `mutable` and its contents are
    undefined until stored. The buffer lives until `tile.local_dealloc` or
    its last use; the shared-memory allocation gives buffers whose lives
    overlap disjoint bytes.

    ```mlir
    %buf = tile.local_alloc : () -> !tile.memdesc<3x128x64xf16, #shared, mutable>
    %a = tile.local_alloc %x : (tensor<128x64xf16, #blocked>) -> !tile.memdesc<128x64xf16, #shared>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$src);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tile_LocalDeallocOp : Tile_Op<"local_dealloc", [
    MemoryEffects<[MemFree<Tile_SharedMemory>]>]> {
  let summary = "end the life of a shared-memory buffer";
  let description = [{
    Marks the end of the buffer `src` (the result of a `tile.local_alloc`);
    its bytes may be reused after it. Optional: a buffer otherwise lives
    until its last use.

    ```mlir
    tile.local_dealloc %buf : !tile.memdesc<3x128x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [
    MemoryEffects<[MemRead<Tile_SharedMemory>]>]> {
  let summary = "load a shared-memory view into a distributed tensor";
  let description = [{
    Reads the view `src` into a tensor of its shape and element type, in the
    result's layout. Reads after a `tile.local_store` or `tile.async_wait`
    see what they wrote.

    ```mlir
    %a = tile.local_load %view : !tile.memdesc<128x64xf16, #shared, mutable, 3x128x64> -> tensor<128x64xf16, #dot_op>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [
    MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "store a distributed tensor into a shared-memory view";
  let description = [{
    Writes `value` into the mutable view `dst` of the same shape and element
    type. Every thread of the block sees the write in later local loads.

    ```mlir
    tile.local_store %x, %view : tensor<128x64xf16, #blocked> -> !tile.memdesc<128x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_MemDesc:$dst);
  let assemblyFormat = "$value `,` $dst attr-dict `:` type($value) `->` qualified(type($dst))";
  let hasVerifier = 1;
}

def Tile_MemDescIndexOp : Tile_Op<"memdesc_index", [Pure]> {
  let summary = "one buffer of a multi-buffered allocation";
  let description = [{
    The view of buffer `index` (an i32, from 0) along the first dimension of
    `src`: the result has the remaining dimensions. Indices out of range are
    undefined behaviour.

    ```mlir
    %slot = tile.memdesc_index %buf[%i] : !tile.memdesc<3x128x64xf16, #shared, mutable> -> !tile.memdesc<128x64xf16, #shared, mutable, 3x128x64>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, I32:$index);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescSubsliceOp : Tile_Op<"memdesc_subslice", [Pure]> {
  let summary = "a rectangular part of a shared-memory view";
  let description = [{
    The view of the elements of `src` from `offsets` on, of the result's
    shape, which fits within `src`.

    ```mlir
    %k1 = tile.memdesc_subslice %a [0, 32] : !tile.memdesc<128x64xf16, #shared> -> !tile.memdesc<128x32xf16, #shared, 128x64>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, DenseI32ArrayAttr:$offsets);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src $offsets attr-dict `:` qualified(type($src))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescTransOp : Tile_Op<"memdesc_trans", [Pure]> {
  let summary = "a shared-memory view with permuted dimensions";
  let description = [{
    The view of `src` whose dimension i is dimension `order[i]` of `src`; no
    data moves. The encoding is the one that keeps every element where it
    is (for a swizzled layout, the permuted `order`).

    ```mlir
    %bt = tile.memdesc_trans %b {order = array<i32: 1, 0>} : !tile.memdesc<64x128xf16, #shared> -> !tile.memdesc<128x64xf16, #shared_t>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_MemDescReinterpretOp : Tile_Op<"memdesc_reinterpret", [Pure]> {
  let summary = "a shared-memory buffer seen as another shape, type or layout";
  let description = [{
    The bytes of the whole buffer `src` (an allocation, or one buffer of a
    stack) as a buffer of the result's element type, shape and layout, no
    larger; no data moves. A reshape that keeps each element where it is
    gives the result the reshaped linear form of the source's layout.

    ```mlir
    %r = tile.memdesc_reinterpret %buf : !tile.memdesc<64x32xf16, #shared, mutable> -> !tile.memdesc<2048xf16, #shared_linear, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_AsyncCopyGlobalToLocalOp : Tile_Op<"async_copy_global_to_local", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>,
    OptionalTypesMatchWith<"mask is i1 shaped like ptrs", "ptrs", "mask",
                           "::mlir::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other has the pointee type", "ptrs", "other",
                           "::mlir::tile::getPointeeType($_self)">]> {
  let summary = "start copying global memory into a shared-memory view";
  let description = [{
    Starts copying the element each pointer of `ptrs` points to into the
    same position of the mutable view `dst`; where `mask` is false nothing
    is read and the element is `other` (zero without it). The copy belongs to
    the group the next `tile.async_commit_group` closes, and is visible to
    local loads after a `tile.async_wait` that waits for that group. Targets
    without asynchronous copies copy at once.

    ```mlir
    tile.async_copy_global_to_local %ptrs, %slot mask %m : tensor<128x64x!tile.ptr<f16>, #blocked> -> !tile.memdesc<128x64xf16, #shared, mutable, 3x128x64>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Tile_Ptr]>:$ptrs, Tile_MemDesc:$dst,
                   Optional<RankedTensorOf<[I1]>>:$mask,
                   Optional<Tile_Tensor>:$other,
                   DefaultValuedAttr<Tile_CacheModifier,
                                     "::mlir::tile::CacheModifier::none">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy,
                                     "::mlir::tile::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $ptrs `,` $dst (`mask` $mask^)? (`other` $other^)? (`cache` `=` $cache^)?
    (`evict` `=` $evict^)? attr-dict `:` type($ptrs) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [
    MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "close the group of asynchronous copies started since the last";
  let description = [{
    The copies this thread started since its previous commit form one group,
    which `tile.async_wait` counts. A group may be empty.

    ```mlir
    tile.async_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "wait until at most `num` groups of copies are in flight";
  let description = [{
    Waits until at most `num` of the groups this thread committed are still
    in flight (the older ones are complete), then synchronises the block, so
    that every thread's completed copies are visible to every thread's
    local loads, and every local load issued before it is done.

    ```mlir
    tile.async_wait {num = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$num);
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "wait for every thread of the program";
  let description = [{
    Every thread of the program waits here for the others; shared-memory
    writes before it are visible to reads after it (`tl.debug_barrier`).

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WarpYieldOp : Tile_Op<"warp_yield", [Pure, Terminator,
    HasParent<"WarpSpecializeOp">]> {
  let summary = "end a region of tile.warp_specialize";
  let assemblyFormat = "attr-dict";
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"WarpYieldOp">]> {
  let summary = "run regions at once on disjoint groups of warps";
  let description = [{
    The program's warps (`tile.num_warps` of the module) run the default
    region; partition i runs at the same time on `partition_num_warps[i]`
    warps of its own, launched after them. Ops in a region see its warps
    as the whole program: thread and warp indices start at 0 there, and a
    barrier waits for the region's warps alone. Regions read the values
    defined above and share memory only through buffers allocated before
    the op (and mbarriers to order their accesses). Layouts are those of
    the module's warps: partitions work on scalars and shared memory.

    Where `partition_num_regs` is given, each region's warpgroups set the
    registers per thread they keep (Hopper's setmaxnreg): the default
    region `default_num_regs`, partition i `partition_num_regs[i]`; every
    region's warps then come in whole warpgroups.

    ```mlir
    tile.warp_specialize {partition_num_warps = array<i32: 4>} default {
      ...
    } partitions {
      ...
    }
    ```
  }];
  let arguments = (ins DenseI32ArrayAttr:$partition_num_warps,
                   OptionalAttr<DenseI32ArrayAttr>:$partition_num_regs,
                   OptionalAttr<I32Attr>:$default_num_regs);
  let regions = (region SizedRegion<1>:$defaultRegion,
                 VariadicRegion<SizedRegion<1>>:$partitionRegions);
  let assemblyFormat = [{
    attr-dict `default` $defaultRegion `partitions` $partitionRegions
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The first warp and the warps of region `index` (0: the default
    /// region, i + 1: partition i), given the module's `numWarps`.
    std::pair<unsigned, unsigned> warpsOf(unsigned index, unsigned numWarps);
    /// Every warp the op runs on.
    unsigned totalWarps(unsigned numWarps);
    /// The nearest op `region` is in (or is a region of), and which of its
    /// regions that is (0: the default); null where none.
    static std::pair<WarpSpecializeOp, unsigned> regionOf(Region *region);
  }];
}

#endif // TESSERA_IR_TILE_TILEOPS_TD
