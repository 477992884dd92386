/*===- tessera_runtime.h - Tessera's runtime, for C programs ---------------===*
 *
 * Loads kernels compiled ahead of time (tessera-compile) and launches them
 * through the CUDA driver or the HIP runtime, both opened at first use, so a
 * program links only libtessera_runtime. The launch functions tessera-compile
 * writes call these; a program may call them itself too.
 *
 * Every function returns 0 on success, and otherwise -1 with
 * tessera_last_error() saying why (per thread, until the next failure).
 * Device addresses are 64-bit integers (CUdeviceptr, hipDeviceptr_t).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tessera_platform {
  TESSERA_PLATFORM_CUDA = 0,
  TESSERA_PLATFORM_HIP = 1
} tessera_platform;

typedef struct tessera_module tessera_module;
typedef struct tessera_kernel tessera_kernel;

/* Why the last call of this thread failed. */
const char *tessera_last_error(void);

int tessera_device_count(tessera_platform platform, int *count);
/* Makes `device` (its primary context) current in this thread. */
int tessera_set_device(tessera_platform platform, int device);

/* Loads a binary (cubin, HSACO) or PTX on the current device. */
int tessera_module_load(tessera_platform platform, const void *image,
                        size_t size, tessera_module **module);
/* Unloads a module and frees its kernels. */
void tessera_module_unload(tessera_module *module);
/* The kernel `name` of a module, valid until the module is unloaded. */
int tessera_module_kernel(tessera_module *module, const char *name,
                          tessera_kernel **kernel);
/* Launches on `stream` (NULL: the default stream); `args[i]` points at the
 * value of parameter i. */
int tessera_launch(tessera_kernel *kernel, const unsigned grid[3],
                   unsigned threads_per_block, unsigned shared_bytes,
                   void **args, void *stream);

/* Device memory, for programs without their own allocator. */
int tessera_allocate(tessera_platform platform, size_t bytes,
                     uint64_t *address);
int tessera_release(tessera_platform platform, uint64_t address);
int tessera_copy_to_device(tessera_platform platform, uint64_t dst,
                           const void *src, size_t bytes);
int tessera_copy_to_host(tessera_platform platform, void *dst, uint64_t src,
                         size_t bytes);
int tessera_synchronize(tessera_platform platform);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_H */
