//===- DType.cpp - the element types of the language ----------------------===//

#include "frontend/DType.h"

#include "ir/Tile/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tile::frontend;

namespace {
struct FloatInfo {
  const char *short_, *long_;
  unsigned bits;
};
constexpr FloatInfo kFloats[] = {
    {"fp16", "float16", 16},        {"bf16", "bfloat16", 16},
    {"fp32", "float32", 32},        {"fp64", "float64", 64},
    {"fp8e4nv", "float8e4nv", 8},   {"fp8e5", "float8e5", 8},
    {"fp8e4b15", "float8e4b15", 8}, {"fp8e4b8", "float8e4b8", 8},
    {"fp8e5b16", "float8e5b16", 8},
};
} // namespace

DType DType::floating(llvm::StringRef name) {
  for (const FloatInfo &f : kFloats)
    if (name == f.short_) {
      DType t(Kind::Float, f.bits);
      t.floatName_ = f.short_;
      return t;
    }
  llvm_unreachable("unknown float dtype");
}

DType DType::pointer(const DType &pointee, int addressSpace) {
  DType t(Kind::Pointer, 64);
  t.pointee_ = std::make_shared<DType>(pointee);
  t.addressSpace_ = addressSpace;
  return t;
}

std::optional<DType> DType::parse(llvm::StringRef name) {
  if (name.consume_front("pointer<") && name.consume_back(">")) {
    std::optional<DType> pointee = parse(name);
    if (!pointee)
      return std::nullopt;
    return pointer(*pointee);
  }
  if (name == "int1")
    return boolean();
  for (const FloatInfo &f : kFloats)
    if (name == f.long_)
      return floating(f.short_);
  bool isSigned = !name.consume_front("u");
  unsigned bits;
  if (name.consume_front("int") && !name.getAsInteger(10, bits) &&
      (bits == 8 || bits == 16 || bits == 32 || bits == 64))
    return integer(bits, isSigned);
  return std::nullopt;
}

std::string DType::name() const {
  switch (kind_) {
  case Kind::Bool:
    return "int1";
  case Kind::Int:
    return "int" + std::to_string(bits_);
  case Kind::UInt:
    return "uint" + std::to_string(bits_);
  case Kind::Float:
    for (const FloatInfo &f : kFloats)
      if (floatName_ == f.short_)
        return f.long_;
    break;
  case Kind::Pointer:
    return "pointer<" + pointee_->name() + ">";
  }
  llvm_unreachable("unknown dtype");
}

Type DType::toMLIR(MLIRContext *context) const {
  switch (kind_) {
  case Kind::Bool:
  case Kind::Int:
  case Kind::UInt:
    return IntegerType::get(context, bits_);
  case Kind::Float:
    if (floatName_ == "fp16")
      return Float16Type::get(context);
    if (floatName_ == "bf16")
      return BFloat16Type::get(context);
    if (floatName_ == "fp32")
      return Float32Type::get(context);
    if (floatName_ == "fp64")
      return Float64Type::get(context);
    if (floatName_ == "fp8e4nv")
      return Float8E4M3FNType::get(context);
    if (floatName_ == "fp8e4b15")
      return IntegerType::get(context, 8);
    if (floatName_ == "fp8e4b8")
      return Float8E4M3FNUZType::get(context);
    if (floatName_ == "fp8e5b16")
      return Float8E5M2FNUZType::get(context);
    return Float8E5M2Type::get(context);
  case Kind::Pointer:
    return PointerType::get(pointee_->toMLIR(context), addressSpace_);
  }
  llvm_unreachable("unknown dtype");
}
