//===- TileDialect.td - the tile dialect and its op base ----*- tablegen -*-===//

#ifndef TESSERA_IR_TILE_TILEDIALECT_TD
#define TESSERA_IR_TILE_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "portable tile programs: tensors of power-of-two shape and pointers";
  let description = [{
    The `tile` dialect is Tessera's target-independent kernel IR. A kernel is a
    `func.func` run by every program instance of a launch grid; its values are
    scalars and ranked tensors whose dimensions are powers of two, of at most
    2^20 elements (Triton's bound). Pointers are `!tile.ptr<T>`, and a tensor
    of pointers is an ordinary tensor. Arithmetic, math and control flow come
    from `arith`, `math`, `scf` and `func`. Nothing here names a thread, a
    layout or a target: those belong to the backends.
  }];
  let dependentDialects = ["arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    /// Registers the layout attributes of ir/Layout.
    void registerAttributes();
  }];
}

/// Every tensor operand and result of the op has power-of-two dimensions.
def Tile_PowerOfTwoShapes : NativeOpTrait<"PowerOfTwoShapes"> {
  let cppNamespace = "::mlir::tile::OpTrait";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_PowerOfTwoShapes])>;

#endif // TESSERA_IR_TILE_TILEDIALECT_TD
