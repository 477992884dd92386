//===- NvidiaTargetInfo.cpp - the shared lowering's hooks for NVIDIA ------===//

#include "backends/nvidia/NvidiaTargetInfo.h"

#include "backends/common/LowerToLLVM.h"
#include "backends/nvidia/LowerDotOps.h"
#include "backends/nvidia/Passes.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

Value shuffle(OpBuilder &b, Location loc, Value value, Value offset,
              NVVM::ShflKind kind, int32_t clamp) {
  return NVVM::ShflOp::create(b, loc, b.getI32Type(), i32(b, loc, -1), value,
                              offset, i32(b, loc, clamp), kind,
                              /*return_value_and_is_valid=*/UnitAttr());
}

/// How a vector access is cut into PTX registers: `words` of `wordBits`.
struct Words {
  unsigned words = 0, wordBits = 0;
  char constraint = 0;
};

std::optional<Words> splitIntoWords(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (!element.isIntOrFloat())
    return std::nullopt;
  unsigned elementBits = element.getIntOrFloatBitWidth();
  unsigned n = isa<VectorType>(type) ? cast<VectorType>(type).getNumElements()
                                     : 1;
  unsigned total = elementBits * n;
  unsigned wordBits = elementBits == 64 ? 64 : std::min(total, 32u);
  if (wordBits < 16 || total % wordBits)
    return std::nullopt;
  return Words{total / wordBits, wordBits,
               wordBits == 64 ? 'l' : wordBits == 32 ? 'r' : 'h'};
}

/// `value` (of an access type) as its words, and back.
SmallVector<Value> toWords(OpBuilder &b, Location loc, Value value,
                           Words words) {
  Type word = b.getIntegerType(words.wordBits);
  Type wide = words.words == 1 ? word : VectorType::get(words.words, word);
  Value cast = LLVM::BitcastOp::create(b, loc, wide, value);
  if (words.words == 1)
    return {cast};
  SmallVector<Value> result;
  for (unsigned i = 0; i < words.words; ++i)
    result.push_back(
        LLVM::ExtractElementOp::create(b, loc, cast, i32(b, loc, i)));
  return result;
}

Value fromWords(OpBuilder &b, Location loc, ValueRange parts, Words words,
                Type type) {
  Type word = b.getIntegerType(words.wordBits);
  if (words.words == 1)
    return LLVM::BitcastOp::create(b, loc, type, parts[0]);
  Value vec = LLVM::PoisonOp::create(b, loc, VectorType::get(words.words, word));
  for (auto [i, part] : llvm::enumerate(parts))
    vec = LLVM::InsertElementOp::create(b, loc, vec, part, i32(b, loc, i));
  return LLVM::BitcastOp::create(b, loc, type, vec);
}

std::string vectorSuffix(Words words) {
  return (words.words > 1 ? ".v" + std::to_string(words.words) : "") + ".b" +
         std::to_string(words.wordBits);
}

/// PTX qualifiers of a cache modifier or an eviction policy (one of them:
/// PTX takes a cache operator or an eviction priority, not both).
std::string cacheQualifiers(CacheModifier cache, EvictionPolicy evict,
                            bool isLoad) {
  switch (cache) {
  case CacheModifier::ca:
  case CacheModifier::cv:
    if (isLoad)
      return "." + stringifyCacheModifier(cache).str();
    break;
  case CacheModifier::wb:
  case CacheModifier::wt:
    if (!isLoad)
      return "." + stringifyCacheModifier(cache).str();
    break;
  case CacheModifier::cg:
  case CacheModifier::cs:
    return "." + stringifyCacheModifier(cache).str();
  case CacheModifier::none:
    break;
  }
  switch (evict) {
  case EvictionPolicy::evict_first:
    return ".L1::evict_first";
  case EvictionPolicy::evict_last:
    return ".L1::evict_last";
  case EvictionPolicy::normal:
    break;
  }
  return "";
}

} // namespace

LLVM::InlineAsmOp mlir::tile::inlineAsm(OpBuilder &b, Location loc,
                                        Type result, ValueRange operands,
                                        StringRef text, StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, result, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

Value NvidiaTargetInfo::programId(OpBuilder &b, Location loc,
                                  ProgramAxis axis) const {
  Type i32 = b.getI32Type();
  switch (axis) {
  case ProgramAxis::x:
    return NVVM::BlockIdXOp::create(b, loc, i32);
  case ProgramAxis::y:
    return NVVM::BlockIdYOp::create(b, loc, i32);
  case ProgramAxis::z:
    return NVVM::BlockIdZOp::create(b, loc, i32);
  }
  llvm_unreachable("unknown axis");
}

Value NvidiaTargetInfo::numPrograms(OpBuilder &b, Location loc,
                                    ProgramAxis axis) const {
  Type i32 = b.getI32Type();
  switch (axis) {
  case ProgramAxis::x:
    return NVVM::GridDimXOp::create(b, loc, i32);
  case ProgramAxis::y:
    return NVVM::GridDimYOp::create(b, loc, i32);
  case ProgramAxis::z:
    return NVVM::GridDimZOp::create(b, loc, i32);
  }
  llvm_unreachable("unknown axis");
}

Value NvidiaTargetInfo::readTime(OpBuilder &b, Location loc) const {
  return NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
}

Value NvidiaTargetInfo::threadId(OpBuilder &b, Location loc) const {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  std::optional<WarpRegion> region = warpsAt(b.getInsertionBlock());
  if (!region || !region->firstWarp)
    return tid;
  return arith::SubIOp::create(b, loc, tid,
                               i32(b, loc, region->firstWarp * 32));
}

Value NvidiaTargetInfo::shuffleXor(OpBuilder &b, Location loc, Value value,
                                   unsigned mask) const {
  return shuffle(b, loc, value, i32(b, loc, mask), NVVM::ShflKind::bfly, 0x1f);
}

Value NvidiaTargetInfo::shuffleIndex(OpBuilder &b, Location loc, Value value,
                                     Value lane) const {
  return shuffle(b, loc, value, lane, NVVM::ShflKind::idx, 0x1f);
}

bool NvidiaTargetInfo::isBarrier(Operation *op) const {
  return isa<NVVM::Barrier0Op>(op);
}

void NvidiaTargetInfo::barrier(OpBuilder &b, Location loc) const {
  std::optional<WarpRegion> region = warpsAt(b.getInsertionBlock());
  if (!region) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  // Barrier 0 is the block's; each region of a warp_specialize its own.
  inlineAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()), {},
            "bar.sync " + std::to_string(region->index + 1) + ", " +
                std::to_string(region->numWarps * 32) + ";",
            "");
}

void NvidiaTargetInfo::setRegisters(OpBuilder &b, Location loc,
                                    unsigned count, bool increase) const {
  inlineAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()), {},
            std::string("setmaxnreg.") + (increase ? "inc" : "dec") +
                ".sync.aligned.u32 " + std::to_string(count) + ";",
            "");
}

Value NvidiaTargetInfo::loadGlobal(OpBuilder &b, Location loc, Value ptr,
                                   Type type, Value pred, Value other,
                                   CacheModifier cache, EvictionPolicy evict,
                                   bool isVolatile) const {
  std::optional<Words> words = splitIntoWords(type);
  if (!words)
    return TargetInfo::loadGlobal(b, loc, ptr, type, pred, other, cache, evict,
                                  isVolatile);
  // $0..: the words; then the predicate, the address, and `other`.
  unsigned n = words->words;
  std::string text, constraints;
  SmallVector<Value> operands{pred, ptr};
  if (other) {
    llvm::append_range(operands, toWords(b, loc, other, *words));
    for (unsigned i = 0; i < n; ++i)
      text += "mov.b" + std::to_string(words->wordBits) + " $" +
              std::to_string(i) + ", $" + std::to_string(n + 2 + i) + ";\n\t";
  }
  text += "@$" + std::to_string(n) + " ld" + (isVolatile ? ".volatile" : "") +
          ".global" +
          (isVolatile ? "" : cacheQualifiers(cache, evict, /*isLoad=*/true)) +
          vectorSuffix(*words) + " ";
  text += n > 1 ? "{" : "";
  for (unsigned i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += (n > 1 ? "}" : "") + std::string(", [ $") + std::to_string(n + 1) +
          " + 0 ];";
  for (unsigned i = 0; i < n; ++i)
    constraints += std::string(i ? "," : "") + "=" + words->constraint;
  constraints += ",b,l";
  for (unsigned i = 0; other && i < n; ++i)
    constraints += std::string(",") + words->constraint;

  Type word = b.getIntegerType(words->wordBits);
  Type result = n == 1 ? word
                       : LLVM::LLVMStructType::getLiteral(
                             b.getContext(), SmallVector<Type>(n, word));
  Value loaded = inlineAsm(b, loc, result, operands, text, constraints)
                     .getResult(0);
  SmallVector<Value> parts;
  if (n == 1)
    parts.push_back(loaded);
  else
    for (unsigned i = 0; i < n; ++i)
      parts.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, i));
  return fromWords(b, loc, parts, *words, type);
}

void NvidiaTargetInfo::storeGlobal(OpBuilder &b, Location loc, Value ptr,
                                   Value value, Value pred, CacheModifier cache,
                                   EvictionPolicy evict) const {
  std::optional<Words> words = splitIntoWords(value.getType());
  if (!words)
    return TargetInfo::storeGlobal(b, loc, ptr, value, pred, cache, evict);
  unsigned n = words->words;
  SmallVector<Value> operands{pred, ptr};
  llvm::append_range(operands, toWords(b, loc, value, *words));
  std::string text = "@$0 st.global" +
                     cacheQualifiers(cache, evict, /*isLoad=*/false) +
                     vectorSuffix(*words) + " [ $1 + 0 ], ";
  text += n > 1 ? "{" : "";
  for (unsigned i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(i + 2);
  text += n > 1 ? "};" : ";";
  std::string constraints = "b,l";
  for (unsigned i = 0; i < n; ++i)
    constraints += std::string(",") + words->constraint;
  inlineAsm(b, loc, Type(), operands, text, constraints);
}

StringRef NvidiaTargetInfo::syncScope(MemScope scope) const {
  switch (scope) {
  case MemScope::cta:
    return "block";
  case MemScope::gpu:
    return "device";
  case MemScope::sys:
    return "";
  }
  llvm_unreachable("unknown scope");
}

/// PTX's atom instruction with its memory order and scope spelled out, as
/// Triton writes it (`atom.global.gpu.acq_rel.add.u32`): values of 16, 32 or
/// 64 bits, as integers of that width in registers of that size. Where
/// `pred` is given, the atom runs only where it holds, and gives 0 elsewhere.
static Value emitAtom(OpBuilder &b, Location loc, StringRef qualifiers,
                      ValueRange values, Value ptr, Type type,
                      Value pred = {}) {
  unsigned bits = type.getIntOrFloatBitWidth();
  Type integer = b.getIntegerType(bits);
  StringRef reg = bits == 16 ? "h" : bits == 32 ? "r" : "l";
  SmallVector<Value> operands{ptr};
  std::string text = ("atom.global." + qualifiers + " $0, [$1]").str();
  std::string constraints = ("=" + reg + ",l").str();
  for (Value value : values) {
    operands.push_back(
        value.getType() == integer
            ? value
            : Value(LLVM::BitcastOp::create(b, loc, integer, value)));
    text += ", $" + std::to_string(operands.size());
    constraints += ("," + reg).str();
  }
  text += ";";
  if (pred) {
    operands.push_back(pred);
    text = "mov.b" + std::to_string(bits) + " $0, 0;\n@$" +
           std::to_string(operands.size()) + " " + text;
    constraints += ",b";
  }
  constraints += ",~{memory}";
  Value old =
      inlineAsm(b, loc, integer, operands, text, constraints).getResult(0);
  return type == integer ? old
                         : Value(LLVM::BitcastOp::create(b, loc, type, old));
}

Value NvidiaTargetInfo::atomicRMW(OpBuilder &b, Location loc, RMWKind kind,
                                  Value ptr, Value value, MemOrder order,
                                  MemScope scope) const {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  bool isFloat = isa<FloatType>(type);
  std::string prefix =
      (stringifyMemScope(scope) + "." + stringifyMemOrder(order) + ".").str();
  std::string width = std::to_string(bits);
  switch (kind) {
  case RMWKind::add:
  case RMWKind::fadd:
    // bf16 adds need sm_90; below it (or not knowing) LLVM's expansion.
    if (type.isBF16() && computeCapability < 90)
      return {};
    if (type.isF16() || type.isBF16())
      return emitAtom(b, loc,
                      prefix + "add.noftz." + (type.isF16() ? "f16" : "bf16"),
                      value, ptr, type);
    if (bits < 32)
      return {};
    return emitAtom(b, loc, prefix + "add." + (isFloat ? "f" : "u") + width,
                    value, ptr, type);
  case RMWKind::max:
  case RMWKind::min:
  case RMWKind::umax:
  case RMWKind::umin: {
    if (bits < 32)
      return {};
    bool isMax = kind == RMWKind::max || kind == RMWKind::umax;
    StringRef op = isMax ? "max" : "min";
    if (!isFloat) {
      bool isSigned = kind == RMWKind::max || kind == RMWKind::min;
      return emitAtom(b, loc,
                      prefix + op.str() + (isSigned ? ".s" : ".u") + width,
                      value, ptr, type);
    }
    // PTX has no float max or min; as Triton, on the bits: those of floats
    // without the sign bit order as signed integers, those with it in
    // reverse as unsigned (a max is a signed max where the sign is clear, an
    // unsigned min where it is set: -0.0 is below 0.0 and above -1.0).
    Type intType = b.getIntegerType(bits);
    Value asInt = LLVM::BitcastOp::create(b, loc, intType, value);
    Value zero = LLVM::ConstantOp::create(b, loc, intType, 0);
    Value positive =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, asInt, zero);
    Value negative =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, asInt, zero);
    StringRef reverse = isMax ? "min" : "max";
    Value signedOld = emitAtom(b, loc, prefix + op.str() + ".s" + width, value,
                               ptr, type, positive);
    Value unsignedOld = emitAtom(b, loc, prefix + reverse.str() + ".u" + width,
                                 value, ptr, type, negative);
    return LLVM::SelectOp::create(b, loc, positive, signedOld, unsignedOld);
  }
  case RMWKind::And:
  case RMWKind::Or:
  case RMWKind::Xor:
  case RMWKind::xchg: {
    if (bits < 32)
      return {};
    StringRef op = kind == RMWKind::And   ? "and"
                   : kind == RMWKind::Or  ? "or"
                   : kind == RMWKind::Xor ? "xor"
                                          : "exch";
    return emitAtom(b, loc, prefix + op.str() + ".b" + width, value, ptr, type);
  }
  }
  llvm_unreachable("unknown atomic kind");
}

Value NvidiaTargetInfo::atomicCAS(OpBuilder &b, Location loc, Value ptr,
                                  Value cmp, Value value, MemOrder order,
                                  MemScope scope) const {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 16)
    return {};
  return emitAtom(b, loc,
                  (stringifyMemOrder(order) + "." + stringifyMemScope(scope) +
                   ".cas.b" + std::to_string(bits))
                      .str(),
                  {cmp, value}, ptr, type);
}

void NvidiaTargetInfo::printf(OpBuilder &b, Location loc, StringRef format,
                              ValueRange args) const {
  MLIRContext *context = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto vprintf = declareFunction(
      b, enclosingModule(b), "vprintf",
      LLVM::LLVMFunctionType::get(b.getI32Type(), {ptrType, ptrType}));
  Value buffer;
  if (args.empty()) {
    buffer = LLVM::ZeroOp::create(b, loc, ptrType);
  } else {
    SmallVector<Type> fields;
    for (Value arg : args)
      fields.push_back(arg.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(context, fields);
    Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
    buffer = LLVM::AllocaOp::create(b, loc, ptrType, structType, one,
                                    /*alignment=*/8);
    for (auto [i, arg] : llvm::enumerate(args)) {
      Value field = LLVM::GEPOp::create(
          b, loc, ptrType, structType, buffer,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, arg, field);
    }
  }
  LLVM::CallOp::create(b, loc, vprintf,
                       ValueRange{stringConstant(b, loc, format), buffer});
}

void NvidiaTargetInfo::assertFail(OpBuilder &b, Location loc,
                                  StringRef message, StringRef file,
                                  unsigned line, StringRef function) const {
  MLIRContext *context = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto assertfail = declareFunction(
      b, enclosingModule(b), "__assertfail",
      LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(context),
          {ptrType, ptrType, b.getI32Type(), ptrType, b.getI64Type()}));
  LLVM::CallOp::create(
      b, loc, assertfail,
      ValueRange{stringConstant(b, loc, message), stringConstant(b, loc, file),
                 i32(b, loc, line), stringConstant(b, loc, function),
                 arith::ConstantIntOp::create(b, loc, 1, 64)});
}

namespace {

/// A math op on f32 or f64 as a call of libdevice's function (f16 and bf16
/// computed in f32).
class LibdevicePattern : public ConvertToLLVMPattern {
public:
  LibdevicePattern(StringRef opName, StringRef f32Name, StringRef f64Name,
                   LLVMTypeConverter &converter)
      : ConvertToLLVMPattern(opName, &converter.getContext(), converter,
                             /*benefit=*/2),
        f32Name(f32Name), f64Name(f64Name) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op->getLoc();
    bool isF64 = type.isF64();
    Type computeType = isF64 ? type : rewriter.getF32Type();
    SmallVector<Value> args;
    for (Value operand : operands)
      args.push_back(operand.getType() == computeType
                         ? operand
                         : Value(LLVM::FPExtOp::create(rewriter, loc,
                                                       computeType, operand)));
    SmallVector<Type> argTypes(args.size(), computeType);
    auto func = declareFunction(
        rewriter, op->getParentOfType<ModuleOp>(), isF64 ? f64Name : f32Name,
        LLVM::LLVMFunctionType::get(computeType, argTypes));
    Value result = LLVM::CallOp::create(rewriter, loc, func, args).getResult();
    if (type != computeType)
      result = LLVM::FPTruncOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  std::string f32Name, f64Name;
};

/// An f32 op allowed to be approximate (its fastmath flags hold `flag`) as
/// one NVVM intrinsic, like Triton: `/` (arcp) is div.full.f32, tl.sqrt
/// (afn) sqrt.approx.ftz.f32.
template <typename Op>
class ApproximatePattern : public ConvertOpToLLVMPattern<Op> {
public:
  ApproximatePattern(LLVMTypeConverter &converter, arith::FastMathFlags flag,
                     StringRef intrinsic)
      : ConvertOpToLLVMPattern<Op>(converter, /*benefit=*/3), flag(flag),
        intrinsic(intrinsic) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() || !bitEnumContainsAll(op.getFastmath(), flag))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr(intrinsic),
        adaptor.getOperands());
    return success();
  }

private:
  arith::FastMathFlags flag;
  std::string intrinsic;
};

/// exp2(x) and exp(x) below f64 as Triton computes them: ex2.approx.ftz.f32
/// of x, or of x * log2(e) (2 ulp plus the rounding of the product,
/// relative 2^-24 |x log2 e|); results under 2^-126 flush to zero.
template <typename Op>
class FastExp2Pattern : public ConvertOpToLLVMPattern<Op> {
public:
  FastExp2Pattern(LLVMTypeConverter &converter, double scale)
      : ConvertOpToLLVMPattern<Op>(converter, /*benefit=*/3), scale(scale) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type) || type.isF64())
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = adaptor.getOperand();
    if (type != f32)
      x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
    if (scale != 1.0)
      x = LLVM::FMulOp::create(
          rewriter, loc, x,
          LLVM::ConstantOp::create(rewriter, loc, f32,
                                   rewriter.getF32FloatAttr(scale)));
    Value result =
        LLVM::CallIntrinsicOp::create(
            rewriter, loc, f32,
            rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), x)
            .getResult(0);
    if (type != f32)
      result = LLVM::FPTruncOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  double scale;
};

} // namespace

void NvidiaTargetInfo::populateMathPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns) const {
  // Ops NVPTX has no instruction for; the others go through LLVM's
  // intrinsics (math-to-llvm).
  struct Entry {
    StringRef op, name;
  };
  static const Entry entries[] = {
      {math::ExpOp::getOperationName(), "exp"},   // f64; FastExp2Pattern below
      {math::Exp2Op::getOperationName(), "exp2"}, // f64; FastExp2Pattern below
      {math::ExpM1Op::getOperationName(), "expm1"},
      {math::LogOp::getOperationName(), "log"},
      {math::Log2Op::getOperationName(), "log2"},
      {math::Log10Op::getOperationName(), "log10"},
      {math::Log1pOp::getOperationName(), "log1p"},
      {math::SinOp::getOperationName(), "sin"},
      {math::CosOp::getOperationName(), "cos"},
      {math::TanOp::getOperationName(), "tan"},
      {math::AsinOp::getOperationName(), "asin"},
      {math::AcosOp::getOperationName(), "acos"},
      {math::AtanOp::getOperationName(), "atan"},
      {math::Atan2Op::getOperationName(), "atan2"},
      {math::SinhOp::getOperationName(), "sinh"},
      {math::CoshOp::getOperationName(), "cosh"},
      {math::TanhOp::getOperationName(), "tanh"},
      {math::AsinhOp::getOperationName(), "asinh"},
      {math::AcoshOp::getOperationName(), "acosh"},
      {math::AtanhOp::getOperationName(), "atanh"},
      {math::ErfOp::getOperationName(), "erf"},
      {math::ErfcOp::getOperationName(), "erfc"},
      {math::PowFOp::getOperationName(), "pow"},
      {math::CbrtOp::getOperationName(), "cbrt"},
      {math::RsqrtOp::getOperationName(), "rsqrt"},
      {arith::RemFOp::getOperationName(), "fmod"},
  };
  for (const Entry &e : entries)
    patterns.add<LibdevicePattern>(e.op, ("__nv_" + e.name + "f").str(),
                                   ("__nv_" + e.name).str(), converter);
  patterns.add<ApproximatePattern<arith::DivFOp>>(
      converter, arith::FastMathFlags::arcp, "llvm.nvvm.div.full");
  patterns.add<ApproximatePattern<math::SqrtOp>>(
      converter, arith::FastMathFlags::afn, "llvm.nvvm.sqrt.approx.ftz.f");
  patterns.add<FastExp2Pattern<math::ExpOp>>(converter, 1.4426950408889634);
  patterns.add<FastExp2Pattern<math::Exp2Op>>(converter, 1.0);
}

void NvidiaTargetInfo::asyncCopy(OpBuilder &b, Location loc, Value dst,
                                 Value src, unsigned bytes, Value pred) const {
  // The source size: all of it, or nothing (zeros) where `pred` is false.
  Value size = arith::SelectOp::create(
      b, loc, pred, arith::ConstantIntOp::create(b, loc, bytes, 32),
      arith::ConstantIntOp::create(b, loc, 0, 32));
  // .cg (L2 only) takes 16 bytes; smaller copies go through L1 (.ca).
  auto cache = bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                           : NVVM::LoadCacheModifierKind::CA;
  NVVM::CpAsyncOp::create(
      b, loc, dst, src, b.getI32IntegerAttr(bytes),
      NVVM::LoadCacheModifierKindAttr::get(b.getContext(), cache), size);
}

void NvidiaTargetInfo::asyncCommitGroup(OpBuilder &b, Location loc) const {
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void NvidiaTargetInfo::asyncWait(OpBuilder &b, Location loc,
                                 unsigned pending) const {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
}

SmallVector<Value> NvidiaTargetInfo::loadMatrices(OpBuilder &b, Location loc,
                                                 Value address, unsigned count,
                                                 bool transpose) const {
  MLIRContext *context = b.getContext();
  Type i32 = b.getI32Type();
  Type resultType =
      count == 1 ? i32
                 : LLVM::LLVMStructType::getLiteral(
                       context, SmallVector<Type>(count, i32));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, resultType, address, count,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
      NVVM::LdStMatrixEltType::B16);
  if (count == 1)
    return {loaded};
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, i));
  return values;
}

void NvidiaTargetInfo::populateDotPatterns(TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           LoweringState &state) const {
  populateNvidiaDotPatterns(converter, patterns, state);
  populateNvidiaAsyncPatterns(converter, patterns, state);
}

void NvidiaTargetInfo::markKernel(LLVM::LLVMFuncOp func,
                                  unsigned threadsPerBlock) const {
  MLIRContext *context = func.getContext();
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                UnitAttr::get(context));
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                DenseI32ArrayAttr::get(
                    context, {static_cast<int32_t>(threadsPerBlock), 1, 1}));
  // Tensor maps come by value, as `const __grid_constant__ CUtensorMap`:
  // their (generic) address is what TMA copies take.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, kTensorMapAttr))
      continue;
    func.removeArgAttr(i, kTensorMapAttr);
    func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(LLVM::LLVMArrayType::get(
                        IntegerType::get(context, 8), 128)));
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    IntegerAttr::get(IntegerType::get(context, 64), 64));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                    UnitAttr::get(context));
  }
}

namespace {
/// The shared lowering with NVIDIA's hooks, as a pass for tests.
struct NvidiaToLLVMPass
    : public PassWrapper<NvidiaToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NvidiaToLLVMPass)
  StringRef getArgument() const override { return "tile-nvidia-to-llvm"; }
  StringRef getDescription() const override {
    return "lower tile IR with layouts to the LLVM and NVVM dialects";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect,
                    nvidia::TileNvidiaDialect>();
  }
  void runOnOperation() override {
    if (failed(lowerToLLVM(getOperation(), NvidiaTargetInfo())))
      signalPassFailure();
  }
};
} // namespace

void mlir::tile::registerNvidiaPasses() {
  registerNvidiaBackendPasses();
  PassRegistration<NvidiaToLLVMPass>();
}
