/* Launches add_kernel (examples/python/vector_add.py, compiled ahead of
 * time by tessera-compile) from C and checks the sums. Exit status 2: no
 * usable GPU (the reason on stderr). */
#include "add_kernel.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef PLATFORM
#define PLATFORM TESSERA_PLATFORM_CUDA
#endif

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, tessera_last_error());
  return 1;
}

int main(void) {
  enum { N = 98432 };
  size_t bytes = N * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f * (float)(N - i);
    z[i] = -1.0f;
  }
  if (tessera_set_device(PLATFORM, 0)) {
    fprintf(stderr, "no GPU: %s\n", tessera_last_error());
    return 2;
  }
  uint64_t dx, dy, dz;
  if (tessera_allocate(PLATFORM, bytes, &dx) ||
      tessera_allocate(PLATFORM, bytes, &dy) ||
      tessera_allocate(PLATFORM, bytes, &dz))
    return fail("allocate");
  if (tessera_copy_to_device(PLATFORM, dx, x, bytes) ||
      tessera_copy_to_device(PLATFORM, dy, y, bytes))
    return fail("copy");
  if (add_kernel(NULL, (N + 1023) / 1024, 1, 1, dx, dy, dz, N))
    return fail("add_kernel");
  if (tessera_synchronize(PLATFORM) ||
      tessera_copy_to_host(PLATFORM, z, dz, bytes))
    return fail("synchronize");
  for (int i = 0; i < N; ++i)
    if (z[i] != x[i] + y[i]) {
      fprintf(stderr, "z[%d] = %g, expected %g\n", i, z[i], x[i] + y[i]);
      return 1;
    }
  tessera_release(PLATFORM, dx);
  tessera_release(PLATFORM, dy);
  tessera_release(PLATFORM, dz);
  add_kernel_unload();
  printf("add_kernel from C: %d sums match\n", N);
  return 0;
}
