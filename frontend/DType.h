//===- DType.h - the element types of the language ------------------------===//
//
// The dtypes of `tessera.language` (`triton.language`): signed and unsigned
// integers, floats, and pointers. IR integers are signless, so a DType keeps
// the signedness that division, comparison, shifts and casts need.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_FRONTEND_DTYPE_H
#define TESSERA_FRONTEND_DTYPE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::tile::frontend {

class DType {
public:
  enum class Kind { Bool, Int, UInt, Float, Pointer };

  static DType boolean() { return DType(Kind::Bool, 1); }
  static DType integer(unsigned bits, bool isSigned = true) {
    return DType(isSigned ? Kind::Int : Kind::UInt, bits);
  }
  /// `name` is fp16, bf16, fp32, fp64, fp8e4nv, fp8e5, fp8e4b15, fp8e4b8
  /// or fp8e5b16 (the last two the FNUZ formats of AMD's CDNA3).
  static DType floating(llvm::StringRef name);
  static DType pointer(const DType &pointee, int addressSpace = 1);

  /// Parses the names `name()` gives: int32, uint8, int1, float16,
  /// bfloat16, float32, float64, float8e4nv, float8e5, float8e4b15,
  /// float8e4b8, float8e5b16, pointer<float32>.
  static std::optional<DType> parse(llvm::StringRef name);

  Kind kind() const { return kind_; }
  unsigned bits() const { return bits_; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInt() const { return kind_ == Kind::Int || kind_ == Kind::UInt; }
  bool isIntOrBool() const { return isInt() || isBool(); }
  bool isSigned() const { return kind_ == Kind::Int; }
  bool isFloat() const { return kind_ == Kind::Float; }
  bool isPointer() const { return kind_ == Kind::Pointer; }
  /// Triton's fp8 of exponent bias 15 (4 exponent, 3 mantissa bits, no
  /// infinities or NaN), for which the IR has no float type: its values
  /// are i8, converted to and from fp16 by bit arithmetic and computed on
  /// as fp16.
  bool isFp8e4b15() const { return isFloat() && floatName_ == "fp8e4b15"; }
  /// For floats: fp16, bf16, fp32, fp64, fp8e4nv, fp8e5, fp8e4b15, fp8e4b8,
  /// fp8e5b16.
  llvm::StringRef floatName() const { return floatName_; }
  const DType &pointee() const { return *pointee_; }

  /// The name in the language: `float32`, `pointer<float16>`...
  std::string name() const;
  /// The IR type of a scalar of this dtype.
  Type toMLIR(MLIRContext *context) const;

  bool operator==(const DType &other) const { return name() == other.name(); }
  bool operator!=(const DType &other) const { return !(*this == other); }

private:
  DType(Kind kind, unsigned bits) : kind_(kind), bits_(bits) {}
  Kind kind_;
  unsigned bits_;
  std::string floatName_;
  std::shared_ptr<DType> pointee_;
  int addressSpace_ = 1;
};

} // namespace mlir::tile::frontend

#endif // TESSERA_FRONTEND_DTYPE_H
