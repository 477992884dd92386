//===- MmaSimulationTest.cpp - tile.dot on the tensor cores, run on the host //
//
// Matmul kernels written in tile IR are compiled for sm_80 and sm_89 by the
// NVIDIA backend (tile-nvidia-assign-mma, then mma.sync), for sm_90a
// (warpgroup dots, wgmma reading NVMMA-swizzled shared memory), and by the
// AMD backend for CDNA (MFMA) and RDNA (WMMA), and one workgroup of each
// runs lane by lane on the host (LaneSimulator). The lowered IR must hold
// the matrix intrinsic of the input type, so that a dot left on the CUDA
// cores cannot pass, and the results must equal a host matmul: exactly for
// int8, within a stated bound for the float types. Cases cover each input
// type, shapes and warp counts, both storage orders of each operand, masked
// edges, an accumulator read in (f32, i32 that wraps, f16), a batched dot,
// and attention (softmax(q kᵀ) v); dots on the CUDA cores are checked too.
//
//===----------------------------------------------------------------------===//

#include "test/unit/KernelLowering.h"
#include "test/unit/LaneSimulator.h"

#include "backends/Backend.h"
#include "ir/Tile/KernelDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace mlir::tile;
using tessera::test::expandExp2;
using tessera::test::LaneSimulator;
using tessera::test::LoweredKernel;
using tessera::test::lowerKernel;
using tessera::test::replaceAll;
using tessera::test::Workgroup;

namespace {

//===----------------------------------------------------------------------===//
// Element types: their tile IR names, bits and values
//===----------------------------------------------------------------------===//

/// E4M3FNUZ and E5M2FNUZ: AMD's FNUZ fp8 (Triton's fp8e4b8, fp8e5b16).
enum class Elem { F16, BF16, F32, I8, E4M3, E5M2, E4M3FNUZ, E5M2FNUZ, I32 };

const char *mlirName(Elem type) {
  switch (type) {
  case Elem::F16:
    return "f16";
  case Elem::BF16:
    return "bf16";
  case Elem::F32:
    return "f32";
  case Elem::I8:
    return "i8";
  case Elem::E4M3:
    return "f8E4M3FN";
  case Elem::E5M2:
    return "f8E5M2";
  case Elem::E4M3FNUZ:
    return "f8E4M3FNUZ";
  case Elem::E5M2FNUZ:
    return "f8E5M2FNUZ";
  case Elem::I32:
    return "i32";
  }
  return "";
}

bool isInteger(Elem type) { return type == Elem::I8 || type == Elem::I32; }

unsigned bytesOf(Elem type) {
  switch (type) {
  case Elem::F16:
  case Elem::BF16:
    return 2;
  case Elem::F32:
  case Elem::I32:
    return 4;
  default:
    return 1;
  }
}

const llvm::fltSemantics &semanticsOf(Elem type) {
  switch (type) {
  case Elem::F16:
    return llvm::APFloat::IEEEhalf();
  case Elem::BF16:
    return llvm::APFloat::BFloat();
  case Elem::E4M3:
    return llvm::APFloat::Float8E4M3FN();
  case Elem::E5M2:
    return llvm::APFloat::Float8E5M2();
  case Elem::E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case Elem::E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

/// The value `bits` (the low bytesOf(type) bytes) encode.
double decode(Elem type, uint64_t bits) {
  if (type == Elem::I8)
    return int8_t(bits);
  if (type == Elem::I32)
    return int32_t(bits);
  llvm::APFloat value(semanticsOf(type), llvm::APInt(8 * bytesOf(type), bits));
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

/// `value` rounded to the nearest of `type` (a float type), as bits.
uint64_t encode(Elem type, double value) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.bitcastToAPInt().getZExtValue();
}

/// What masked-off elements hold in memory: a NaN where there is one, so
/// that reading them shows in every sum they reach.
uint64_t poisonBits(Elem type) {
  switch (type) {
  case Elem::F16:
    return 0x7e00;
  case Elem::BF16:
    return 0x7fc0;
  case Elem::F32:
    return 0x7fc00000;
  case Elem::E4M3:
  case Elem::E5M2:
    return 0x7f;
  case Elem::E4M3FNUZ:
  case Elem::E5M2FNUZ:
    return 0x80;
  case Elem::I8:
    return 0x7f;
  case Elem::I32:
    return 0x5a5a5a5a;
  }
  return 0;
}

/// A random finite element of `type`: integers over their whole range,
/// fp8 over every finite code, the wider floats uniform in [-2, 2] at
/// full precision.
uint64_t randomBits(Elem type, std::mt19937 &random) {
  switch (type) {
  case Elem::I8:
    return std::uniform_int_distribution<int>(0, 255)(random);
  case Elem::I32:
    return std::uniform_int_distribution<uint32_t>()(random);
  case Elem::E4M3:
  case Elem::E5M2: {
    std::uniform_int_distribution<int> codes(0, 255);
    for (;;) {
      int code = codes(random);
      int magnitude = code & 0x7f;
      // e4m3fn: 0x7f is NaN; e5m2: exponent 31 is infinity or NaN.
      if (type == Elem::E4M3 ? magnitude != 0x7f : magnitude < 0x7c)
        return code;
    }
  }
  case Elem::E4M3FNUZ:
  case Elem::E5M2FNUZ: {
    // Every code but 0x80 (NaN) is finite.
    int code = std::uniform_int_distribution<int>(0, 254)(random);
    return code < 0x80 ? code : code + 1;
  }
  default:
    return encode(type, std::uniform_real_distribution<double>(-2, 2)(random));
  }
}

/// Bits of an f32 with the 13 mantissa bits tf32 drops cleared.
uint64_t toTf32(uint64_t bits) { return bits & 0xffffe000u; }

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

enum class Precision { Default, Tf32, Tf32x3 };

/// One matmul kernel and how it runs: D = A * B (+ C), with an optional
/// leading batch dimension.
struct Matmul {
  const char *target;
  Elem a, b, acc;
  Precision precision;
  unsigned batch, m, n, k, warps;
  /// A stored M-contiguous (its transpose is row-major), B K-contiguous.
  bool aByColumns = false, bByColumns = false;
  /// Rows and columns beyond runtime bounds are masked off: loads give 0,
  /// stores leave memory alone.
  bool masked = false;
  /// C is read from memory (otherwise zero).
  bool loadC = false;
  /// AMD's kpack option.
  unsigned kpack = 1;
};

std::string caseName(const Matmul &mm) {
  std::string name = mm.target;
  name += std::string("_") + mlirName(mm.a);
  if (mm.b != mm.a)
    name += std::string("x") + mlirName(mm.b);
  if (mm.precision == Precision::Tf32)
    name += "_tf32";
  if (mm.precision == Precision::Tf32x3)
    name += "_tf32x3";
  name += std::string("_to_") + mlirName(mm.acc) + "_";
  if (mm.batch)
    name += std::to_string(mm.batch) + "x";
  name += std::to_string(mm.m) + "x" + std::to_string(mm.n) + "x" +
          std::to_string(mm.k) + "_" + std::to_string(mm.warps) + "warps";
  name += mm.aByColumns ? "_Acols" : "_Arows";
  name += mm.bByColumns ? "_Bcols" : "_Brows";
  if (mm.kpack != 1)
    name += "_kpack" + std::to_string(mm.kpack);
  if (mm.masked)
    name += "_masked";
  if (mm.loadC)
    name += "_withC";
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

void PrintTo(const Matmul &mm, std::ostream *os) { *os << caseName(mm); }

/// The runtime bound of a masked dimension of extent `size`: neither a
/// multiple of an instruction's tile nor of a warp's.
unsigned boundOf(unsigned size) { return size * 3 / 4 - 1; }

std::string shapeText(llvm::ArrayRef<unsigned> shape) {
  std::string text;
  for (unsigned size : shape)
    text += std::to_string(size) + "x";
  return text;
}

std::string zeroOf(Elem type) { return isInteger(type) ? "0" : "0.0"; }

/// How a kernel reaches an operand in memory: element i of each dimension
/// lies `strides` elements apart, from the kernel argument `arg`.
struct Access {
  /// The SSA name prefix, the kernel argument, the element type.
  std::string name, arg;
  Elem type;
  std::vector<unsigned> shape, strides;
  /// The i32 kernel argument bounding each dimension, empty if unbounded.
  std::vector<std::string> bounds;
};

/// Emits `access`'s pointers as `%<name>_q`; returns the mask of its
/// bounded dimensions (empty where none is).
std::string emitPointers(llvm::raw_ostream &os, const Access &access) {
  const std::string &n = access.name;
  unsigned rank = access.shape.size();
  std::string full = shapeText(access.shape);
  std::string offset, mask;
  for (unsigned i = 0; i < rank; ++i) {
    std::string at = n + "_" + std::to_string(i);
    unsigned size = access.shape[i];
    os << "  %" << at << "r = tile.make_range 0, " << size << " : tensor<"
       << size << "xi32>\n";
    // Grow to the tensor's rank, this dimension at position i.
    std::vector<unsigned> shape = {size};
    std::string value = "%" + at + "r";
    for (unsigned j = 0; j < rank; ++j) {
      if (j == i)
        continue;
      std::vector<unsigned> grown = shape;
      grown.insert(grown.begin() + j, 1);
      std::string next = value + "e" + std::to_string(j);
      os << "  " << next << " = tile.expand_dims " << value << " {axis = " << j
         << " : i32} : tensor<" << shapeText(shape) << "i32> -> tensor<"
         << shapeText(grown) << "i32>\n";
      shape = grown;
      value = next;
    }
    std::string part = shapeText(shape);
    os << "  %" << at << "s = arith.constant dense<" << access.strides[i]
       << "> : tensor<" << part << "i32>\n";
    os << "  %" << at << "o = arith.muli " << value << ", %" << at
       << "s : tensor<" << part << "i32>\n";
    os << "  %" << at << "b = tile.broadcast %" << at << "o : tensor<" << part
       << "i32> -> tensor<" << full << "i32>\n";
    if (offset.empty()) {
      offset = "%" + at + "b";
    } else {
      os << "  %" << at << "sum = arith.addi " << offset << ", %" << at
         << "b : tensor<" << full << "i32>\n";
      offset = "%" + at + "sum";
    }
    if (access.bounds.empty() || access.bounds[i].empty())
      continue;
    os << "  %" << at << "l = tile.splat %" << access.bounds[i] << " : tensor<"
       << part << "i32>\n";
    os << "  %" << at << "in = arith.cmpi slt, " << value << ", %" << at
       << "l : tensor<" << part << "i32>\n";
    os << "  %" << at << "inb = tile.broadcast %" << at << "in : tensor<"
       << part << "i1> -> tensor<" << full << "i1>\n";
    if (mask.empty()) {
      mask = "%" + at + "inb";
    } else {
      os << "  %" << at << "and = arith.andi " << mask << ", %" << at
         << "inb : tensor<" << full << "i1>\n";
      mask = "%" + at + "and";
    }
  }
  std::string pointers =
      "tensor<" + full + "!tile.ptr<" + mlirName(access.type) + ">>";
  os << "  %" << n << "_p = tile.splat %" << access.arg << " : " << pointers
     << "\n";
  os << "  %" << n << "_q = tile.addptr %" << n << "_p, " << offset << " : "
     << pointers << ", tensor<" << full << "i32>\n";
  return mask;
}

/// Emits `%<name>` = the load of `access`, masked-off elements 0.
void emitLoad(llvm::raw_ostream &os, const Access &access) {
  std::string mask = emitPointers(os, access);
  const std::string &n = access.name;
  std::string full = shapeText(access.shape);
  if (!mask.empty())
    os << "  %" << n << "_zero = arith.constant dense<" << zeroOf(access.type)
       << "> : tensor<" << full << mlirName(access.type) << ">\n";
  os << "  %" << n << " = tile.load %" << n << "_q";
  if (!mask.empty())
    os << ", " << mask << ", %" << n << "_zero";
  os << " : tensor<" << full << "!tile.ptr<" << mlirName(access.type) << ">>\n";
}

/// The accesses of a matmul's A, B, C and D.
struct MatmulAccesses {
  Access a, b, c, d;
};

MatmulAccesses accessesOf(const Matmul &mm) {
  auto make = [&](std::string name, std::string arg, Elem type, unsigned rows,
                  unsigned cols, bool byColumns, std::string rowBound,
                  std::string colBound) {
    Access access{name, arg, type, {rows, cols}, {}, {}};
    access.strides = byColumns ? std::vector<unsigned>{1, rows}
                               : std::vector<unsigned>{cols, 1};
    if (mm.kpack != 1)
      name += "_kpack" + std::to_string(mm.kpack);
    if (mm.masked)
      access.bounds = {rowBound, colBound};
    if (mm.batch) {
      access.shape.insert(access.shape.begin(), mm.batch);
      access.strides.insert(access.strides.begin(), rows * cols);
      if (mm.kpack != 1)
        name += "_kpack" + std::to_string(mm.kpack);
      if (mm.masked)
        access.bounds.insert(access.bounds.begin(), "");
    }
    return access;
  };
  return {make("a", "pa", mm.a, mm.m, mm.k, mm.aByColumns, "m", "k"),
          make("b", "pb", mm.b, mm.k, mm.n, mm.bByColumns, "k", "n"),
          make("c", "pc", mm.acc, mm.m, mm.n, false, "m", "n"),
          make("d", "pd", mm.acc, mm.m, mm.n, false, "m", "n")};
}

/// The kernel of `mm`: @kernel(A, B, C, D, m, n, k), the bounds used only
/// where masked.
std::string kernelOf(const Matmul &mm) {
  MatmulAccesses io = accessesOf(mm);
  std::string text;
  llvm::raw_string_ostream os(text);
  auto pointer = [](Elem type) {
    return std::string("!tile.ptr<") + mlirName(type) +
           "> {tile.divisibility = 16 : i32}";
  };
  os << "func.func @kernel(%pa: " << pointer(mm.a) << ", %pb: " << pointer(mm.b)
     << ", %pc: " << pointer(mm.acc) << ", %pd: " << pointer(mm.acc)
     << ", %m: i32, %n: i32, %k: i32) {\n";
  emitLoad(os, io.a);
  emitLoad(os, io.b);
  std::string cType =
      "tensor<" + shapeText(io.c.shape) + mlirName(mm.acc) + ">";
  if (mm.loadC)
    emitLoad(os, io.c);
  else
    os << "  %c = arith.constant dense<" << zeroOf(mm.acc) << "> : " << cType
       << "\n";
  os << "  %d = tile.dot %a, %b, %c";
  if (mm.precision == Precision::Tf32)
    os << " precision = tf32";
  if (mm.precision == Precision::Tf32x3)
    os << " precision = tf32x3";
  os << " : tensor<" << shapeText(io.a.shape) << mlirName(mm.a) << "> * tensor<"
     << shapeText(io.b.shape) << mlirName(mm.b) << "> -> " << cType << "\n";
  std::string mask = emitPointers(os, io.d);
  os << "  tile.store %d_q, %d" << (mask.empty() ? "" : ", " + mask)
     << " : tensor<" << shapeText(io.d.shape) << "!tile.ptr<"
     << mlirName(mm.acc) << ">>\n";
  os << "  return\n}\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Compiling and running
//===----------------------------------------------------------------------===//

/// The names of the mma intrinsics `kernel` calls, with how often.
/// The tensor-core instructions of `kernel`: mma.sync intrinsics by name,
/// wgmma (inline PTX) as "wgmma.<D>.<A>.<B>".
std::map<std::string, unsigned> mmaCalls(const llvm::Function &kernel) {
  std::map<std::string, unsigned> calls;
  for (const llvm::Instruction &inst : llvm::instructions(kernel)) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
    if (!call)
      continue;
    if (const llvm::Function *callee = call->getCalledFunction()) {
      if (callee->getName().starts_with("llvm.nvvm.mma.") ||
          callee->getName().starts_with("llvm.amdgcn.mfma.") ||
          callee->getName().starts_with("llvm.amdgcn.wmma."))
        ++calls[callee->getName().str()];
      continue;
    }
    llvm::StringRef text =
        llvm::cast<llvm::InlineAsm>(call->getCalledOperand())->getAsmString();
    size_t at = text.find("wgmma.mma_async.sync.aligned.m64n");
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef form = text.substr(at).split(' ').first;
    // wgmma.mma_async.sync.aligned.m64nNkK.D.A.B -> wgmma.D.A.B
    ++calls["wgmma." + form.split(".m64n").second.split('.').second.str()];
  }
  return calls;
}

std::string describe(const std::map<std::string, unsigned> &calls) {
  std::string text;
  for (auto &[name, count] : calls)
    text += name + " x" + std::to_string(count) + "; ";
  return text.empty() ? "no mma" : text;
}

/// The intrinsic a dot of `mm`'s types must become on its target: fp8
/// before sm_89, and AMD's FNUZ fp8 on NVIDIA, is multiplied as f16.
std::string expectedMma(const Matmul &mm) {
  bool ocp = mm.a == Elem::E4M3 || mm.a == Elem::E5M2;
  bool fnuz = mm.a == Elem::E4M3FNUZ || mm.a == Elem::E5M2FNUZ;
  bool fp8 = ocp || fnuz;
  llvm::StringRef target = mm.target;
  // OCP fp8 as it is on gfx950 and gfx12, FNUZ fp8 on gfx942, widened to
  // f16 elsewhere; names "fp8" (e4m3) and "bf8" (e5m2).
  bool amdFp8 = (ocp && (target == "hip:gfx950" || target == "hip:gfx1200")) ||
                (fnuz && target == "hip:gfx942");
  auto amdName = [](Elem type) {
    return type == Elem::E4M3 || type == Elem::E4M3FNUZ ? "fp8" : "bf8";
  };
  // MFMAs compute B^T A^T (Tessera's MFMA layouts are transposed, as
  // Triton's), B's type first.
  bool mfma = !target.starts_with("hip:gfx1");
  std::string amdType = amdFp8 ? std::string(amdName(mfma ? mm.b : mm.a)) +
                                     "." + amdName(mfma ? mm.a : mm.b)
                        : fp8               ? "f16"
                        : mm.a == Elem::F32 ? "xf32"
                                            : mlirName(mm.a);
  if (target.starts_with("hip:gfx1")) {
    // WMMA, overloaded on its operands: 16 a lane on gfx11, 8 on gfx12
    // (8-bit types packed into i32s).
    bool gfx11 = target.ends_with("1100");
    if (mm.a == Elem::I8)
      return std::string("llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v") +
             (gfx11 ? "4" : "2") + "i32";
    if (amdFp8)
      return "llvm.amdgcn.wmma.f32.16x16x16." + amdType + ".v8f32.v2i32";
    return "llvm.amdgcn.wmma.f32.16x16x16." + amdType + ".v8f32.v" +
           (gfx11 ? "16" : "8") + (amdType == "f16" ? "f16" : "i16");
  }
  if (target.starts_with("hip:")) {
    // 32x32 tiles where M and N allow; K elements a lane: 16-bit types 4
    // (8 on gfx950 where K allows), int8 4 on gfx90a, 8 on gfx942, 16 on
    // gfx950 where K allows, fp8 8, xf32 2.
    unsigned tile = mm.m % 32 == 0 && mm.n % 32 == 0 ? 32 : 16;
    llvm::StringRef chip = target.drop_front(4);
    unsigned kWidth = chip == "gfx950" ? 8 : 4;
    if (mm.a == Elem::I8)
      kWidth = chip == "gfx90a" ? 4 : 8;
    if (chip == "gfx950" && mm.k % (2 * kWidth * 64 / tile) == 0)
      kWidth *= mm.a == Elem::I8 ? 2 : 1;
    if (chip == "gfx950" && mm.a != Elem::I8 && mm.k % (kWidth * 64 / tile))
      kWidth = 4;
    if (mm.a == Elem::F32)
      kWidth = 2;
    if (amdFp8)
      kWidth = 8;
    std::string shape = std::to_string(tile) + "x" + std::to_string(tile) +
                        "x" + std::to_string(kWidth * 64 / tile);
    std::string result = mm.a == Elem::I8 ? "i32." : "f32.";
    return "llvm.amdgcn.mfma." + result + shape +
           (kWidth == 4 ? amdType + (mm.a == Elem::BF16 ? ".1k" : "")
                        : "." + amdType);
  }
  if (llvm::StringRef(mm.target).ends_with("90")) {
    auto ptxName = [](Elem type) -> std::string {
      switch (type) {
      case Elem::F32:
        return "tf32";
      case Elem::I8:
        return "s8";
      case Elem::E4M3:
        return "e4m3";
      case Elem::E5M2:
        return "e5m2";
      default:
        return mlirName(type);
      }
    };
    std::string operands = ptxName(mm.a) + "." + ptxName(mm.b);
    std::string accumulator = mm.a == Elem::I8      ? "s32."
                              : mm.acc == Elem::F16 ? "f16."
                                                    : "f32.";
    return "wgmma." + accumulator + operands;
  }
  bool sm89 = llvm::StringRef(mm.target).ends_with("89");
  // An f16 result of f16 operands accumulates in f16, as Triton's does.
  if (mm.a == Elem::F16 && mm.acc == Elem::F16)
    return "llvm.nvvm.mma.m16n8k16.row.col.f16.f16";
  if (mm.a == Elem::F16 || fnuz || (fp8 && !sm89))
    return "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
  if (mm.a == Elem::BF16)
    return "llvm.nvvm.mma.m16n8k16.row.col.bf16";
  if (mm.a == Elem::F32)
    return "llvm.nvvm.mma.m16n8k8.row.col.tf32";
  if (mm.a == Elem::I8)
    return "llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8";
  return std::string("llvm.nvvm.mma.m16n8k32.row.col.f32.") +
         (mm.a == Elem::E4M3 ? "e4m3." : "e5m2.") +
         (mm.b == Elem::E4M3 ? "e4m3" : "e5m2") + ".f32";
}

/// A tensor in host memory: its elements' bits in the order of `access`'s
/// strides.
struct HostTensor {
  HostTensor(const Access &access) : access(access) {
    size_t count = 1;
    for (unsigned size : access.shape)
      count *= size;
    bytes.assign(count * bytesOf(access.type), 0);
  }
  size_t offset(unsigned batch, unsigned row, unsigned col) const {
    const std::vector<unsigned> &s = access.strides;
    size_t at = 0;
    unsigned rank = s.size();
    if (rank == 3)
      at += size_t(batch) * s[0];
    return at + size_t(row) * s[rank - 2] + size_t(col) * s[rank - 1];
  }
  uint64_t get(unsigned batch, unsigned row, unsigned col) const {
    uint64_t bits = 0;
    unsigned width = bytesOf(access.type);
    std::memcpy(&bits, &bytes[offset(batch, row, col) * width], width);
    return bits;
  }
  void set(unsigned batch, unsigned row, unsigned col, uint64_t bits) {
    unsigned width = bytesOf(access.type);
    std::memcpy(&bytes[offset(batch, row, col) * width], &bits, width);
  }
  uint64_t address() const { return reinterpret_cast<uint64_t>(bytes.data()); }

  Access access;
  std::vector<uint8_t> bytes;
};

//===----------------------------------------------------------------------===//
// Matmuls
//===----------------------------------------------------------------------===//

class MmaSimulation : public ::testing::TestWithParam<Matmul> {
protected:
  static void SetUpTestSuite() { registerBuiltinBackends(); }
};

/// Runs `compiled` (the kernel of `mm`, from `source`) on one workgroup of
/// the lane simulator and compares D with a host matmul.
void simulateMatmul(const Matmul &mm, const LoweredKernel &compiled,
                    const std::string &source) {
  MatmulAccesses io = accessesOf(mm);
  HostTensor a(io.a), b(io.b), c(io.c), d(io.d);
  unsigned batches = std::max(mm.batch, 1u);
  unsigned mBound = mm.masked ? boundOf(mm.m) : mm.m;
  unsigned nBound = mm.masked ? boundOf(mm.n) : mm.n;
  unsigned kBound = mm.masked ? boundOf(mm.k) : mm.k;
  std::mt19937 random(std::hash<std::string>()(caseName(mm)));
  auto fill = [&](HostTensor &t, unsigned rows, unsigned cols,
                  unsigned rowBound, unsigned colBound) {
    for (unsigned z = 0; z < batches; ++z)
      for (unsigned r = 0; r < rows; ++r)
        for (unsigned col = 0; col < cols; ++col)
          t.set(z, r, col,
                r < rowBound && col < colBound
                    ? randomBits(t.access.type, random)
                    : poisonBits(t.access.type));
  };
  fill(a, mm.m, mm.k, mBound, kBound);
  fill(b, mm.k, mm.n, kBound, nBound);
  if (mm.loadC) {
    fill(c, mm.m, mm.n, mBound, nBound);
    // i32: C near either end of the range, so that sums wrap.
    if (mm.acc == Elem::I32) {
      std::uniform_int_distribution<int32_t> near(0, 1 << 12);
      for (unsigned z = 0; z < batches; ++z)
        for (unsigned r = 0; r < mBound; ++r)
          for (unsigned col = 0; col < nBound; ++col)
            c.set(z, r, col,
                  uint32_t((r + col) % 2 ? INT32_MAX - near(random)
                                         : INT32_MIN + near(random)));
    }
  }
  // D starts as a sentinel that masked stores must leave.
  uint64_t sentinel =
      isInteger(mm.acc) ? 0x5a5a5a5au : encode(mm.acc, -12345.0);
  for (unsigned z = 0; z < batches; ++z)
    for (unsigned r = 0; r < mm.m; ++r)
      for (unsigned col = 0; col < mm.n; ++col)
        d.set(z, r, col, sentinel);

  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = mm.warps * compiled.warpSize;
  group.fnuzFp8 = llvm::StringRef(mm.target) == "hip:gfx942";
  LaneSimulator simulator(*compiled.kernel, group);
  for (HostTensor *t : {&a, &b, &c, &d})
    simulator.addBuffer(t->bytes.data(), t->bytes.size());
  llvm::Error error = simulator.run({a.address(), b.address(), c.address(),
                                     d.address(), mBound, nBound, kBound});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  // The values the tensor cores see: tf32 drops 13 mantissa bits.
  auto input = [&](const HostTensor &t, unsigned z, unsigned r, unsigned col) {
    uint64_t bits = t.get(z, r, col);
    if (mm.precision == Precision::Tf32)
      bits = toTf32(bits);
    return decode(t.access.type, bits);
  };
  // mma.sync clamps each instruction's i32 sum (K of 32) to the range;
  // wgmma and AMD's matrix cores wrap.
  bool saturates = mm.acc == Elem::I32 &&
                   llvm::StringRef(mm.target).starts_with("cuda:") &&
                   !llvm::StringRef(mm.target).ends_with("90");
  unsigned mismatches = 0, wrapped = 0;
  for (unsigned z = 0; z < batches; ++z) {
    for (unsigned r = 0; r < mm.m; ++r) {
      for (unsigned col = 0; col < mm.n; ++col) {
        uint64_t got = d.get(z, r, col);
        if (r >= mBound || col >= nBound) {
          if (got != sentinel && ++mismatches <= 10)
            ADD_FAILURE() << "masked-off D(" << z << ", " << r << ", " << col
                          << ") was written";
          continue;
        }
        double cValue = mm.loadC ? decode(mm.acc, c.get(z, r, col)) : 0;
        if (isInteger(mm.acc)) {
          int64_t exact = int64_t(cValue);
          for (unsigned j = 0; j < kBound; ++j) {
            exact += int64_t(input(a, z, r, j)) * int64_t(input(b, z, j, col));
            if (saturates && (j % 32 == 31 || j + 1 == kBound)) {
              int64_t clamped =
                  std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX);
              wrapped += clamped != exact;
              exact = clamped;
            }
          }
          wrapped += exact != int64_t(int32_t(uint32_t(exact)));
          if (int32_t(got) != int32_t(uint32_t(exact)) && ++mismatches <= 10)
            ADD_FAILURE() << "D(" << z << ", " << r << ", " << col
                          << ") = " << int32_t(got) << ", expected "
                          << int32_t(uint32_t(exact)) << " (" << exact
                          << " wrapped)";
          continue;
        }
        double exact = cValue, magnitude = std::abs(cValue);
        for (unsigned j = 0; j < kBound; ++j) {
          double product = input(a, z, r, j) * input(b, z, j, col);
          exact += product;
          magnitude += std::abs(product);
        }
        // f32 sums of exact products (K + 1 roundings, three times as many
        // for tf32x3, whose split also loses ~2^-17 of each product).
        double steps =
            mm.precision == Precision::Tf32x3 ? 3.0 * kBound + 2 : kBound + 2;
        double tolerance = steps * std::ldexp(magnitude, -24);
        if (mm.precision == Precision::Tf32x3)
          tolerance += std::ldexp(magnitude, -16);
        // An f16 accumulator rounds its sum to f16 (half an ulp: 2^-11 of
        // it) after each instruction's K of 16 and once more for C.
        if (mm.acc == Elem::F16)
          tolerance += (kBound / 16 + 2) * std::ldexp(magnitude, -11);
        double value = decode(mm.acc, got);
        if (!(std::abs(value - exact) <= tolerance) && ++mismatches <= 10)
          ADD_FAILURE() << "D(" << z << ", " << r << ", " << col
                        << ") = " << value << ", expected " << exact
                        << " within " << tolerance;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "in\n" << source;
  // Wrapping (saturating) shows only where some sum left the i32 range.
  if (mm.acc == Elem::I32 && mm.loadC) {
    EXPECT_GT(wrapped, 0u);
  }
}

TEST_P(MmaSimulation, MatchesAHostMatmul) {
  const Matmul &mm = GetParam();
  std::string source = kernelOf(mm);
  LoweredKernel compiled;
  lowerKernel(mm.target, source, mm.warps, compiled, /*stages=*/3, mm.kpack);
  if (HasFatalFailure())
    return;

  std::map<std::string, unsigned> calls = mmaCalls(*compiled.kernel);
  std::string expected = expectedMma(mm);
  ASSERT_EQ(calls.size(), 1u)
      << "expected only " << expected << ", got " << describe(calls) << "\n"
      << source;
  ASSERT_EQ(calls.begin()->first, expected);
  // tf32x3 issues three products per tile and step.
  if (mm.precision == Precision::Tf32x3) {
    EXPECT_EQ(calls.begin()->second % 3, 0u);
  }

  simulateMatmul(mm, compiled, source);
}

std::string matmulName(const ::testing::TestParamInfo<Matmul> &info) {
  return caseName(info.param);
}

constexpr const char *kTargets[] = {"cuda:80", "cuda:89"};

/// Each input type on both targets: 32x32x32 on 2x2 warps (sm_80), and
/// 32x16x64 on 2x1 warps (sm_89), which takes two K steps or more.
std::vector<Matmul> typeCases() {
  struct Inputs {
    Elem a, b;
    Precision precision;
  };
  const Inputs types[] = {{Elem::F16, Elem::F16, Precision::Default},
                         {Elem::BF16, Elem::BF16, Precision::Default},
                         {Elem::F32, Elem::F32, Precision::Tf32},
                         {Elem::F32, Elem::F32, Precision::Tf32x3},
                         {Elem::I8, Elem::I8, Precision::Default},
                         {Elem::E4M3, Elem::E4M3, Precision::Default},
                         {Elem::E5M2, Elem::E5M2, Precision::Default},
                         {Elem::E4M3, Elem::E5M2, Precision::Default}};
  std::vector<Matmul> cases;
  for (const Inputs &t : types)
    for (auto [target, m, n, k, warps] :
         {std::tuple("cuda:80", 32u, 32u, 32u, 4u),
          std::tuple("cuda:89", 32u, 16u, 64u, 2u)})
      cases.push_back({target, t.a, t.b,
                       t.a == Elem::I8 ? Elem::I32 : Elem::F32, t.precision, 0,
                       m, n, k, warps});
  return cases;
}

/// Shapes and warp counts for f16 (sm_80; 128x64 only on 4 and 8 warps,
/// to keep the test fast) and int8 (sm_89, K >= 32).
std::vector<Matmul> shapeCases() {
  std::vector<Matmul> cases;
  const std::tuple<unsigned, unsigned, unsigned> shapes[] = {
      {16, 16, 16}, {32, 32, 32}, {64, 32, 16}, {16, 64, 32}, {128, 64, 32}};
  for (auto [m, n, k] : shapes)
    for (unsigned warps : {1u, 2u, 4u, 8u}) {
      if (m * n > 4096 && warps < 4)
        continue;
      cases.push_back({"cuda:80", Elem::F16, Elem::F16, Elem::F32,
                       Precision::Default, 0, m, n, k, warps});
      if (k >= 32 && m * n <= 1024)
        cases.push_back({"cuda:89", Elem::I8, Elem::I8, Elem::I32,
                         Precision::Default, 0, m, n, k, warps});
    }
  return cases;
}

/// Operand types of a group of cases, and the target they compile for.
struct Types {
  const char *target;
  Elem a, b;
  Precision precision;
};

/// A and B stored each way, for each width of element.
std::vector<Matmul> orderCases() {
  const Types types[] = {
      {"cuda:80", Elem::F16, Elem::F16, Precision::Default},
      {"cuda:89", Elem::BF16, Elem::BF16, Precision::Default},
      {"cuda:80", Elem::F32, Elem::F32, Precision::Tf32},
      {"cuda:89", Elem::F32, Elem::F32, Precision::Tf32x3},
      {"cuda:80", Elem::I8, Elem::I8, Precision::Default},
      {"cuda:89", Elem::E4M3, Elem::E5M2, Precision::Default},
      {"cuda:80", Elem::E5M2, Elem::E4M3, Precision::Default},
      // AMD's FNUZ formats, as f16 on NVIDIA.
      {"cuda:89", Elem::E4M3FNUZ, Elem::E5M2FNUZ, Precision::Default}};
  std::vector<Matmul> cases;
  for (const Types &t : types)
    for (bool aByColumns : {false, true})
      for (bool bByColumns : {false, true}) {
        Matmul mm{
            t.target,    t.a, t.b, t.a == Elem::I8 ? Elem::I32 : Elem::F32,
            t.precision, 0,   32,  16,
            32,          2};
        mm.aByColumns = aByColumns;
        mm.bByColumns = bByColumns;
        cases.push_back(mm);
      }
  return cases;
}

/// Runtime M, N and K short of the tile: masked loads (0 beyond) of A, B
/// and C, a masked store of D.
std::vector<Matmul> maskedCases() {
  const Types types[] = {
      {"cuda:80", Elem::F16, Elem::F16, Precision::Default},
      {"cuda:89", Elem::BF16, Elem::BF16, Precision::Default},
      {"cuda:89", Elem::F32, Elem::F32, Precision::Tf32},
      {"cuda:80", Elem::I8, Elem::I8, Precision::Default},
      {"cuda:89", Elem::I8, Elem::I8, Precision::Default},
      {"cuda:89", Elem::E4M3, Elem::E4M3, Precision::Default},
      {"cuda:80", Elem::E5M2, Elem::E5M2, Precision::Default}};
  std::vector<Matmul> cases;
  for (const Types &t : types)
    for (bool byColumns : {false, true}) {
      Matmul mm{t.target,    t.a, t.b, t.a == Elem::I8 ? Elem::I32 : Elem::F32,
                t.precision, 0,   32,  16,
                64,          2};
      mm.aByColumns = mm.bByColumns = byColumns;
      mm.masked = mm.loadC = true;
      cases.push_back(mm);
    }
  return cases;
}

/// An accumulator read in: f32, i32 close to overflow (the sums wrap),
/// and f16 (widened around the dot and narrowed after); and batched dots.
std::vector<Matmul> accumulatorAndBatchCases() {
  std::vector<Matmul> cases;
  for (const char *target : kTargets) {
    for (auto [a, acc] :
         {std::pair(Elem::F16, Elem::F32), std::pair(Elem::BF16, Elem::F32),
          std::pair(Elem::I8, Elem::I32), std::pair(Elem::F16, Elem::F16)}) {
      Matmul mm{target, a, a, acc, Precision::Default, 0, 32, 32, 64, 4};
      mm.loadC = true;
      cases.push_back(mm);
    }
    Matmul f16Acc{target, Elem::F16, Elem::F16, Elem::F16, Precision::Default,
                  0,      16,        64,        32,        2};
    cases.push_back(f16Acc);
  }
  for (unsigned warps : {1u, 2u, 4u}) {
    cases.push_back({"cuda:80", Elem::F16, Elem::F16, Elem::F32,
                     Precision::Default, 2, 16, 16, 16, warps});
    Matmul withC{"cuda:89", Elem::I8, Elem::I8, Elem::I32, Precision::Default,
                 2,         16,       16,       32,        warps};
    withC.loadC = true;
    withC.bByColumns = true;
    cases.push_back(withC);
  }
  cases.push_back({"cuda:89", Elem::F32, Elem::F32, Elem::F32, Precision::Tf32,
                   2, 16, 16, 16, 2});
  return cases;
}

/// wgmma (sm_90a): each input type, both storage orders of each operand
/// (8-bit and tf32 ones are stored K-major whatever their order), one and
/// two warpgroups along M or N, several instructions along M and K, masked
/// edges and an accumulator read in.
std::vector<Matmul> wgmmaCases() {
  const Types types[] = {{"cuda:90", Elem::F16, Elem::F16, Precision::Default},
                         {"cuda:90", Elem::BF16, Elem::BF16, Precision::Default},
                         {"cuda:90", Elem::F32, Elem::F32, Precision::Tf32},
                         {"cuda:90", Elem::I8, Elem::I8, Precision::Default},
                         {"cuda:90", Elem::E4M3, Elem::E5M2, Precision::Default}};
  std::vector<Matmul> cases;
  for (const Types &t : types) {
    Elem acc = t.a == Elem::I8 ? Elem::I32 : Elem::F32;
    for (bool aByColumns : {false, true})
      for (bool bByColumns : {false, true}) {
        Matmul mm{t.target, t.a, t.b, acc, t.precision, 0, 64, 32, 64, 4};
        mm.aByColumns = aByColumns;
        mm.bByColumns = bByColumns;
        cases.push_back(mm);
      }
    Matmul masked{t.target, t.a, t.b, acc, t.precision, 0, 64, 64, 64, 4};
    masked.masked = true;
    masked.loadC = true;
    cases.push_back(masked);
  }
  // Two 64-row instructions a warpgroup; warpgroups along M, then along N.
  cases.push_back({"cuda:90", Elem::F16, Elem::F16, Elem::F32,
                   Precision::Default, 0, 128, 64, 32, 4});
  cases.push_back({"cuda:90", Elem::F16, Elem::F16, Elem::F32,
                   Precision::Default, 0, 128, 64, 32, 8});
  cases.push_back({"cuda:90", Elem::BF16, Elem::BF16, Elem::F32,
                   Precision::Default, 0, 64, 128, 16, 8});
  Matmul f16Acc{"cuda:90", Elem::F16, Elem::F16, Elem::F16, Precision::Default,
                0,         64,        16,        32,        4};
  f16Acc.loadC = true;
  cases.push_back(f16Acc);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Wgmma, MmaSimulation, ::testing::ValuesIn(wgmmaCases()),
                         matmulName);
INSTANTIATE_TEST_SUITE_P(Types, MmaSimulation, ::testing::ValuesIn(typeCases()),
                         matmulName);
INSTANTIATE_TEST_SUITE_P(Shapes, MmaSimulation,
                         ::testing::ValuesIn(shapeCases()), matmulName);
INSTANTIATE_TEST_SUITE_P(OperandOrders, MmaSimulation,
                         ::testing::ValuesIn(orderCases()), matmulName);
INSTANTIATE_TEST_SUITE_P(MaskedEdges, MmaSimulation,
                         ::testing::ValuesIn(maskedCases()), matmulName);
INSTANTIATE_TEST_SUITE_P(AccumulatorsAndBatches, MmaSimulation,
                         ::testing::ValuesIn(accumulatorAndBatchCases()),
                         matmulName);

//===----------------------------------------------------------------------===//
// Dots on the CUDA cores
//===----------------------------------------------------------------------===//

/// Dots no matrix unit takes (f32 at full precision, on NVIDIA and AMD),
/// on 32- and 64-lane targets:
/// multiply-adds on operands read from shared memory a K step at a time
/// (tile-fma-dots).
class CudaCoreSimulation : public MmaSimulation {};

TEST_P(CudaCoreSimulation, MatchesAHostMatmul) {
  const Matmul &mm = GetParam();
  std::string source = kernelOf(mm);
  LoweredKernel compiled;
  lowerKernel(mm.target, source, mm.warps, compiled);
  if (HasFatalFailure())
    return;
  std::map<std::string, unsigned> calls = mmaCalls(*compiled.kernel);
  ASSERT_TRUE(calls.empty())
      << "expected no matrix instruction, got " << describe(calls);
  simulateMatmul(mm, compiled, source);
}

std::vector<Matmul> cudaCoreCases() {
  Matmul f32{"cuda:80", Elem::F32, Elem::F32, Elem::F32, Precision::Default,
             0,         32,        32,        16,        4};
  Matmul f32Edges = f32;
  f32Edges.m = f32Edges.n = 64;
  f32Edges.aByColumns = f32Edges.masked = f32Edges.loadC = true;
  Matmul f32Cdna{
      "hip:gfx942", Elem::F32, Elem::F32, Elem::F32, Precision::Default, 0,
      64,           64,        32,        4};
  Matmul f32Edges64{
      "hip:gfx942", Elem::F32, Elem::F32, Elem::F32, Precision::Default, 0,
      32,           64,        32,        2};
  f32Edges64.bByColumns = f32Edges64.masked = f32Edges64.loadC = true;
  Matmul f32Rdna{"hip:gfx1100",
                 Elem::F32,
                 Elem::F32,
                 Elem::F32,
                 Precision::Default,
                 0,
                 32,
                 64,
                 16,
                 2};
  Matmul small{"hip:gfx1100",
               Elem::F32,
               Elem::F32,
               Elem::F32,
               Precision::Default,
               0,
               16,
               16,
               16,
               1};
  small.masked = true;
  return {f32, f32Edges, f32Cdna, f32Edges64, f32Rdna, small};
}

/// f16, bf16, fp8 and int8 on AMD's matrix cores (gfx90a, gfx942,
/// gfx950): 32x32 and 16x16 tiles, the wider forms where K allows, one
/// wave to eight, both storage orders, masked edges, an accumulator read
/// in.
std::vector<Matmul> mfmaCases() {
  std::vector<Matmul> cases;
  for (const char *target : {"hip:gfx90a", "hip:gfx942", "hip:gfx950"})
    for (Elem type : {Elem::F16, Elem::BF16}) {
      cases.push_back({target, type, type, Elem::F32, Precision::Default, 0, 64,
                       64, 32, 4});
      cases.push_back({target, type, type, Elem::F32, Precision::Default, 0, 16,
                       32, 32, 1});
    }
  Matmul edges{
      "hip:gfx942", Elem::F16, Elem::F16, Elem::F32, Precision::Default, 0,
      64,           32,        64,        2};
  edges.aByColumns = edges.masked = edges.loadC = true;
  Matmul narrowK{
      "hip:gfx950", Elem::BF16, Elem::BF16, Elem::F32, Precision::Default, 0,
      32,           32,         8,          1};
  narrowK.bByColumns = true;
  cases.push_back(edges);
  cases.push_back(narrowK);
  // fp8 widened to f16 on gfx942; OCP fp8 MFMAs on gfx950, mixed too.
  cases.push_back({"hip:gfx942", Elem::E4M3, Elem::E5M2, Elem::F32,
                   Precision::Default, 0, 32, 32, 32, 1});
  cases.push_back({"hip:gfx950", Elem::E4M3, Elem::E5M2, Elem::F32,
                   Precision::Default, 0, 64, 32, 64, 2});
  Matmul fp8Edges{
      "hip:gfx950", Elem::E5M2, Elem::E4M3, Elem::F32, Precision::Default, 0,
      16,           64,         64,         1};
  fp8Edges.masked = fp8Edges.loadC = true;
  cases.push_back(fp8Edges);
  // FNUZ fp8 MFMAs on gfx942 (mixed too); widened to f16 on gfx950.
  cases.push_back({"hip:gfx942", Elem::E4M3FNUZ, Elem::E5M2FNUZ, Elem::F32,
                   Precision::Default, 0, 64, 32, 64, 2});
  Matmul fnuzEdges{"hip:gfx942",
                   Elem::E5M2FNUZ,
                   Elem::E5M2FNUZ,
                   Elem::F32,
                   Precision::Default,
                   0,
                   16,
                   64,
                   32,
                   1};
  fnuzEdges.masked = fnuzEdges.loadC = fnuzEdges.bByColumns = true;
  cases.push_back(fnuzEdges);
  cases.push_back({"hip:gfx950", Elem::E4M3FNUZ, Elem::E4M3FNUZ, Elem::F32,
                   Precision::Default, 0, 32, 32, 32, 1});
  // tf32 as xf32 on gfx942: 32x32x4 and 16x16x8.
  cases.push_back({"hip:gfx942", Elem::F32, Elem::F32, Elem::F32,
                   Precision::Tf32, 0, 64, 64, 16, 4});
  Matmul xf32Edges{
      "hip:gfx942", Elem::F32, Elem::F32, Elem::F32, Precision::Tf32, 0,
      16,           32,        8,         1};
  xf32Edges.aByColumns = xf32Edges.masked = true;
  cases.push_back(xf32Edges);
  // kpack 2 on gfx942: a lane's run of K (8 halves, 16 int8) feeds two
  // instructions.
  for (Elem type : {Elem::F16, Elem::BF16, Elem::I8}) {
    Matmul packed{"hip:gfx942",
                  type,
                  type,
                  type == Elem::I8 ? Elem::I32 : Elem::F32,
                  Precision::Default,
                  0,
                  64,
                  32,
                  64,
                  2};
    packed.kpack = 2;
    packed.aByColumns = type == Elem::BF16;
    packed.masked = type == Elem::F16;
    cases.push_back(packed);
  }
  // 8 waves, 4x2 over 128x64.
  cases.push_back({"hip:gfx942", Elem::BF16, Elem::BF16, Elem::F32,
                   Precision::Default, 0, 128, 64, 32, 8});
  // int8 into i32 that wraps: 4, 8 and 16 K elements a lane.
  for (const char *target : {"hip:gfx90a", "hip:gfx942", "hip:gfx950"}) {
    Matmul i8{target, Elem::I8, Elem::I8, Elem::I32, Precision::Default,
              0,      32,       64,       64,        2};
    i8.loadC = true;
    cases.push_back(i8);
  }
  cases.push_back({"hip:gfx942", Elem::I8, Elem::I8, Elem::I32,
                   Precision::Default, 0, 16, 16, 32, 1});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Mfma, MmaSimulation, ::testing::ValuesIn(mfmaCases()),
                         matmulName);

/// f16, bf16, fp8 and int8 on RDNA's WMMA (gfx1100, gfx1200): one wave to
/// eight, K of one instruction and of several, both storage orders, masked
/// edges, an accumulator read in.
std::vector<Matmul> wmmaCases() {
  std::vector<Matmul> cases;
  for (const char *target : {"hip:gfx1100", "hip:gfx1200"})
    for (Elem type : {Elem::F16, Elem::BF16}) {
      cases.push_back({target, type, type, Elem::F32, Precision::Default, 0, 64,
                       32, 32, 4});
      cases.push_back({target, type, type, Elem::F32, Precision::Default, 0, 16,
                       16, 16, 1});
    }
  Matmul edges{"hip:gfx1100",
               Elem::F16,
               Elem::F16,
               Elem::F32,
               Precision::Default,
               0,
               32,
               64,
               64,
               2};
  edges.aByColumns = edges.bByColumns = edges.masked = edges.loadC = true;
  cases.push_back(edges);
  // OCP fp8 WMMAs on gfx12 (mixed too), widened to f16 on gfx11.
  cases.push_back({"hip:gfx1200", Elem::E5M2, Elem::E5M2, Elem::F32,
                   Precision::Default, 0, 32, 32, 32, 2});
  Matmul fp8Mixed{"hip:gfx1200",
                  Elem::E4M3,
                  Elem::E5M2,
                  Elem::F32,
                  Precision::Default,
                  0,
                  32,
                  16,
                  64,
                  1};
  fp8Mixed.bByColumns = fp8Mixed.masked = true;
  cases.push_back(fp8Mixed);
  cases.push_back({"hip:gfx1100", Elem::E4M3, Elem::E4M3, Elem::F32,
                   Precision::Default, 0, 16, 16, 32, 1});
  cases.push_back({"hip:gfx1200", Elem::F16, Elem::F16, Elem::F32,
                   Precision::Default, 0, 64, 64, 16, 8});
  for (const char *target : {"hip:gfx1100", "hip:gfx1200"}) {
    Matmul i8{target, Elem::I8, Elem::I8, Elem::I32, Precision::Default,
              0,      32,       32,       32,        2};
    i8.loadC = i8.bByColumns = true;
    cases.push_back(i8);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Wmma, MmaSimulation, ::testing::ValuesIn(wmmaCases()),
                         matmulName);

INSTANTIATE_TEST_SUITE_P(Targets, CudaCoreSimulation,
                         ::testing::ValuesIn(cudaCoreCases()), matmulName);

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// o = exp(s - rowmax(s)) v with s = q kᵀ, for S x D tiles of f16 (k
/// transposed by tile.trans), p narrowed to f16 for the second dot.
constexpr const char *kAttention = R"mlir(
func.func @kernel(%pq: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pk: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pv: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %po: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range 0, $S : tensor<$Sxi32>
  %cols = tile.make_range 0, $D : tensor<$Dxi32>
  %r1 = tile.expand_dims %rows {axis = 1 : i32} : tensor<$Sxi32> -> tensor<$Sx1xi32>
  %c1 = tile.expand_dims %cols {axis = 0 : i32} : tensor<$Dxi32> -> tensor<1x$Dxi32>
  %width = arith.constant dense<$D> : tensor<$Sx1xi32>
  %start1 = arith.muli %r1, %width : tensor<$Sx1xi32>
  %start = tile.broadcast %start1 : tensor<$Sx1xi32> -> tensor<$Sx$Dxi32>
  %col = tile.broadcast %c1 : tensor<1x$Dxi32> -> tensor<$Sx$Dxi32>
  %offset = arith.addi %start, %col : tensor<$Sx$Dxi32>
  %sq = tile.splat %pq : tensor<$Sx$Dx!tile.ptr<f16>>
  %aq = tile.addptr %sq, %offset : tensor<$Sx$Dx!tile.ptr<f16>>, tensor<$Sx$Dxi32>
  %q = tile.load %aq : tensor<$Sx$Dx!tile.ptr<f16>>
  %sk = tile.splat %pk : tensor<$Sx$Dx!tile.ptr<f16>>
  %ak = tile.addptr %sk, %offset : tensor<$Sx$Dx!tile.ptr<f16>>, tensor<$Sx$Dxi32>
  %k = tile.load %ak : tensor<$Sx$Dx!tile.ptr<f16>>
  %sv = tile.splat %pv : tensor<$Sx$Dx!tile.ptr<f16>>
  %av = tile.addptr %sv, %offset : tensor<$Sx$Dx!tile.ptr<f16>>, tensor<$Sx$Dxi32>
  %v = tile.load %av : tensor<$Sx$Dx!tile.ptr<f16>>
  %kt = tile.trans %k {order = array<i32: 1, 0>} : tensor<$Sx$Dxf16> -> tensor<$Dx$Sxf16>
  %zs = arith.constant dense<0.0> : tensor<$Sx$Sxf32>
  %s = tile.dot %q, %kt, %zs : tensor<$Sx$Dxf16> * tensor<$Dx$Sxf16> -> tensor<$Sx$Sxf32>
  %max = tile.reduce(%s) axis = 1 : (tensor<$Sx$Sxf32>) -> tensor<$Sxf32> {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maxnumf %x, %y : f32
    tile.reduce.return %r : f32
  }
  %max1 = tile.expand_dims %max {axis = 1 : i32} : tensor<$Sxf32> -> tensor<$Sx1xf32>
  %maxb = tile.broadcast %max1 : tensor<$Sx1xf32> -> tensor<$Sx$Sxf32>
  %centred = arith.subf %s, %maxb : tensor<$Sx$Sxf32>
  %e = math.exp %centred : tensor<$Sx$Sxf32>
  %p = arith.truncf %e : tensor<$Sx$Sxf32> to tensor<$Sx$Sxf16>
  %zo = arith.constant dense<0.0> : tensor<$Sx$Dxf32>
  %o = tile.dot %p, %v, %zo : tensor<$Sx$Sxf16> * tensor<$Sx$Dxf16> -> tensor<$Sx$Dxf32>
  %so = tile.splat %po : tensor<$Sx$Dx!tile.ptr<f32>>
  %ao = tile.addptr %so, %offset : tensor<$Sx$Dx!tile.ptr<f32>>, tensor<$Sx$Dxi32>
  tile.store %ao, %o : tensor<$Sx$Dx!tile.ptr<f32>>
  return
}
)mlir";

/// Target, sequence length S, head size D, warps.
using AttentionCase = std::tuple<const char *, unsigned, unsigned, unsigned>;

class MmaAttention : public ::testing::TestWithParam<AttentionCase> {
protected:
  static void SetUpTestSuite() { registerBuiltinBackends(); }
};

TEST_P(MmaAttention, MatchesTheHost) {
  auto [spec, s, dh, warps] = GetParam();
  std::string source =
      replaceAll(replaceAll(kAttention, "$S", std::to_string(s)), "$D",
                 std::to_string(dh));
  LoweredKernel compiled;
  lowerKernel(spec, source, warps, compiled);
  if (HasFatalFailure())
    return;
  std::map<std::string, unsigned> calls = mmaCalls(*compiled.kernel);
  ASSERT_EQ(calls.size(), 1u) << describe(calls);
  // sm_90a: both dots on wgmma (the second takes p from registers);
  // before it, mma.sync; on AMD, both on MFMA or WMMA.
  Matmul both{spec, Elem::F16, Elem::F16, Elem::F32, Precision::Default,
              0,    s,         s,         s,         warps};
  if (llvm::StringRef(spec).starts_with("hip:"))
    EXPECT_EQ(calls.begin()->first, expectedMma(both));
  else
    EXPECT_EQ(calls.begin()->first,
              spec == llvm::StringRef("cuda:90")
                  ? "wgmma.f32.f16.f16"
                  : "llvm.nvvm.mma.m16n8k16.row.col.f32.f32");
  expandExp2(*compiled.kernel);

  std::mt19937 random(s * 100 + dh + warps);
  std::uniform_real_distribution<double> values(-1, 1);
  std::vector<uint16_t> q(s * dh), k(s * dh), v(s * dh);
  for (auto *t : {&q, &k, &v})
    for (uint16_t &x : *t)
      x = encode(Elem::F16, values(random));
  std::vector<float> o(s * dh, -1);

  Workgroup group;
  group.warpSize = compiled.warpSize;
  group.numThreads = warps * compiled.warpSize;
  LaneSimulator simulator(*compiled.kernel, group);
  auto address = [&](auto &buffer) {
    simulator.addBuffer(buffer.data(), buffer.size() * sizeof(buffer[0]));
    return reinterpret_cast<uint64_t>(buffer.data());
  };
  llvm::Error error =
      simulator.run({address(q), address(k), address(v), address(o)});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  auto at = [&](const std::vector<uint16_t> &t, unsigned r, unsigned c) {
    return decode(Elem::F16, t[r * dh + c]);
  };
  unsigned mismatches = 0;
  for (unsigned i = 0; i < s; ++i) {
    std::vector<double> scores(s);
    for (unsigned j = 0; j < s; ++j)
      for (unsigned c = 0; c < dh; ++c)
        scores[j] += at(q, i, c) * at(k, j, c);
    double top = *std::max_element(scores.begin(), scores.end());
    std::vector<double> p(s);
    for (unsigned j = 0; j < s; ++j)
      p[j] = decode(Elem::F16, encode(Elem::F16, std::exp(scores[j] - top)));
    for (unsigned c = 0; c < dh; ++c) {
      double exact = 0, magnitude = 0;
      for (unsigned j = 0; j < s; ++j) {
        exact += p[j] * at(v, j, c);
        magnitude += std::abs(p[j] * at(v, j, c));
      }
      // Each p may round to the other f16 neighbour (the device's s and
      // exp differ from the host's in the last bits): 2^-10 of each term.
      double tolerance = std::ldexp(magnitude, -10);
      if (!(std::abs(o[i * dh + c] - exact) <= tolerance) && ++mismatches <= 10)
        ADD_FAILURE() << "o(" << i << ", " << c << ") = " << o[i * dh + c]
                      << ", expected " << exact << " within " << tolerance;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

std::string attentionName(const ::testing::TestParamInfo<AttentionCase> &info) {
  auto [spec, s, dh, warps] = info.param;
  std::string name = std::string(spec) + "_" + std::to_string(s) + "x" +
                     std::to_string(dh) + "_" + std::to_string(warps) + "warps";
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Tiles, MmaAttention,
                         ::testing::Values(AttentionCase{"cuda:80", 64, 64, 4},
                                           AttentionCase{"cuda:90", 64, 64, 4},
                                           AttentionCase{"cuda:89", 32, 32, 4},
                                           AttentionCase{"cuda:89", 32, 16, 2},
                                           AttentionCase{"hip:gfx90a", 32, 64, 2},
                                           AttentionCase{"hip:gfx942", 64, 64, 4},
                                           AttentionCase{"hip:gfx950", 64, 32, 2},
                                           AttentionCase{"hip:gfx1100", 32, 32, 4},
                                           AttentionCase{"hip:gfx1200", 64, 64, 4}),
                         attentionName);

} // namespace
