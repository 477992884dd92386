//===- BackendTest.cpp - backend registry, NVIDIA targets, PTX and cubin --===//

#include "backends/Backend.h"
#include "runtime/Driver.h"
#include "test/unit/GpuTestUtil.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

class BackendTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { registerBuiltinBackends(); }
};

std::string errorOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}

/// The sm_90a PTX of the LLVM IR `text`; "" after a failure it reports.
std::string sm90aPtxOf(const char *text) {
  Backend *nvidia = lookupBackend("nvidia");
  if (!nvidia) {
    ADD_FAILURE() << "no nvidia backend";
    return "";
  }
  llvm::LLVMContext context;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, diag, context);
  if (!module) {
    ADD_FAILURE() << diag.getMessage().str();
    return "";
  }
  llvm::Expected<std::string> ptx = nvidia->emitAssembly(
      *module, *nvidia->parseTarget("sm_90a"), CompileOptions());
  if (!ptx) {
    ADD_FAILURE() << errorOf(ptx.takeError());
    return "";
  }
  return *ptx;
}

TEST_F(BackendTest, ResolvesNvidiaTargets) {
  for (auto [spec, arch] :
       {std::pair("cuda:90", "sm_90a"), std::pair("cuda:sm_90a", "sm_90a"),
        std::pair("sm_80", "sm_80"), std::pair("cuda:89", "sm_89"),
        std::pair("sm_86", "sm_86")}) {
    auto resolved = resolveTarget(spec);
    ASSERT_TRUE(bool(resolved))
        << spec << ": " << errorOf(resolved.takeError());
    EXPECT_EQ(resolved->first->name(), "nvidia");
    EXPECT_EQ(resolved->second.arch, arch) << spec;
    EXPECT_EQ(resolved->second.warpSize, 32u);
  }
}

TEST_F(BackendTest, RejectsUnknownTargetsClearly) {
  EXPECT_EQ(errorOf(resolveTarget("cuda:75").takeError()),
            "unsupported NVIDIA target '75': expected sm_80, sm_86, sm_87, "
            "sm_89, sm_90 or sm_90a (or 80 ... 90)");
  EXPECT_EQ(errorOf(resolveTarget("sm_80a").takeError()),
            "unsupported NVIDIA target 'sm_80a': expected sm_80, sm_86, "
            "sm_87, sm_89, sm_90 or sm_90a (or 80 ... 90)");
  EXPECT_EQ(errorOf(resolveTarget("tpu:v5").takeError()),
            "unknown target 'tpu:v5': expected cuda:<arch> (cuda:90, "
            "cuda:sm_90a), hip:<arch> (hip:gfx942), sm_<N>, gfx<N> or "
            "<backend>:<arch> for a backend a plugin registers");
  // A registered backend's name is a target prefix too.
  auto named = resolveTarget("amd:gfx942");
  ASSERT_TRUE(bool(named)) << errorOf(named.takeError());
  EXPECT_EQ(named->first->name(), "amd");
  EXPECT_EQ(named->second.arch, "gfx942");
  EXPECT_EQ(errorOf(resolveTarget("hip:gfx803").takeError()),
            "unsupported AMD target 'gfx803': expected gfx90a, gfx942, "
            "gfx950 (64-lane wavefronts), gfx1100 or gfx1200 (32-lane)");
}

TEST_F(BackendTest, AmdTargetsTakeTheirWavefrontSize) {
  for (auto [spec, lanes] :
       {std::pair("hip:gfx90a", 64u), std::pair("hip:gfx942", 64u),
        std::pair("gfx950", 64u), std::pair("hip:gfx1100", 32u),
        std::pair("gfx1200", 32u)}) {
    auto resolved = resolveTarget(spec);
    ASSERT_TRUE(bool(resolved))
        << spec << ": " << errorOf(resolved.takeError());
    EXPECT_EQ(resolved->first->name(), "amd");
    EXPECT_EQ(resolved->second.warpSize, lanes) << spec;
  }
}

/// z[i] = x[i] + y[i], as lowering would emit it.
constexpr const char *kVectorAddIR = R"ll(
define ptx_kernel void @add(ptr addrspace(1) %x, ptr addrspace(1) %y,
                            ptr addrspace(1) %z, i32 %n) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, 128
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %px = getelementptr float, ptr addrspace(1) %x, i32 %i
  %py = getelementptr float, ptr addrspace(1) %y, i32 %i
  %pz = getelementptr float, ptr addrspace(1) %z, i32 %i
  %a = load float, ptr addrspace(1) %px
  %b = load float, ptr addrspace(1) %py
  %s = fadd float %a, %b
  store float %s, ptr addrspace(1) %pz
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
)ll";

// Products (a + i) * b of one block: straight-line strength reduction would
// rewrite the second and third as the first plus 2b.
const char *kStridedProductsIR = R"ll(
define ptx_kernel void @products(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %a1 = add nsw i32 %a, 2
  %a2 = add nsw i32 %a, 4
  %m0 = mul nsw i32 %a, %b
  %m1 = mul nsw i32 %a1, %b
  %m2 = mul nsw i32 %a2, %b
  store volatile i32 %m0, ptr addrspace(1) %p
  store volatile i32 %m1, ptr addrspace(1) %p
  store volatile i32 %m2, ptr addrspace(1) %p
  ret void
}
)ll";

// The code generators skip straight-line strength reduction, whose time
// grows with the square of a block's length (lowered tiles are long blocks).
TEST_F(BackendTest, CodeGenerationSkipsStraightLineStrengthReduction) {
  std::string ptx = sm90aPtxOf(kStridedProductsIR);
  ASSERT_FALSE(ptx.empty());
  size_t multiplies = 0;
  for (size_t at = ptx.find("mul.lo.s32"); at != std::string::npos;
       at = ptx.find("mul.lo.s32", at + 1))
    ++multiplies;
  EXPECT_EQ(multiplies, 3u) << ptx;
}

TEST_F(BackendTest, EmitsPtxAndCubinThatRun) {
  std::string ptx = sm90aPtxOf(kVectorAddIR);
  ASSERT_FALSE(ptx.empty());
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".visible .entry add("), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ld.global.b32"), std::string::npos) << ptx;

  Backend *nvidia = lookupBackend("nvidia");
  Target target = *nvidia->parseTarget("sm_90a");
  llvm::Expected<std::string> cubin = nvidia->assemble(ptx, target);
  if (!cubin) {
    std::string why = errorOf(cubin.takeError());
    if (why.find("ptxas was not found") != std::string::npos)
      GTEST_SKIP() << why;
    FAIL() << why;
  }
  EXPECT_EQ(cubin->substr(0, 4), "\x7f"
                                 "ELF");

  // Where a GPU exists, the cubin runs.
  runtime::Driver *driver = nullptr;
  try {
    driver = &runtime::Driver::cuda();
  } catch (const runtime::DriverError &e) {
    GTEST_SKIP() << e.what();
  }
  auto loaded = driver->loadModule(*cubin);
  test::expectVectorAddRuns(*driver, *loaded->kernel("add"), 128, 1000);
}

TEST_F(BackendTest, AssemblerErrorsCarryTheLog) {
  Backend *nvidia = lookupBackend("nvidia");
  Target target = *nvidia->parseTarget("sm_90");
  auto assemble = [&](const char *assembler) {
    setenv("TESSERA_ASSEMBLER", assembler, 1);
    llvm::Expected<std::string> cubin =
        nvidia->assemble(".version 8.4\n.target sm_90a\n.address_size 64\n"
                         "this is not ptx\n",
                         target);
    unsetenv("TESSERA_ASSEMBLER");
    EXPECT_FALSE(bool(cubin));
    return cubin ? std::string() : errorOf(cubin.takeError());
  };
  for (const char *assembler : {"ptxas", "nvjitlink"}) {
    std::string why = assemble(assembler);
    if (why.find("not found") != std::string::npos)
      continue; // this machine lacks that assembler
    EXPECT_NE(why.find(std::string(assembler) == "ptxas" ? "ptxas failed"
                                                         : "nvJitLink failed"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("syntax error"), std::string::npos) << why;
  }
  EXPECT_NE(assemble("nvcc").find("TESSERA_ASSEMBLER is 'nvcc'"),
            std::string::npos);
}

} // namespace
