//===- LldLinkStubs.cpp - what lld's driver names but never needs here ----===//
//
// lld's ELF driver initialises every target LLVM was configured with (and
// LTO registers the Polly extension), for link-time optimisation of bitcode
// inputs. Tessera gives it AMDGPU objects only, and links the code
// generators of the targets it compiles for (AMDGPU, NVPTX) and of the host
// (X86). The other targets' entry points are defined here, weak and empty,
// so that linking lld as a library does not pull in every code generator of
// Debian's LLVM.
//
//===----------------------------------------------------------------------===//

#include "llvm/Plugins/PassPlugin.h"

#define TESSERA_UNUSED_TARGET(T)                                               \
  extern "C" __attribute__((weak)) void LLVMInitialize##T##Target() {}         \
  extern "C" __attribute__((weak)) void LLVMInitialize##T##TargetInfo() {}     \
  extern "C" __attribute__((weak)) void LLVMInitialize##T##TargetMC() {}       \
  extern "C" __attribute__((weak)) void LLVMInitialize##T##AsmPrinter() {}     \
  extern "C" __attribute__((weak)) void LLVMInitialize##T##AsmParser() {}

TESSERA_UNUSED_TARGET(AArch64)
TESSERA_UNUSED_TARGET(ARM)
TESSERA_UNUSED_TARGET(AVR)
TESSERA_UNUSED_TARGET(BPF)
TESSERA_UNUSED_TARGET(Hexagon)
TESSERA_UNUSED_TARGET(Lanai)
TESSERA_UNUSED_TARGET(LoongArch)
TESSERA_UNUSED_TARGET(M68k)
TESSERA_UNUSED_TARGET(Mips)
TESSERA_UNUSED_TARGET(MSP430)
TESSERA_UNUSED_TARGET(PowerPC)
TESSERA_UNUSED_TARGET(RISCV)
TESSERA_UNUSED_TARGET(Sparc)
TESSERA_UNUSED_TARGET(SPIRV)
TESSERA_UNUSED_TARGET(SystemZ)
TESSERA_UNUSED_TARGET(VE)
TESSERA_UNUSED_TARGET(WebAssembly)
TESSERA_UNUSED_TARGET(XCore)
TESSERA_UNUSED_TARGET(Xtensa)

__attribute__((weak)) llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "none", nullptr};
}
