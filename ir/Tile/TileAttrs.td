//===- TileAttrs.td - enums of the tile dialect -------------*- tablegen -*-===//

#ifndef TESSERA_IR_TILE_TILEATTRS_TD
#define TESSERA_IR_TILE_TILEATTRS_TD

include "ir/Tile/TileDialect.td"
include "mlir/IR/EnumAttr.td"

// Enums are integer attributes: they print as a bare keyword in an op's
// custom form (`tile.atomic_rmw fadd, acq_rel, gpu, ...`) and as an integer
// in the generic form, so both forms round-trip.

def Tile_ProgramAxis : I32EnumAttr<"ProgramAxis", "axis of the launch grid", [
      I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_CacheModifier : I32EnumAttr<"CacheModifier",
    "cache operator of a load or store (PTX names)", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>,
      I32EnumAttrCase<"cg", 2>, I32EnumAttrCase<"wb", 3>,
      I32EnumAttrCase<"cs", 4>, I32EnumAttrCase<"wt", 5>,
      I32EnumAttrCase<"cv", 6>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_EvictionPolicy : I32EnumAttr<"EvictionPolicy",
    "cache eviction priority of a load or store", [
      I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"evict_first", 1>,
      I32EnumAttrCase<"evict_last", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_RMWKind : I32EnumAttr<"RMWKind", "read-modify-write operation of an atomic", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"fadd", 1>,
      I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
      I32EnumAttrCase<"umax", 4>, I32EnumAttrCase<"umin", 5>,
      I32EnumAttrCase<"And", 6, "and">, I32EnumAttrCase<"Or", 7, "or">,
      I32EnumAttrCase<"Xor", 8, "xor">, I32EnumAttrCase<"xchg", 9>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_MemOrder : I32EnumAttr<"MemOrder", "memory ordering of an atomic", [
      I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
      I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_MemScope : I32EnumAttr<"MemScope", "set of threads an atomic is ordered with", [
      I32EnumAttrCase<"gpu", 0>, I32EnumAttrCase<"cta", 1>,
      I32EnumAttrCase<"sys", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_InputPrecision : I32EnumAttr<"InputPrecision",
    "precision used for fp32 inputs of a dot", [
      I32EnumAttrCase<"tf32", 0>, I32EnumAttrCase<"tf32x3", 1>,
      I32EnumAttrCase<"ieee", 2>]> {
  let cppNamespace = "::mlir::tile";
}

#endif // TESSERA_IR_TILE_TILEATTRS_TD
