//===- CpuBackend.cpp - tile kernels on the host's CPU, as a plugin -------===//
//
// The backend "cpu" (targets "cpu:native" or "cpu:<LLVM CPU name>"): tile
// IR with layouts for warps of one lane, lowered by Tessera's shared
// patterns to the host's LLVM target. A program is one call of the kernel:
// a "warp" is one thread, its tile held in registers that LLVM vectorises;
// shared memory is a buffer of the thread running the program; barriers are
// no-ops within a program. The binary is a relocatable object, which the
// plugin's driver (CpuDriver.cpp) runs with ORC over the grid.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "backends/Backend.h"
#include "backends/Plugin.h"
#include "backends/common/Codegen.h"
#include "backends/common/LowerToLLVM.h"
#include "backends/common/Lowering.h"
#include "backends/common/Passes.h"
#include "backends/common/TargetInfo.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

/// Large loop-carried tiles in buffers (CpuCarried.cpp).
LogicalResult keepLoopCarriedTilesInMemory(ModuleOp module);
/// Dots as loops over the program's buffers (CpuDots.cpp).
void populateCpuDotPatterns(TypeConverter &converter,
                            RewritePatternSet &patterns, LoweringState &state);

/// `value` as a vector: itself where it is one, else `lanes` copies (also
/// CpuDots.cpp's).
Value splat(OpBuilder &b, Location loc, Value value, unsigned lanes) {
  if (isa<VectorType>(value.getType()))
    return value;
  Value vector = LLVM::InsertElementOp::create(
      b, loc,
      LLVM::PoisonOp::create(b, loc, VectorType::get({lanes}, value.getType())),
      value, i32Constant(b, loc, 0));
  if (lanes == 1)
    return vector;
  return LLVM::ShuffleVectorOp::create(b, loc, vector, vector,
                                       SmallVector<int32_t>(lanes, 0));
}

namespace {

llvm::Error cpuError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cpu: " + message);
}

/// A call of the runtime function `name` (CpuRuntime.h).
Value callRuntime(OpBuilder &b, Location loc, StringRef name, Type result,
                  ValueRange args) {
  SmallVector<Type> params(args.getTypes());
  auto func = declareFunction(b, enclosingModule(b), name,
                              LLVM::LLVMFunctionType::get(result, params));
  auto call = LLVM::CallOp::create(b, loc, func, args);
  return call.getNumResults() ? call.getResult() : Value();
}

/// The bytes of an element of `type` (a scalar or a vector), the alignment
/// of an access of it.
unsigned elementBytes(Type type) {
  return storageBytes(getElementTypeOrSelf(type));
}

/// `ptr` where `pred` holds, else (a pointer of the same type to) the
/// module's sink: 64 bytes that the accesses a mask leaves out go to.
Value orSink(OpBuilder &b, Location loc, Value ptr, Value pred) {
  StringRef name = "tessera_cpu_sink";
  ModuleOp module = enclosingModule(b);
  auto bytes = LLVM::LLVMArrayType::get(b.getI8Type(), 64);
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto sink = LLVM::GlobalOp::create(b, loc, bytes, /*isConstant=*/false,
                                       LLVM::Linkage::Internal, name,
                                       Attribute(), /*alignment=*/64);
    b.createBlock(&sink.getInitializerRegion());
    LLVM::ReturnOp::create(b, loc, LLVM::ZeroOp::create(b, loc, bytes));
  }
  Value sink = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  if (sink.getType() != ptr.getType())
    sink = LLVM::AddrSpaceCastOp::create(b, loc, ptr.getType(), sink);
  return LLVM::SelectOp::create(b, loc, pred, ptr, sink);
}

/// A load of the scalar `type` at `ptr` where `pred` (i1) holds, else of
/// the sink; `other` (when not null) where `pred` does not hold.
Value loadScalar(OpBuilder &b, Location loc, Value ptr, Type type, Value pred,
                 Value other, bool isVolatile) {
  Value loaded = LLVM::LoadOp::create(b, loc, type, orSink(b, loc, ptr, pred),
                                      elementBytes(type), isVolatile);
  return other ? LLVM::SelectOp::create(b, loc, pred, loaded, other) : loaded;
}

/// rsqrt as 1 / sqrt: libm has no rsqrt (MathToLibm names LLVM libc's).
struct RsqrtAsDivision : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value one = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(op.getType(), 1.0));
    rewriter.replaceOpWithNewOp<arith::DivFOp>(
        op, one, math::SqrtOp::create(rewriter, loc, op.getOperand()));
    return success();
  }
};

/// fma as LLVM's intrinsic (the CPU's fused multiply-add, on vectors too),
/// not libm's fma.
struct FmaAsIntrinsic : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
    return success();
  }
};

/// The shared lowering's hooks for one-lane warps on the host.
class CpuTargetInfo : public TargetInfo {
public:
  unsigned getWarpSize() const override { return 1; }
  Value programId(OpBuilder &b, Location loc, ProgramAxis axis) const override {
    return callRuntime(b, loc, "tessera_cpu_program_id", b.getI32Type(),
                       {i32Constant(b, loc, static_cast<int>(axis))});
  }
  Value numPrograms(OpBuilder &b, Location loc,
                    ProgramAxis axis) const override {
    return callRuntime(b, loc, "tessera_cpu_num_programs", b.getI32Type(),
                       {i32Constant(b, loc, static_cast<int>(axis))});
  }
  Value threadId(OpBuilder &b, Location loc) const override {
    return i32Constant(b, loc, 0);
  }
  // One lane: every lane is this one.
  Value shuffleXor(OpBuilder &, Location, Value value,
                   unsigned) const override {
    return value;
  }
  Value shuffleIndex(OpBuilder &, Location, Value value, Value) const override {
    return value;
  }
  // One thread runs a program's code in order.
  void barrier(OpBuilder &, Location) const override {}
  bool isBarrier(Operation *) const override { return false; }
  unsigned getGlobalAddressSpace() const override { return 0; }
  unsigned getSharedAddressSpace() const override { return 0; }
  Value readTime(OpBuilder &b, Location loc) const override {
    return callRuntime(b, loc, "tessera_cpu_time_ns", b.getI64Type(), {});
  }
  void populateDotPatterns(TypeConverter &converter,
                           RewritePatternSet &patterns,
                           LoweringState &state) const override {
    populateCpuDotPatterns(converter, patterns, state);
  }
  // Accesses of up to a cache line, aligned to their element, masked
  // element by element: LLVM's
  // masked loads and stores (the CPU's masked moves) for vectors, and the
  // sink where a scalar's mask is false; no branch, so that a tile's
  // accesses stay one block for the vectorisers and the code generator.
  unsigned getMaxAccessBytes() const override { return 64; }
  bool hasElementMasks() const override { return true; }
  bool hasUnalignedAccesses() const override { return true; }
  Value loadGlobal(OpBuilder &b, Location loc, Value ptr, Type type, Value pred,
                   Value other, CacheModifier, EvictionPolicy,
                   bool isVolatile) const override {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector)
      return loadScalar(b, loc, ptr, type, pred, other, isVolatile);
    if (!isVolatile)
      return LLVM::MaskedLoadOp::create(
          b, loc, vector, ptr, splat(b, loc, pred, vector.getNumElements()),
          other ? other : LLVM::ZeroOp::create(b, loc, vector),
          elementBytes(type));
    // LLVM's masked loads are never volatile: element by element.
    Type element = vector.getElementType();
    Value result = other ? other : LLVM::ZeroOp::create(b, loc, vector);
    for (unsigned i = 0, n = vector.getNumElements(); i < n; ++i) {
      Value index = i32Constant(b, loc, i);
      Value at = LLVM::GEPOp::create(b, loc, ptr.getType(), element, ptr,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
      Value bit = isa<VectorType>(pred.getType())
                      ? LLVM::ExtractElementOp::create(b, loc, pred, index)
                      : pred;
      Value old = LLVM::ExtractElementOp::create(b, loc, result, index);
      result = LLVM::InsertElementOp::create(
          b, loc, result,
          loadScalar(b, loc, at, element, bit, old, /*isVolatile=*/true),
          index);
    }
    return result;
  }
  void storeGlobal(OpBuilder &b, Location loc, Value ptr, Value value,
                   Value pred, CacheModifier, EvictionPolicy) const override {
    unsigned bytes = elementBytes(value.getType());
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      LLVM::MaskedStoreOp::create(b, loc, value, ptr,
                                  splat(b, loc, pred, vector.getNumElements()),
                                  b.getI32IntegerAttr(bytes));
    else
      LLVM::StoreOp::create(b, loc, value, orSink(b, loc, ptr, pred), bytes);
  }
  StringRef syncScope(MemScope) const override { return ""; }
  // libc's printf, on the program's thread (the driver flushes stdout after
  // each launch).
  void printf(OpBuilder &b, Location loc, StringRef format,
              ValueRange args) const override {
    auto function = declareFunction(
        b, enclosingModule(b), "printf",
        LLVM::LLVMFunctionType::get(
            b.getI32Type(), {LLVM::LLVMPointerType::get(b.getContext())},
            /*isVarArg=*/true));
    SmallVector<Value> operands{stringConstant(b, loc, format)};
    llvm::append_range(operands, args);
    LLVM::CallOp::create(b, loc, function, operands);
  }
  void assertFail(OpBuilder &b, Location loc, StringRef message, StringRef file,
                  unsigned line, StringRef function) const override {
    callRuntime(b, loc, "tessera_cpu_assert_fail",
                LLVM::LLVMVoidType::get(b.getContext()),
                {stringConstant(b, loc, message), stringConstant(b, loc, file),
                 i32Constant(b, loc, line), stringConstant(b, loc, function)});
  }
  void populateMathPatterns(LLVMTypeConverter &,
                            RewritePatternSet &patterns) const override {
    // libm's functions, called (before LLVM's intrinsics, which lack
    // some), but for fma and rsqrt.
    patterns.add<RsqrtAsDivision, FmaAsIntrinsic>(patterns.getContext(),
                                                  /*benefit=*/3);
    populateMathToLibmConversionPatterns(patterns, /*benefit=*/2);
  }
  void markKernel(LLVM::LLVMFuncOp func, unsigned) const override {
    func.setLinkage(LLVM::Linkage::External);
  }
};

/// The features of `target`'s CPU: the host's where it is the host's.
std::string featuresOf(const Target &target) {
  std::string features;
  if (target.arch == llvm::sys::getHostCPUName())
    for (const auto &[feature, on] : llvm::sys::getHostCPUFeatures())
      features +=
          (features.empty() ? "" : ",") + ((on ? "+" : "-") + feature).str();
  return features;
}

/// The host's target machine for `cpu` (PIC, for ORC's linker).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createMachine(const Target &target, const CompileOptions &options) {
  initializeHostTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *host = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!host)
    return cpuError("no code generator for " + triple.str() + ": " + error);
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion = options.enableFpFusion
                                      ? llvm::FPOpFusion::Fast
                                      : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(host->createTargetMachine(
      triple, target.arch, featuresOf(target), targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// Makes the lowered kernel callable by the driver: its shared memory is
/// the running thread's buffer (tessera_cpu_shared), and it is called
/// through `<name>(void **args)`, renamed `<name>.body` itself.
llvm::Error wrapKernel(llvm::Module &module) {
  llvm::Function *kernel = nullptr;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.hasExternalLinkage()) {
      if (kernel)
        return cpuError("a module holds one kernel");
      kernel = &f;
    }
  if (!kernel)
    return cpuError("the module has no kernel");
  llvm::LLVMContext &context = module.getContext();
  auto *ptr = llvm::PointerType::get(context, 0);
  if (llvm::GlobalVariable *shared =
          module.getGlobalVariable("tessera_shared")) {
    if (!shared->use_empty()) {
      llvm::convertUsersOfConstantsToInstructions(shared);
      llvm::IRBuilder<> b(&*kernel->getEntryBlock().getFirstInsertionPt());
      llvm::Value *buffer = b.CreateCall(module.getOrInsertFunction(
          "tessera_cpu_shared", llvm::FunctionType::get(ptr, false)));
      for (llvm::Use &use : llvm::make_early_inc_range(shared->uses())) {
        auto *user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
        if (!user || user->getFunction() != kernel)
          return cpuError("shared memory is used outside the kernel");
        use.set(buffer);
      }
    }
    shared->eraseFromParent();
  }
  std::string name = kernel->getName().str();
  kernel->setName(name + ".body");
  kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : kernel->args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, entry->getArg(0), param.getArgNo());
    args.push_back(b.CreateLoad(param.getType(), b.CreateLoad(ptr, slot)));
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
  return llvm::Error::success();
}

/// Readies the optimised module of a kernel for x86's code generator. A
/// lowered tile is one long block, and in places the vectoriser's and the
/// code generator's time grows with the square of a block's length (the
/// machine combiner took 146 s of a 1024-element Philox kernel):
/// - Blocks are cut after every `kInstructionsPerBlock` instructions. The
///   pieces' addresses are taken (a table no one reads) so that the code
///   generator's preparation does not join them again.
/// - The SLP vectoriser, which the O3 pipeline leaves out, runs on the
///   pieces: a tile's elementwise ops become vectors between its vector
///   loads and stores (a 64x64 copy's 8192 extracts and inserts: 1.5 s to
///   compile).
/// - For each vector load, instruction selection looks at every other access
///   on its chain (70 s for the block of a 64x64x64 dot's operands). An
///   empty asm that clobbers memory, before every `kAccessesPerChain`-th
///   access, starts a new chain; it emits nothing, and only keeps the code
///   generator from moving accesses across it.
constexpr unsigned kInstructionsPerBlock = 2048;
constexpr unsigned kAccessesPerChain = 128;

void cutLongBlocks(llvm::Function &function) {
  llvm::SmallVector<llvm::Constant *> pieces;
  llvm::SmallVector<llvm::BasicBlock *> work;
  for (llvm::BasicBlock &block : function)
    work.push_back(&block);
  while (!work.empty()) {
    llvm::BasicBlock *block = work.pop_back_val();
    if (block->size() <= kInstructionsPerBlock)
      continue;
    auto cut = block->getFirstNonPHIIt();
    for (unsigned i = 0; i < kInstructionsPerBlock && cut != block->end(); ++i)
      ++cut;
    if (cut == block->end() || cut->isTerminator())
      continue;
    llvm::BasicBlock *rest = block->splitBasicBlock(cut);
    pieces.push_back(llvm::BlockAddress::get(&function, rest));
    work.push_back(rest);
  }
  if (pieces.empty())
    return;
  auto *type = llvm::ArrayType::get(pieces.front()->getType(), pieces.size());
  new llvm::GlobalVariable(*function.getParent(), type, /*isConstant=*/true,
                           llvm::GlobalValue::InternalLinkage,
                           llvm::ConstantArray::get(type, pieces),
                           function.getName() + ".pieces");
}

void prepareForCodegen(llvm::Module &module, llvm::TargetMachine &machine) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      cutLongBlocks(function);
  // Pipelines given as constants parse.
  cantFail(runPassPipeline(
      module, machine,
      "function(slp-vectorizer,instcombine<no-verify-fixpoint>,dce)"));
  auto *fence = llvm::InlineAsm::get(
      llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()),
                              false),
      "", "~{memory}", /*hasSideEffects=*/true);
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function) {
      unsigned accesses = 0;
      for (llvm::Instruction &inst : llvm::make_early_inc_range(block))
        if ((llvm::isa<llvm::LoadInst, llvm::StoreInst>(inst)) &&
            ++accesses % kAccessesPerChain == 0)
          llvm::CallInst::Create(fence, {}, "", inst.getIterator());
    }
}

class CpuBackend : public Backend {
public:
  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef assemblyKind() const override { return "asm"; }
  llvm::StringRef binaryKind() const override { return "obj"; }

  llvm::Expected<Target> parseTarget(llvm::StringRef arch) const override {
    Target target;
    target.backend = "cpu";
    target.arch =
        arch == "native" ? llvm::sys::getHostCPUName().str() : arch.str();
    target.warpSize = 1;
    return target;
  }

  CompileOptions adaptOptions(const Target &target,
                              CompileOptions options) const override {
    // One thread a program; nothing to pipeline or to copy in bulk.
    options = adaptCommonOptions(target, options, /*amdOptions=*/false);
    options.numWarps = 1;
    options.numStages = 1;
    options.bulkCopies = false;
    options.mmaV3 = false;
    return options;
  }

  int64_t sharedMemoryBytes(const Target &) const override { return 1 << 20; }

  llvm::Error assignLayouts(Operation *module, const Target &target,
                            const CompileOptions &options) const override {
    LayoutStage stage;
    stage.numWarps = options.numWarps;
    stage.warpSize = target.warpSize;
    stage.sharedBytes = sharedMemoryBytes(target);
    stage.asyncCopies = false;
    stage.fmaDots = false; // CpuDots.cpp loops over them whole
    // Its constraints and text are a GPU's ("=f" is x87's stack here).
    WalkResult assembly = module->walk([](InlineAsmOp op) {
      op.emitError("the cpu backend does not take inline assembly");
      return WalkResult::interrupt();
    });
    if (assembly.wasInterrupted())
      return cpuError("the kernel has inline assembly");
    if (failed(runLayoutStage(cast<ModuleOp>(module), stage)))
      return cpuError("layout assignment failed");
    if (failed(keepLoopCarriedTilesInMemory(cast<ModuleOp>(module))))
      return cpuError("cannot keep the loops' tiles in memory");
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(Operation *op, llvm::LLVMContext &context, const Target &target,
        const CompileOptions &options) const override {
    auto module = cast<ModuleOp>(op);
    if (failed(lowerToLLVM(module, CpuTargetInfo())))
      return cpuError("lowering to the LLVM dialect failed");
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    auto llvmModule = translateForTarget(module, context, **machine,
                                         [](DialectRegistry &) {});
    if (!llvmModule)
      return llvmModule.takeError();
    if (llvm::Error error = wrapKernel(**llvmModule))
      return std::move(error);
    return llvmModule;
  }

  llvm::Expected<std::string>
  emitAssembly(llvm::Module &module, const Target &target,
               const CompileOptions &options) const override {
    auto machine = createMachine(target, options);
    if (!machine)
      return machine.takeError();
    return emitTargetAssembly(module, **machine, [&](llvm::Module &module) {
      prepareForCodegen(module, **machine);
    });
  }

  llvm::Expected<std::string> assemble(llvm::StringRef assembly,
                                       const Target &target) const override {
    return assembleObject(assembly, llvm::sys::getProcessTriple(), target.arch,
                          featuresOf(target));
  }
};

} // namespace

void initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

/// The driver of the "cpu" platform (CpuDriver.cpp).
void registerCpuDriver();

TESSERA_BACKEND_PLUGIN() {
  registerBackend(std::make_unique<CpuBackend>());
  registerCpuDriver();
}
