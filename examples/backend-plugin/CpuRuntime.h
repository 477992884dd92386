//===- CpuRuntime.h - what kernels compiled for the CPU call --------------===//
//
// A CPU kernel is one function per program: it asks the launcher for its
// program's coordinates and its shared-memory buffer through these C
// functions, which the JIT resolves to the plugin's own definitions
// (CpuDriver.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CPU_CPURUNTIME_H
#define TESSERA_CPU_CPURUNTIME_H

#include <cstdint>

extern "C" {
/// The program's index along `axis` (0, 1, 2) of the grid, and the grid's
/// size.
int32_t tessera_cpu_program_id(int32_t axis);
int32_t tessera_cpu_num_programs(int32_t axis);
/// The program's shared memory (the kernel's shared bytes, 1024-aligned).
void *tessera_cpu_shared();
/// Nanoseconds of a steady clock.
int64_t tessera_cpu_time_ns();
/// A failed device_assert: the launch fails with `message` once its
/// programs are done.
void tessera_cpu_assert_fail(const char *message, const char *file,
                             int32_t line, const char *function);
}

/// Initialises LLVM's code generator for the host (once).
void initializeHostTarget();

/// The wrapper a CPU kernel is called through: `<kernel>(void **args)`,
/// `args[i]` pointing at parameter i's value (as the GPU drivers take them).
using CpuKernelEntry = void (*)(void **);

#endif // TESSERA_CPU_CPURUNTIME_H
