//===- LayoutAttrs.td - layout attributes of the tile dialect -*- tablegen -*-===//

#ifndef TESSERA_IR_LAYOUT_LAYOUTATTRS_TD
#define TESSERA_IR_LAYOUT_LAYOUTATTRS_TD

include "ir/Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Tile_DistributedLayoutInterface
    : AttrInterface<"DistributedLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout that spreads a tensor over the registers of the threads of a
    block. Its meaning is its linear form: a map from (register, lane, warp,
    block) to (dim0, dim1, ...). Generic code uses only that; a backend adds
    a layout (mma, mfma, wmma) by implementing this interface.
  }];
  let methods = [
    InterfaceMethod<"The layout of a tensor of `shape` as a linear map.",
      "::mlir::tile::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The rank of the tensors the layout is for.",
      "unsigned", "getRank">,
    InterfaceMethod<"The lanes of a warp the layout is made for.",
      "unsigned", "getWarpSize">,
    InterfaceMethod<"The warps of a block the layout is made for.",
      "unsigned", "getNumWarps">,
    InterfaceMethod<[{
        The layout of operand `opIdx` (0: MxK, 1: KxN) of a dot whose MxN
        result has this layout. By default each thread holds whole rows of
        A and columns of B, as a dot on the CUDA cores wants; matrix-unit
        layouts override it.
      }],
      "::mlir::tile::LinearLayout", "toDotOperandLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$opIdx,
           "unsigned":$kWidth),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::tile::dotOperandLayout(shape, opIdx,
            [&](::llvm::ArrayRef<int64_t> s) { return $_attr.toLinearLayout(s); });
      }]>,
  ];
}

def Tile_SharedLayoutInterface : AttrInterface<"SharedLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout of a tensor in shared memory: a linear map from the element
    offset to (dim0, dim1, ...).
  }];
  let methods = [
    InterfaceMethod<"The layout of a tensor of `shape` as a linear map.",
      "::mlir::tile::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
  ];
}

class Tile_LayoutAttr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, !listconcat(traits,
        [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>])> {
  let mnemonic = attrMnemonic;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Distributed layouts
//===----------------------------------------------------------------------===//

def Tile_BlockedLayoutAttr : Tile_LayoutAttr<"BlockedLayout", "blocked",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "threads hold regular blocks of consecutive elements";
  let description = [{
    Each thread holds `sizePerThread[d]` consecutive elements along each
    dimension d; `threadsPerWarp` lanes and then `warpsPerCTA` warps tile
    that block, going through the dimensions in `order` (fastest first).
    Larger tensors repeat the tile in registers; smaller ones are held by
    several threads at once.

    ```mlir
    #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8],
                   warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
    `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
    `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let extraClassDeclaration = [{
    /// A good blocked layout for a tensor of `shape` (see
    /// defaultBlockedParams in LayoutBuilders.h).
    static BlockedLayoutAttr getDefault(::mlir::MLIRContext *context,
                                        ::llvm::ArrayRef<int64_t> shape,
                                        unsigned elementBitWidth,
                                        unsigned numWarps, unsigned warpSize,
                                        unsigned contiguity = 1,
                                        ::llvm::ArrayRef<unsigned> order = {});
  }];
}

def Tile_SliceLayoutAttr : Tile_LayoutAttr<"SliceLayout", "slice",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "a distributed layout with one dimension removed";
  let description = [{
    The layout of a tensor that `parent` would hold with dimension `dim`
    added back: what a reduction along `dim`, or the operand of an
    `expand_dims` at `dim`, uses.

    ```mlir
    #tile.slice<{dim = 1, parent = #tile.blocked<{...}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim,
                        "DistributedLayoutAttrInterface":$parent);
  let assemblyFormat = "`<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`";
}

def Tile_LinearLayoutAttr : Tile_LayoutAttr<"LinearEncoding", "linear",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "a distributed layout given by its linear form";
  let description = [{
    The images of the bases of each hardware dimension, one value per tensor
    dimension: any distributed layout can be written this way.

    ```mlir
    #tile.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0]],
                  warp = [[2, 0]], block = []}>
    ```
  }];
  let parameters = (ins "::mlir::tile::LinearLayout":$layout);
  let hasCustomAssemblyFormat = 1;
}

def Tile_DotOperandLayoutAttr : Tile_LayoutAttr<"DotOperandLayout", "dot_operand",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "the layout of an operand of a dot";
  let description = [{
    The layout operand `opIdx` (0 for A, 1 for B) of a `tile.dot` needs when
    its result has layout `parent`. `kWidth` is the number of consecutive
    elements along K a thread holds, for matrix-unit parents.

    ```mlir
    #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{...}>, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx,
                        "DistributedLayoutAttrInterface":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `kWidth` `=` $kWidth `}` `>`
  }];
}

def Tile_CoalescedLayoutAttr : Tile_LayoutAttr<"CoalescedLayout", "coalesced"> {
  let summary = "a layout the backend chooses to coalesce memory accesses";
  let description = [{
    A placeholder of the explicit level (Gluon's CoalescedLayout): the
    tensors holding it get, for the target's warps, the blocked layout that
    coalesces the loads and stores they reach, and the layouts that follow
    from it through the ops between them (tile-resolve-coalesced-layouts).
    No tensor has it after the backend's layout stage.

    ```mlir
    tensor<128xi32, #tile.coalesced>
    ```
  }];
  let genVerifyDecl = 0;
  let assemblyFormat = "";
}

//===----------------------------------------------------------------------===//
// Shared-memory layouts
//===----------------------------------------------------------------------===//

def Tile_SwizzledSharedLayoutAttr : Tile_LayoutAttr<"SwizzledSharedLayout",
    "swizzled_shared", [DeclareAttrInterfaceMethods<Tile_SharedLayoutInterface>]> {
  let summary = "shared memory with XOR-swizzled rows";
  let description = [{
    Elements are stored with dimension `order[0]` contiguous; in row r (along
    `order[1]`), the group of `vec` elements at column group g is stored at
    group `g ^ ((r / perPhase) % maxPhase)`, so that threads reading a column
    hit different banks.

    ```mlir
    #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase
    `,` `order` `=` `[` $order `]` `}` `>`
  }];
}

def Tile_NVMMASharedLayoutAttr : Tile_LayoutAttr<"NVMMASharedLayout",
    "nvmma_shared", [DeclareAttrInterfaceMethods<Tile_SharedLayoutInterface>]> {
  let summary = "the 32/64/128-byte swizzled layouts of Hopper's wgmma and TMA";
  let description = [{
    Rows of `swizzlingByteWidth` bytes (0 for no swizzle) whose 16-byte
    chunks are XORed with `(row * swizzlingByteWidth / 128) %
    (swizzlingByteWidth / 16)` (the 128-byte line of the row); wider tensors are cut in column tiles stored one after the other. With
    `transposed`, dimension 0 is the contiguous one.

    ```mlir
    #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzlingByteWidth, "bool":$transposed,
                        "unsigned":$elementBitWidth);
  let assemblyFormat = [{
    `<` `{` `swizzlingByteWidth` `=` $swizzlingByteWidth `,` `transposed` `=` $transposed
    `,` `elementBitWidth` `=` $elementBitWidth `}` `>`
  }];
}

def Tile_SharedLinearLayoutAttr : Tile_LayoutAttr<"SharedLinearEncoding",
    "shared_linear", [DeclareAttrInterfaceMethods<Tile_SharedLayoutInterface>]> {
  let summary = "a shared-memory layout given by its linear form";
  let description = [{
    The tensor coordinates of each bit of an element's offset in the
    buffer, low bit first (Gluon's SharedLinearLayout); the buffer starts
    at a multiple of `alignment` bytes (16 where not given). Every element
    has an offset of its own.

    ```mlir
    #tile.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 1]], alignment = 16}>
    ```
  }];
  let parameters = (ins "::mlir::tile::LinearLayout":$layout,
                        "unsigned":$alignment);
  let hasCustomAssemblyFormat = 1;
}

def Tile_PaddedSharedLayoutAttr : Tile_LayoutAttr<"PaddedSharedLayout",
    "padded_shared", [DeclareAttrInterfaceMethods<Tile_SharedLayoutInterface>]> {
  let summary = "a shared-memory layout with padding between its elements";
  let description = [{
    The tensor coordinates of each bit of an element's offset, as
    `#tile.shared_linear`, with `paddings[i]` empty elements after every
    `intervals[i]` offsets (Gluon's PaddedSharedLayout): the element at
    offset o sits at o + sum_i (o / intervals[i]) * paddings[i]. Padding
    moves rows apart in the banks without a swizzle.

    ```mlir
    #tile.padded_shared<[32:+4, 256:+8] {offset = [[0, 1], [0, 2], [1, 0]]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$intervals,
                        ArrayRefParameter<"unsigned">:$paddings,
                        "::mlir::tile::LinearLayout":$layout);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::mlir::tile::SharedPadding getPadding() const {
      return {::llvm::SmallVector<unsigned>(getIntervals()),
              ::llvm::SmallVector<unsigned>(getPaddings())};
    }
  }];
}

#endif // TESSERA_IR_LAYOUT_LAYOUTATTRS_TD
