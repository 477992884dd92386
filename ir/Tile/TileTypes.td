//===- TileTypes.td - the tile pointer type and type constraints -*- tablegen -*-===//

#ifndef TESSERA_IR_TILE_TILETYPES_TD
#define TESSERA_IR_TILE_TILETYPES_TD

include "ir/Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PtrType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to an element in an address space";
  let description = [{
    A pointer to a scalar of type `pointeeType` in address space
    `addressSpace` (1, global memory, when omitted). Tensors of pointers are
    ordinary ranked tensors with this element type.

    ```mlir
    !tile.ptr<f32>        // global memory
    !tile.ptr<f16, 3>     // shared memory
    ```
  }];
  let parameters = (ins "Type":$pointeeType, DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "Type":$pointeeType, CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
}

def Tile_MemDescType : TypeDef<Tile_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let summary = "a view of a buffer in shared memory";
  let description = [{
    A tensor of `shape` and `elementType` in the shared memory of a block,
    laid out by `encoding` (a shared layout such as `#tile.swizzled_shared`
    or `#tile.nvmma_shared`). `allocShape` is the shape of the buffer the
    view lies in, printed only where it differs from `shape`: a view made
    by `tile.memdesc_index` or `tile.memdesc_subslice` keeps the allocation's
    trailing dimensions, whose layout the encoding gives; leading dimensions
    of an allocation stack whole buffers (one per pipeline stage, say).
    Only a `mutable` buffer can be written.

    ```mlir
    !tile.memdesc<3x128x64xf16, #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, mutable>
    !tile.memdesc<128x32xf16, #shared, mutable, 128x64>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType, "Attribute":$encoding,
                        "bool":$mutableMemory,
                        ArrayRefParameter<"int64_t">:$allocShape);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "Type":$elementType, "Attribute":$encoding,
        CArg<"bool", "true">:$mutableMemory), [{
      return $_get(elementType.getContext(), shape, elementType, encoding,
                   mutableMemory, shape);
    }]>,
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "Type":$elementType, "Attribute":$encoding, "bool":$mutableMemory,
        "::llvm::ArrayRef<int64_t>":$allocShape), [{
      return $_get(elementType.getContext(), shape, elementType, encoding,
                   mutableMemory, allocShape);
    }]>
  ];
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// Elements of the view.
    int64_t getNumElements() const;
    /// The shape the encoding lays out: the allocation's last getRank()
    /// dimensions.
    ::llvm::ArrayRef<int64_t> getLayoutShape() const {
      return getAllocShape().take_back(getRank());
    }
  }];
  let skipDefaultBuilders = 1;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "a tensor in global memory, read and written in blocks";
  let description = [{
    A strided tensor in global memory (a base pointer, a shape and strides,
    made by `tile.make_tensor_descriptor`) that `tile.descriptor_load`,
    `tile.descriptor_store` and `tile.descriptor_reduce` access one block
    of type `blockType` at a time. Elements of a block outside the tensor
    read as the padding value and are not written. A target with a tensor
    memory accelerator (TMA) may copy the blocks with it; elsewhere they
    become ordinary masked loads and stores.

    ```mlir
    !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let parameters = (ins "RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
}

def Tile_TensorDesc : Type<CPred<"::llvm::isa<::mlir::tile::TensorDescType>($_self)">,
                           "tensor descriptor", "::mlir::tile::TensorDescType">;

def Tile_MemDesc : Type<CPred<"::llvm::isa<::mlir::tile::MemDescType>($_self)">,
                        "shared-memory descriptor", "::mlir::tile::MemDescType">;

def Tile_Ptr : Type<CPred<"::llvm::isa<::mlir::tile::PointerType>($_self)">,
                    "tile pointer", "::mlir::tile::PointerType">;

/// A scalar element: an integer, a float, or a pointer.
def Tile_Elem : AnyTypeOf<[AnySignlessInteger, AnyFloat, Tile_Ptr]>;
def Tile_Tensor : RankedTensorOf<[AnySignlessInteger, AnyFloat, Tile_Ptr]>;
def Tile_Value : AnyTypeOf<[Tile_Elem, Tile_Tensor]>;

def Tile_Int : AnyTypeOf<[AnySignlessInteger, RankedTensorOf<[AnySignlessInteger]>],
                         "integer or tensor of integers">;
def Tile_I32Tensor : RankedTensorOf<[I32]>;
def Tile_Bool : AnyTypeOf<[I1, RankedTensorOf<[I1]>], "i1 or tensor of i1">;
def Tile_Pointer : AnyTypeOf<[Tile_Ptr, RankedTensorOf<[Tile_Ptr]>],
                             "pointer or tensor of pointers">;
def Tile_IntOrFloatTensor : RankedTensorOf<[AnySignlessInteger, AnyFloat]>;

#endif // TESSERA_IR_TILE_TILETYPES_TD
