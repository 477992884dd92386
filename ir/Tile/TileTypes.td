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
