//===- AttentionSimulationTest.cpp - a pipelined attention loop, on the host //
//
// First, the LaneSimulator's check that nothing reads a wgmma's results
// before a wgmma.wait_group retires their group, on hand-written kernels:
// waits strong enough or too weak, none, results chained into a later
// wgmma's accumulator, a wait that retires one group of two, and results
// passed through phis and aggregates.
//
// Then flash attention's forward loop (Triton's tutorial 06: one block of
// M queries, keys and values in blocks of BN, online softmax in base 2, kᵀ
// by tile.trans, acc / l at the end) compiled as tessera-compile compiles
// it and run lane by lane: on sm_90a over 2 to 4 stages, where both dots
// of the loop are asynchronous wgmma, and on sm_80; and with one block of
// keys and values loaded before the loop for every iteration, where p v
// runs deferred to the next iteration. Trip counts cover the
// pipeline's prologue, steady state and iterations past the end, and fewer
// iterations than stages; rows past the keys hold NaNs that must never be
// read. The output must match a host reference of the same recurrence
// within f16's rounding of p, with the simulator's checks of in-flight
// copies, of buffers overwritten while a wgmma reads them, and of results
// read before their wait all on; with a wait of the loop removed, the
// last must fail.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

using tessera::test::compileToLLVM;
using tessera::test::countAsm;
using tessera::test::expandExp2;
using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::parseKernelModule;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

//===----------------------------------------------------------------------===//
// Reading wgmma results, on hand-written kernels
//===----------------------------------------------------------------------===//

/// @kernel(out) on one warpgroup: fills shared memory with f16 ones, issues
/// one wgmma (m64n8k16, A and B through the same descriptor, C zero:
/// each result 16) and commits it; then BODY, which computes %r, each
/// thread's value to store.
constexpr const char *kResultKernel = R"(
@smem = external addrspace(3) global [0 x i8], align 1024

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare void @llvm.nvvm.wgmma.fence.sync.aligned()
declare void @llvm.nvvm.wgmma.commit_group.sync.aligned()

define void @kernel(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = mul i32 %tid, 8
  br label %fill

fill:
  %i = phi i32 [ 0, %entry ], [ %next, %fill ]
  %index = add i32 %first, %i
  %at = getelementptr i64, ptr addrspace(3) @smem, i32 %index
  store i64 4323521613979991040, ptr addrspace(3) %at
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, 8
  br i1 %more, label %fill, label %issue

issue:
  call void @llvm.nvvm.barrier0()
  %base = ptrtoint ptr addrspace(3) @smem to i64
  %field = lshr i64 %base, 4
  %start = and i64 %field, 16383
  %desc = or i64 %start, 4611686293305294848
  call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %d = call { float, float, float, float } asm sideeffect "{\0A.reg .pred p;\0Asetp.ne.b32 p, $6, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,l,l,r,0,1,2,3"(i64 %desc, i64 %desc, i32 1, float 0.0, float 0.0, float 0.0, float 0.0)
  %d0 = extractvalue { float, float, float, float } %d, 0
  %d1 = extractvalue { float, float, float, float } %d, 1
  %d2 = extractvalue { float, float, float, float } %d, 2
  %d3 = extractvalue { float, float, float, float } %d, 3
  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
BODY
  %to = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %r, ptr addrspace(1) %to
  ret void
}
)";

/// A wait for all but PENDING groups, passing on X0 ... X3 as %w0 ... %w3.
constexpr const char *kWait = R"(
  %w = call { float, float, float, float } asm sideeffect "wgmma.wait_group.sync.aligned PENDING;", "=f,=f,=f,=f,0,1,2,3"(float X0, float X1, float X2, float X3)
  %w0 = extractvalue { float, float, float, float } %w, 0
  %w1 = extractvalue { float, float, float, float } %w, 1
  %w2 = extractvalue { float, float, float, float } %w, 2
  %w3 = extractvalue { float, float, float, float } %w, 3
)";

/// %r = %w0 + ... + %w3.
constexpr const char *kSum = R"(
  %s0 = fadd float %w0, %w1
  %s1 = fadd float %w2, %w3
  %r = fadd float %s0, %s1
)";

/// A second wgmma, accumulating into ACC0 ... ACC3 where P is 1, committed:
/// %e0 ... %e3.
constexpr const char *kSecondWgmma = R"(
  %e = call { float, float, float, float } asm sideeffect "{\0A.reg .pred p;\0Asetp.ne.b32 p, $6, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,l,l,r,0,1,2,3"(i64 %desc, i64 %desc, i32 P, float ACC0, float ACC1, float ACC2, float ACC3)
  %e0 = extractvalue { float, float, float, float } %e, 0
  %e1 = extractvalue { float, float, float, float } %e, 1
  %e2 = extractvalue { float, float, float, float } %e, 2
  %e3 = extractvalue { float, float, float, float } %e, 3
  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
)";

/// kWait for all but `pending` groups, passing on `x`.
std::string wait(unsigned pending, llvm::ArrayRef<const char *> x) {
  std::string text = replaceAll(kWait, "PENDING", std::to_string(pending));
  for (unsigned i = 0; i < 4; ++i)
    text = replaceAll(text, "X" + std::to_string(i), x[i]);
  return text;
}

/// kSecondWgmma accumulating into the first's results (`chained`) or not.
std::string secondWgmma(bool chained) {
  std::string text = replaceAll(kSecondWgmma, "P", chained ? "1" : "0");
  for (unsigned i = 0; i < 4; ++i)
    text = replaceAll(text, "ACC" + std::to_string(i),
                      chained ? "%d" + std::to_string(i) : "0.0");
  return text;
}

/// One way of reading the results: BODY, and what each thread stores or
/// the instruction where the run fails.
struct ResultRead {
  std::string name, body;
  float stored = 0;
  const char *failsAt = nullptr;
};

void PrintTo(const ResultRead &c, std::ostream *os) { *os << c.name; }

std::vector<ResultRead> resultReads() {
  const char *first[] = {"%d0", "%d1", "%d2", "%d3"};
  const char *chained[] = {"%e0", "%e1", "%e2", "%e3"};
  std::vector<ResultRead> all;
  all.push_back({"WaitedFor", wait(0, first) + kSum, 64});
  all.push_back({"NotWaitedFor",
                 "  %s = fadd float %d0, %d1\n  %r = fadd float %s, 0.0\n", 0,
                 "%s = fadd float %d0, %d1"});
  all.push_back(
      {"WaitTooWeak", wait(1, first) + kSum, 0, "%s0 = fadd float %w0, %w1"});
  // In flight into a later wgmma's accumulator, then waited for.
  all.push_back({"ChainedThenWaitedFor",
                 secondWgmma(true) + wait(0, chained) + kSum, 128});
  // wait_group 1 after two groups retires the first only.
  const char *oneOfEach[] = {"%d0", "%e0", "%d2", "%e2"};
  std::string twoGroups = secondWgmma(false) + wait(1, oneOfEach);
  all.push_back(
      {"OlderGroupRetired", twoGroups + "  %r = fadd float %w0, %w2\n", 32});
  all.push_back(
      {"NewerGroupInFlight", twoGroups + kSum, 0, "%s0 = fadd float %w0, %w1"});
  // Phis pass the results on, in flight.
  const char *phis[] = {"%x0", "%x1", "%x2", "%x3"};
  std::string intoPhis = "  br label %after\nafter:\n";
  for (unsigned i = 0; i < 4; ++i)
    intoPhis += "  %x" + std::to_string(i) + " = phi float [ %d" +
                std::to_string(i) + ", %issue ]\n";
  all.push_back({"ThroughPhisThenRead",
                 intoPhis + "  %r = fadd float %x2, 0.0\n", 0,
                 "%r = fadd float %x2, 0.0"});
  all.push_back(
      {"ThroughPhisThenWaitedFor", intoPhis + wait(0, phis) + kSum, 64});
  // So do aggregates, element by element.
  std::string inserted =
      "  %agg = insertvalue { float, float } poison, float %d0, 1\n";
  all.push_back({"InsertedThenRead",
                 inserted + "  %y = extractvalue { float, float } %agg, 1\n"
                            "  %r = fadd float %y, 0.0\n",
                 0, "%r = fadd float %y, 0.0"});
  all.push_back({"InsertedBesideARead",
                 inserted + "  %z = extractvalue { float, float } %agg, 0\n"
                            "  %r = fadd float %z, 1.0\n",
                 1});
  return all;
}

/// Runs kResultKernel with `body` on one warpgroup, each thread's %r
/// stored to `out`.
llvm::Error runResultKernel(const std::string &body, std::vector<float> &out,
                            Workgroup group = {}) {
  llvm::LLVMContext context;
  auto module =
      parseKernelModule(replaceAll(kResultKernel, "BODY", body), context);
  if (!module)
    return module.takeError();
  group.numThreads = 128;
  LaneSimulator simulator(*(*module)->getFunction("kernel"), group);
  simulator.addBuffer(out.data(), out.size() * sizeof(float));
  return simulator.run({reinterpret_cast<uint64_t>(out.data())});
}

class WgmmaResults : public ::testing::TestWithParam<ResultRead> {};

TEST_P(WgmmaResults, AreReadOnlyOnceWaitedFor) {
  const ResultRead &c = GetParam();
  std::vector<float> out(128, -1);
  llvm::Error error = runResultKernel(c.body, out);
  if (c.failsAt) {
    std::string message = llvm::toString(std::move(error));
    EXPECT_NE(message.find("lane 0: a read of a wgmma's result before "
                           "wgmma.wait_group retires it"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(c.failsAt), std::string::npos) << message;
    return;
  }
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (unsigned t = 0; t < out.size(); ++t)
    ASSERT_EQ(out[t], c.stored) << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(Kernels, WgmmaResults,
                         ::testing::ValuesIn(resultReads()),
                         [](const ::testing::TestParamInfo<ResultRead> &info) {
                           return info.param.name;
                         });

TEST(WgmmaResultsUnchecked, AnEarlyReadSeesTheResult) {
  Workgroup unchecked;
  unchecked.catchEarlyResultReads = false;
  std::vector<float> out(128, -1);
  llvm::Error error =
      runResultKernel("  %s = fadd float %d0, %d1\n  %r = fadd float %s, 0.0\n",
                      out, unchecked);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(out[0], 32.0f);
}

//===----------------------------------------------------------------------===//
// Flash attention's forward loop
//===----------------------------------------------------------------------===//

/// @kernel(Q, K, V, O, N): the block of $M queries (rows of $D f16) at Q
/// attends to N keys and values (rows of $D f16 at K and V; N a multiple
/// of $B), in blocks of $B, as Triton's tutorial 06 does; O ($M x $D f32)
/// = acc / l. qk_scale is 1/sqrt(64) log2(e).
constexpr const char *kAttention = R"mlir(
func.func @kernel(%pq: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pk: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pv: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %po: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %n: i32) {
  %c0 = arith.constant 0 : i32
  %bn = arith.constant $B : i32
  %rm = tile.make_range 0, $M : tensor<$Mxi32>
  %rn = tile.make_range 0, $B : tensor<$Bxi32>
  %rd = tile.make_range 0, $D : tensor<$Dxi32>
  %cols = tile.expand_dims %rd {axis = 0 : i32}
      : tensor<$Dxi32> -> tensor<1x$Dxi32>
  %qm = tile.expand_dims %rm {axis = 1 : i32}
      : tensor<$Mxi32> -> tensor<$Mx1xi32>
  %qw = arith.constant dense<$D> : tensor<$Mx1xi32>
  %qr = arith.muli %qm, %qw : tensor<$Mx1xi32>
  %qrb = tile.broadcast %qr : tensor<$Mx1xi32> -> tensor<$Mx$Dxi32>
  %qcb = tile.broadcast %cols : tensor<1x$Dxi32> -> tensor<$Mx$Dxi32>
  %qoff = arith.addi %qrb, %qcb : tensor<$Mx$Dxi32>
  %qs = tile.splat %pq : tensor<$Mx$Dx!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qoff : tensor<$Mx$Dx!tile.ptr<f16>>, tensor<$Mx$Dxi32>
  %q = tile.load %qp : tensor<$Mx$Dx!tile.ptr<f16>>
  %kn = tile.expand_dims %rn {axis = 1 : i32}
      : tensor<$Bxi32> -> tensor<$Bx1xi32>
  %kw = arith.constant dense<$D> : tensor<$Bx1xi32>
  %kr = arith.muli %kn, %kw : tensor<$Bx1xi32>
  %krb = tile.broadcast %kr : tensor<$Bx1xi32> -> tensor<$Bx$Dxi32>
  %kcb = tile.broadcast %cols : tensor<1x$Dxi32> -> tensor<$Bx$Dxi32>
  %kvoff = arith.addi %krb, %kcb : tensor<$Bx$Dxi32>
  %ks = tile.splat %pk : tensor<$Bx$Dx!tile.ptr<f16>>
  %k0 = tile.addptr %ks, %kvoff
      : tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dxi32>
  %vs = tile.splat %pv : tensor<$Bx$Dx!tile.ptr<f16>>
  %v0 = tile.addptr %vs, %kvoff
      : tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dxi32>
  %step = arith.constant dense<$STEP> : tensor<$Bx$Dxi32>
  %scale = arith.constant dense<$SCALE> : tensor<$Mx$Bxf32>
  %rowScale = arith.constant dense<$SCALE> : tensor<$Mxf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<$Mxf32>
  %l0 = arith.constant dense<1.0> : tensor<$Mxf32>
  %acc0 = arith.constant dense<0.0> : tensor<$Mx$Dxf32>
  %zero = arith.constant dense<0.0> : tensor<$Mx$Bxf32>
  %m, %l, %acc, %kp, %vp = scf.for %start = %c0 to %n step %bn
      iter_args(%m_i = %m0, %l_i = %l0, %acc_i = %acc0,
                %kp_i = %k0, %vp_i = %v0)
      -> (tensor<$Mxf32>, tensor<$Mxf32>, tensor<$Mx$Dxf32>,
          tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dx!tile.ptr<f16>>) : i32 {
    %k = tile.load %kp_i : tensor<$Bx$Dx!tile.ptr<f16>>
    %kt = tile.trans %k {order = array<i32: 1, 0>}
        : tensor<$Bx$Dxf16> -> tensor<$Dx$Bxf16>
    %qk = tile.dot %q, %kt, %zero
        : tensor<$Mx$Dxf16> * tensor<$Dx$Bxf16> -> tensor<$Mx$Bxf32>
    %rowMax = tile.reduce(%qk) axis = 1
        : (tensor<$Mx$Bxf32>) -> tensor<$Mxf32> {
    ^bb0(%x: f32, %y: f32):
      %r = arith.maxnumf %x, %y : f32
      tile.reduce.return %r : f32
    }
    %rowMaxScaled = arith.mulf %rowMax, %rowScale : tensor<$Mxf32>
    %m_ij = arith.maxnumf %m_i, %rowMaxScaled : tensor<$Mxf32>
    %qkScaled = arith.mulf %qk, %scale : tensor<$Mx$Bxf32>
    %m1 = tile.expand_dims %m_ij {axis = 1 : i32}
        : tensor<$Mxf32> -> tensor<$Mx1xf32>
    %mb = tile.broadcast %m1 : tensor<$Mx1xf32> -> tensor<$Mx$Bxf32>
    %centred = arith.subf %qkScaled, %mb : tensor<$Mx$Bxf32>
    %p = math.exp2 %centred : tensor<$Mx$Bxf32>
    %l_ij = tile.reduce(%p) axis = 1 : (tensor<$Mx$Bxf32>) -> tensor<$Mxf32> {
    ^bb0(%x: f32, %y: f32):
      %r = arith.addf %x, %y : f32
      tile.reduce.return %r : f32
    }
    %drop = arith.subf %m_i, %m_ij : tensor<$Mxf32>
    %alpha = math.exp2 %drop : tensor<$Mxf32>
    %lScaled = arith.mulf %l_i, %alpha : tensor<$Mxf32>
    %l_next = arith.addf %lScaled, %l_ij : tensor<$Mxf32>
    %a1 = tile.expand_dims %alpha {axis = 1 : i32}
        : tensor<$Mxf32> -> tensor<$Mx1xf32>
    %ab = tile.broadcast %a1 : tensor<$Mx1xf32> -> tensor<$Mx$Dxf32>
    %accScaled = arith.mulf %acc_i, %ab : tensor<$Mx$Dxf32>
    %v = tile.load %vp_i : tensor<$Bx$Dx!tile.ptr<f16>>
    %p16 = arith.truncf %p : tensor<$Mx$Bxf32> to tensor<$Mx$Bxf16>
    %acc_next = tile.dot %p16, %v, %accScaled
        : tensor<$Mx$Bxf16> * tensor<$Bx$Dxf16> -> tensor<$Mx$Dxf32>
    %kpn = tile.addptr %kp_i, %step
        : tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dxi32>
    %vpn = tile.addptr %vp_i, %step
        : tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dxi32>
    scf.yield %m_ij, %l_next, %acc_next, %kpn, %vpn
        : tensor<$Mxf32>, tensor<$Mxf32>, tensor<$Mx$Dxf32>,
          tensor<$Bx$Dx!tile.ptr<f16>>, tensor<$Bx$Dx!tile.ptr<f16>>
  } {tile.num_stages = $STAGES : i32}
  %l1 = tile.expand_dims %l {axis = 1 : i32}
      : tensor<$Mxf32> -> tensor<$Mx1xf32>
  %lb = tile.broadcast %l1 : tensor<$Mx1xf32> -> tensor<$Mx$Dxf32>
  %o = arith.divf %acc, %lb : tensor<$Mx$Dxf32>
  %os = tile.splat %po : tensor<$Mx$Dx!tile.ptr<f32>>
  %op = tile.addptr %os, %qoff : tensor<$Mx$Dx!tile.ptr<f32>>, tensor<$Mx$Dxi32>
  tile.store %op, %o : tensor<$Mx$Dx!tile.ptr<f32>>
  return
}
)mlir";

/// qk_scale as the kernel's constant holds it (f32).
constexpr float kScale = 0.180336878f;
constexpr const char *kScaleText = "0.180336878";

struct Attention {
  const char *target;
  unsigned m, warps, stages;
  /// The blocks of keys: N = blocks * BN.
  unsigned blocks;
  /// Every block attends to the first block of keys and values, loaded
  /// before the loop: with nothing to copy in the loop, its p v is
  /// deferred to the next iteration.
  bool sameBlock = false;
  static constexpr unsigned d = 64, bn = 64;
};

std::string caseName(const Attention &c) {
  std::string name = std::string(c.target) + "_M" + std::to_string(c.m) + "_" +
                     std::to_string(c.warps) + "warps_stages" +
                     std::to_string(c.stages) + "_" + std::to_string(c.blocks) +
                     "blocks" + (c.sameBlock ? "_sameBlock" : "");
  for (char &ch : name)
    if (!llvm::isAlnum(ch))
      ch = '_';
  return name;
}

void PrintTo(const Attention &c, std::ostream *os) { *os << caseName(c); }

std::string kernelOf(const Attention &c) {
  std::string text = kAttention;
  if (c.sameBlock) {
    const char *loadK =
        "    %k = tile.load %kp_i : tensor<$Bx$Dx!tile.ptr<f16>>\n"
        "    %kt = tile.trans %k {order = array<i32: 1, 0>}\n"
        "        : tensor<$Bx$Dxf16> -> tensor<$Dx$Bxf16>\n";
    const char *loadV =
        "    %v = tile.load %vp_i : tensor<$Bx$Dx!tile.ptr<f16>>\n";
    text = replaceAll(replaceAll(text, loadK, ""), loadV, "");
    text = replaceAll(text, "  %m, %l, %acc",
                      "  %k = tile.load %k0 : tensor<$Bx$Dx!tile.ptr<f16>>\n"
                      "  %kt = tile.trans %k {order = array<i32: 1, 0>}\n"
                      "      : tensor<$Bx$Dxf16> -> tensor<$Dx$Bxf16>\n"
                      "  %v = tile.load %v0 : tensor<$Bx$Dx!tile.ptr<f16>>\n"
                      "  %m, %l, %acc");
  }
  text = replaceAll(text, "$STAGES", std::to_string(c.stages));
  text = replaceAll(text, "$STEP", std::to_string(c.bn * c.d));
  text = replaceAll(text, "$SCALE", kScaleText);
  text = replaceAll(text, "$M", std::to_string(c.m));
  text = replaceAll(text, "$B", std::to_string(c.bn));
  return replaceAll(text, "$D", std::to_string(c.d));
}

/// The pendings of the warpgroup_dot_wait ops in the (one) loop of the
/// tile IR with layouts `ir`, in order.
std::vector<unsigned> loopWaits(llvm::StringRef ir) {
  size_t at = ir.find("scf.for");
  if (at == llvm::StringRef::npos)
    return {};
  // The loop ends at the first '}' indented as its first line.
  size_t lineStart = ir.rfind('\n', at) + 1;
  size_t indent = ir.substr(lineStart).find_first_not_of(' ');
  std::string end = "\n" + std::string(indent, ' ') + "}";
  llvm::StringRef loop = ir.slice(at, ir.find(end, at));
  std::vector<unsigned> pendings;
  for (size_t w = loop.find("warpgroup_dot_wait"); w != llvm::StringRef::npos;
       w = loop.find("warpgroup_dot_wait", w + 1)) {
    llvm::StringRef line = loop.substr(w).split('\n').first;
    llvm::StringRef digits =
        line.split("pendings = ").second.take_while(llvm::isDigit);
    unsigned n = 0;
    digits.getAsInteger(10, n);
    pendings.push_back(n);
  }
  return pendings;
}

/// Calls in `kernel` of intrinsics whose name starts with `prefix`.
unsigned countCalls(const llvm::Function &kernel, llvm::StringRef prefix) {
  unsigned count = 0;
  for (const llvm::Instruction &inst : llvm::instructions(kernel))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
      if (const llvm::Function *callee = call->getCalledFunction())
        count += callee->getName().starts_with(prefix);
  return count;
}

/// Whether `block` lies on a cycle of its function's control flow.
bool inLoop(const llvm::BasicBlock *block) {
  std::vector<const llvm::BasicBlock *> worklist(llvm::succ_begin(block),
                                                 llvm::succ_end(block));
  std::set<const llvm::BasicBlock *> seen;
  while (!worklist.empty()) {
    const llvm::BasicBlock *next = worklist.back();
    worklist.pop_back();
    if (next == block)
      return true;
    if (seen.insert(next).second)
      worklist.insert(worklist.end(), llvm::succ_begin(next),
                      llvm::succ_end(next));
  }
  return false;
}

/// Removes the first wgmma.wait_group of `kernel`'s loop, its results'
/// readers reading its inputs instead; false where there is none.
bool removeFirstLoopWait(llvm::Function &kernel) {
  llvm::CallInst *wait = nullptr;
  for (llvm::Instruction &inst : llvm::instructions(kernel)) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
    auto *assembly =
        call ? llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand())
             : nullptr;
    if (assembly &&
        llvm::StringRef(assembly->getAsmString())
            .contains("wgmma.wait_group") &&
        inLoop(call->getParent())) {
      wait = call;
      break;
    }
  }
  if (!wait || wait->arg_size() == 0)
    return false;
  if (!wait->getType()->isStructTy()) {
    wait->replaceAllUsesWith(wait->getArgOperand(0));
  } else {
    for (llvm::User *user : llvm::make_early_inc_range(wait->users())) {
      auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(user);
      if (!extract)
        return false;
      extract->replaceAllUsesWith(
          wait->getArgOperand(extract->getIndices()[0]));
      extract->eraseFromParent();
    }
  }
  wait->eraseFromParent();
  return true;
}

/// The f16 bits of `value`, rounded to nearest even.
uint16_t toHalf(double value) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.bitcastToAPInt().getZExtValue();
}

/// The value of the f16 `bits`.
double fromHalf(uint16_t bits) {
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

/// Compiles `source` for `c` (compileToLLVM), keeping the tile IR with
/// layouts in `layoutIR`; the LLVM IR's exp2 is expanded for the
/// simulator.
void compileAttention(const Attention &c, const std::string &source,
                      std::string &layoutIR, LoweredKernel &out) {
  compileToLLVM(c.target, source, c.warps, out, c.stages);
  if (::testing::Test::HasFatalFailure())
    return;
  layoutIR = out.tileLayout;
  expandExp2(*out.kernel);
}

/// An attention's tensors: Q, K, V (f16 bits), O.
struct Tensors {
  std::vector<uint16_t> q, k, v;
  std::vector<float> o;
};

/// Random Q, K and V for `c`, a block of NaN rows past the keys and
/// values (copies past the end must not read them); O a sentinel.
Tensors tensorsFor(const Attention &c) {
  Tensors t;
  unsigned n = c.blocks * c.bn;
  std::mt19937 random(std::hash<std::string>()(caseName(c)));
  std::uniform_real_distribution<double> values(-1, 1);
  t.q.resize(c.m * c.d);
  t.k.assign((n + c.bn) * c.d, 0x7e00);
  t.v.assign((n + c.bn) * c.d, 0x7e00);
  for (uint16_t &x : t.q)
    x = toHalf(values(random));
  for (unsigned i = 0; i < n * c.d; ++i) {
    // Keys spread the scores over several units of log2, so that the
    // running maximum moves from block to block.
    t.k[i] = toHalf(3 * values(random));
    t.v[i] = toHalf(values(random));
  }
  t.o.assign(c.m * c.d, -12345.0f);
  return t;
}

/// Runs `compiled` (of `c`) on `t`, one workgroup.
llvm::Error runAttention(const Attention &c, LoweredKernel &compiled,
                         Tensors &t) {
  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = c.warps * compiled.warpSize;
  group.dynamicSharedBytes = compiled.sharedBytes;
  LaneSimulator simulator(*compiled.kernel, group);
  auto address = [&](auto &buffer) {
    simulator.addBuffer(buffer.data(), buffer.size() * sizeof(buffer[0]));
    return reinterpret_cast<uint64_t>(buffer.data());
  };
  return simulator.run({address(t.q), address(t.k), address(t.v), address(t.o),
                        c.blocks * c.bn});
}

/// Compares `t.o` with the same recurrence in doubles, p rounded to f16
/// for p v as the kernel rounds it.
void expectOnlineSoftmax(const Attention &c, const Tensors &t) {
  unsigned mismatches = 0;
  for (unsigned i = 0; i < c.m; ++i) {
    double m = -std::numeric_limits<double>::infinity(), l = 1;
    std::vector<double> acc(c.d), magnitude(c.d);
    for (unsigned b = 0; b < c.blocks; ++b) {
      unsigned block = c.sameBlock ? 0 : b;
      std::vector<double> s(c.bn);
      double top = m;
      for (unsigned j = 0; j < c.bn; ++j) {
        unsigned key = block * c.bn + j;
        for (unsigned x = 0; x < c.d; ++x)
          s[j] += fromHalf(t.q[i * c.d + x]) * fromHalf(t.k[key * c.d + x]);
        s[j] *= kScale;
        top = std::max(top, s[j]);
      }
      double alpha = std::exp2(m - top);
      l *= alpha;
      for (unsigned x = 0; x < c.d; ++x) {
        acc[x] *= alpha;
        magnitude[x] *= alpha;
      }
      for (unsigned j = 0; j < c.bn; ++j) {
        double p = std::exp2(s[j] - top);
        l += p;
        double p16 = fromHalf(toHalf(p));
        for (unsigned x = 0; x < c.d; ++x) {
          double term = p16 * fromHalf(t.v[(block * c.bn + j) * c.d + x]);
          acc[x] += term;
          magnitude[x] += std::abs(term);
        }
      }
      m = top;
    }
    for (unsigned x = 0; x < c.d; ++x) {
      double exact = acc[x] / l;
      // Each p may round to the other f16 neighbour (the kernel's scores
      // and exp2 differ from the host's in the last bits): 2^-10 of each
      // term; and f32's sums and l.
      double tolerance =
          std::ldexp(magnitude[x] / l, -10) + std::ldexp(std::abs(exact), -18);
      float got = t.o[i * c.d + x];
      if (!(std::abs(got - exact) <= tolerance) && ++mismatches <= 10)
        ADD_FAILURE() << "o(" << i << ", " << x << ") = " << got
                      << ", expected " << exact << " within " << tolerance;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

class AttentionSimulation : public ::testing::TestWithParam<Attention> {
protected:
  static void SetUpTestSuite() { mlir::tile::registerBuiltinBackends(); }
};

TEST_P(AttentionSimulation, MatchesTheOnlineSoftmax) {
  const Attention &c = GetParam();
  std::string source = kernelOf(c);
  std::string layoutIR;
  LoweredKernel compiled;
  compileAttention(c, source, layoutIR, compiled);
  if (HasFatalFailure())
    return;
  bool hopper = llvm::StringRef(c.target).ends_with("90");
  EXPECT_EQ(countAsm(*compiled.kernel, "wgmma.mma_async") > 0, hopper);
  // K and V come through cp.async, waited for in groups.
  if (!c.sameBlock)
    EXPECT_GT(countCalls(*compiled.kernel, "llvm.nvvm.cp.async.wait.group"),
              0u);
  Tensors t = tensorsFor(c);
  llvm::Error error = runAttention(c, compiled, t);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error)) << "\n"
                            << source;
  expectOnlineSoftmax(c, t);
}

std::vector<Attention> cases() {
  return {
      // Prologue, steady state and iterations past the end; one and two
      // warpgroups.
      {"cuda:90", 64, 4, 3, 5},
      {"cuda:90", 64, 4, 4, 4},
      {"cuda:90", 64, 4, 2, 4},
      {"cuda:90", 128, 8, 3, 4},
      // Fewer iterations than stages.
      {"cuda:90", 64, 4, 4, 2},
      {"cuda:90", 64, 4, 3, 1},
      // p v deferred to the next iteration: the loop runs not at all,
      // once (the first q kᵀ before it, the last p v after it), twice,
      // five times; one and two warpgroups.
      {"cuda:90", 64, 4, 3, 0, true},
      {"cuda:90", 64, 4, 3, 1, true},
      {"cuda:90", 64, 4, 3, 2, true},
      {"cuda:90", 64, 4, 3, 5, true},
      {"cuda:90", 128, 8, 3, 3, true},
      // mma.sync.
      {"cuda:80", 64, 4, 3, 4},
  };
}

INSTANTIATE_TEST_SUITE_P(Loops, AttentionSimulation,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Attention> &info) {
                           return caseName(info.param);
                         });

/// Both dots of the loop start asynchronously and are waited for within
/// the iteration (nothing crosses the back edge in flight): q kᵀ before
/// the softmax reads it, p v before the loop goes round. With p v
/// deferred, the loop starts the next q kᵀ, then the previous p v, and
/// reads the first while the second computes: it waits for all but one
/// dot there.
TEST(AttentionLayout, WaitsForBothDotsInTheIteration) {
  mlir::tile::registerBuiltinBackends();
  for (bool sameBlock : {false, true})
    for (unsigned stages : {2u, 3u, 4u}) {
      Attention c{"cuda:90", 64, 4, stages, 4, sameBlock};
      std::string layoutIR;
      LoweredKernel compiled;
      compileAttention(c, kernelOf(c), layoutIR, compiled);
      if (HasFatalFailure())
        return;
      std::vector<unsigned> expected = {sameBlock ? 1u : 0u, 0u};
      EXPECT_EQ(loopWaits(layoutIR), expected) << caseName(c) << "\n"
                                               << layoutIR;
    }
}

/// The first wait of the loop removed: a result is read in flight.
TEST(AttentionSimulationEdited, AMissingWaitReadsAResultInFlight) {
  mlir::tile::registerBuiltinBackends();
  for (bool sameBlock : {false, true}) {
    Attention c{"cuda:90", 64, 4, 3, 3, sameBlock};
    std::string layoutIR;
    LoweredKernel compiled;
    compileAttention(c, kernelOf(c), layoutIR, compiled);
    if (HasFatalFailure())
      return;
    ASSERT_TRUE(removeFirstLoopWait(*compiled.kernel));
    Tensors t = tensorsFor(c);
    std::string message = llvm::toString(runAttention(c, compiled, t));
    EXPECT_NE(message.find("a read of a wgmma's result before "
                           "wgmma.wait_group retires it"),
              std::string::npos)
        << caseName(c) << ": " << message;
  }
}

} // namespace
