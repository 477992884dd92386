//===- AmdTargetInfo.cpp - the shared lowering's hooks for AMD ------------===//

#include "backends/amd/AmdTargetInfo.h"

#include "backends/amd/LowerMatrixCores.h"
#include "backends/amd/Passes.h"

#include "backends/common/LowerToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
} // namespace

Value AmdTargetInfo::programId(OpBuilder &b, Location loc,
                               ProgramAxis axis) const {
  Type type = b.getI32Type();
  switch (axis) {
  case ProgramAxis::x:
    return ROCDL::BlockIdXOp::create(b, loc, type);
  case ProgramAxis::y:
    return ROCDL::BlockIdYOp::create(b, loc, type);
  case ProgramAxis::z:
    return ROCDL::BlockIdZOp::create(b, loc, type);
  }
  llvm_unreachable("unknown axis");
}

Value AmdTargetInfo::numPrograms(OpBuilder &b, Location loc,
                                 ProgramAxis axis) const {
  // Code object v5 passes the grid's blocks per axis as the first three
  // words of the implicit kernel arguments (hidden_block_count_{x,y,z}).
  auto constantPtr = LLVM::LLVMPointerType::get(b.getContext(), 4);
  Value implicit =
      LLVM::CallIntrinsicOp::create(
          b, loc, constantPtr, b.getStringAttr("llvm.amdgcn.implicitarg.ptr"),
          ValueRange{})
          .getResult(0);
  Value word =
      LLVM::GEPOp::create(b, loc, constantPtr, b.getI32Type(), implicit,
                          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(axis)});
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), word, /*alignment=*/4,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/true);
}

Value AmdTargetInfo::readTime(OpBuilder &b, Location loc) const {
  // The 100 MHz real-time counter (s_memrealtime; a message on gfx11 on),
  // in nanoseconds.
  Value ticks = LLVM::CallIntrinsicOp::create(
                    b, loc, b.getI64Type(),
                    b.getStringAttr("llvm.readsteadycounter"), ValueRange{})
                    .getResult(0);
  return arith::MulIOp::create(
      b, loc, ticks,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(10)));
}

Value AmdTargetInfo::threadId(OpBuilder &b, Location loc) const {
  return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value AmdTargetInfo::shuffleXor(OpBuilder &b, Location loc, Value value,
                                unsigned mask) const {
  Value lane =
      arith::RemUIOp::create(b, loc, threadId(b, loc), i32(b, loc, warpSize));
  return shuffleIndex(b, loc, value,
                      arith::XOrIOp::create(b, loc, lane, i32(b, loc, mask)));
}

Value AmdTargetInfo::shuffleIndex(OpBuilder &b, Location loc, Value value,
                                  Value lane) const {
  // ds_bpermute addresses lanes in bytes.
  Value address = arith::ShLIOp::create(b, loc, lane, i32(b, loc, 2));
  return ROCDL::DsBpermuteOp::create(b, loc, b.getI32Type(), address, value);
}

void AmdTargetInfo::barrier(OpBuilder &b, Location loc) const {
  ROCDL::BarrierOp::create(b, loc);
}

bool AmdTargetInfo::isBarrier(Operation *op) const {
  return isa<ROCDL::BarrierOp>(op);
}

StringRef AmdTargetInfo::syncScope(MemScope scope) const {
  switch (scope) {
  case MemScope::cta:
    return "workgroup";
  case MemScope::gpu:
    return "agent";
  case MemScope::sys:
    return "";
  }
  llvm_unreachable("unknown scope");
}

void AmdTargetInfo::printf(OpBuilder &, Location, StringRef, ValueRange) const {
  llvm_unreachable("AMD kernels cannot print: hasPrintf() says so");
}

void AmdTargetInfo::assertFail(OpBuilder &b, Location loc, StringRef, StringRef,
                               unsigned, StringRef) const {
  // No message without printf: the kernel traps, and the launch fails.
  LLVM::Trap::create(b, loc);
}

namespace {
/// sinh, cosh and tan from exp, sin and cos: LLVM's intrinsics for them
/// have no AMDGPU lowering (preferred to math-to-llvm's patterns).
template <typename Op>
struct ExpandForAmd : public OpRewritePattern<Op> {
  ExpandForAmd(MLIRContext *context) : OpRewritePattern<Op>(context, 2) {}
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    if constexpr (std::is_same_v<Op, math::TanOp>) {
      rewriter.replaceOpWithNewOp<arith::DivFOp>(
          op, math::SinOp::create(rewriter, loc, x),
          math::CosOp::create(rewriter, loc, x));
    } else {
      Value up = math::ExpOp::create(rewriter, loc, x);
      Value down = math::ExpOp::create(
          rewriter, loc, arith::NegFOp::create(rewriter, loc, x));
      Value sum = std::is_same_v<Op, math::SinhOp>
                      ? Value(arith::SubFOp::create(rewriter, loc, up, down))
                      : Value(arith::AddFOp::create(rewriter, loc, up, down));
      Value half = arith::ConstantOp::create(
          rewriter, loc, rewriter.getFloatAttr(x.getType(), 0.5));
      rewriter.replaceOpWithNewOp<arith::MulFOp>(op, sum, half);
    }
    return success();
  }
};
} // namespace

void AmdTargetInfo::populateMathPatterns(LLVMTypeConverter &,
                                         RewritePatternSet &patterns) const {
  // LLVM's math intrinsics (math-to-llvm) lower on AMDGPU. The functions
  // without one are written with those that have (the hyperbolic ones,
  // tan, pow) or as polynomials (f32; f64 ones have no lowering).
  populatePolynomialApproximateErfPattern(patterns);
  patterns.add<ExpandForAmd<math::SinhOp>, ExpandForAmd<math::CoshOp>,
               ExpandForAmd<math::TanOp>>(patterns.getContext());
  math::populateExpansionPatterns(patterns,
                                  {"asinh", "acosh", "atanh", "powf", "round"});
  populateMathPolynomialApproximationPatterns(
      patterns,
      [](StringRef name) {
        name.consume_front("math.");
        return llvm::is_contained({"atan", "atan2", "asin", "acos", "cbrt",
                                   "tanh", "log1p", "expm1", "erfc"},
                                  name);
      },
      /*benefit=*/2);
}

void AmdTargetInfo::populateDotPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        LoweringState &state) const {
  populateAmdDotPatterns(converter, patterns, state);
}

void AmdTargetInfo::markKernel(LLVM::LLVMFuncOp func,
                               unsigned threadsPerBlock) const {
  MLIRContext *context = func.getContext();
  auto n = static_cast<int32_t>(threadsPerBlock);
  func->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(),
                UnitAttr::get(context));
  func->setAttr(
      ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
      StringAttr::get(context, std::to_string(n) + "," + std::to_string(n)));
  func->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(),
                DenseI32ArrayAttr::get(context, {n, 1, 1}));
  if (wavesPerEU)
    func->setAttr("rocdl.waves_per_eu",
                  IntegerAttr::get(IntegerType::get(context, 32), wavesPerEU));
}

namespace {
/// The shared lowering with AMD's hooks, as a pass for tests.
struct AmdToLLVMPass
    : public PassWrapper<AmdToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AmdToLLVMPass)
  AmdToLLVMPass() = default;
  AmdToLLVMPass(const AmdToLLVMPass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "tile-amd-to-llvm"; }
  StringRef getDescription() const override {
    return "lower tile IR with layouts to the LLVM and ROCDL dialects";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, ROCDL::ROCDLDialect>();
  }
  void runOnOperation() override {
    if (failed(
            lowerToLLVM(getOperation(), AmdTargetInfo(warpSize, wavesPerEU))))
      signalPassFailure();
  }
  Option<unsigned> warpSize{*this, "warp-size",
                            llvm::cl::desc("lanes per wavefront (64 or 32)"),
                            llvm::cl::init(64)};
  Option<unsigned> wavesPerEU{*this, "waves-per-eu",
                              llvm::cl::desc("occupancy hint (0: none)"),
                              llvm::cl::init(0)};
};
} // namespace

void mlir::tile::registerAmdPasses() {
  PassRegistration<AmdToLLVMPass>();
  registerAmdBackendPasses();
}
