//===- FakeHip.cpp - a HIP runtime that records what it is asked ----------===//
//
// Stands in for libamdhip64 where there is no AMD GPU: one device, modules
// holding one kernel `k(ptr, ptr, i32)`, and launches recorded for the test
// to read back (fakeHipLastLaunch).
//
//===----------------------------------------------------------------------===//

#include "FakeHip.h"

#include <cstring>
#include <string>

namespace {
FakeHipLaunch last;
int loadedModules = 0;
unsigned records = 0;
int token;
} // namespace

extern "C" {
int hipInit(unsigned) { return 0; }
const char *hipGetErrorName(int error) {
  return error == 500 ? "hipErrorNotFound" : "hipErrorUnknown";
}
const char *hipGetErrorString(int error) {
  return error == 500 ? "named symbol not found" : "unknown error";
}
int hipGetDeviceCount(int *count) {
  *count = 1;
  return 0;
}
int hipDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "Fake AMD GPU", length);
  return 0;
}
int hipDeviceGetAttribute(int *value, int attribute, int) {
  // Warp size, compute units, registers per block, the rest.
  *value = attribute == 87   ? 64
           : attribute == 63 ? 304
           : attribute == 71 ? 512 * 256
                             : 65536;
  return 0;
}
int hipDeviceTotalMem(size_t *bytes, int) {
  *bytes = size_t(1) << 30;
  return 0;
}
int hipSetDevice(int device) { return device == 0 ? 0 : 101; }
int hipDeviceSynchronize() { return 0; }
int hipModuleLoadData(void **module, const void *image) {
  if (std::memcmp(image,
                  "\x7f"
                  "ELF",
                  4) != 0)
    return 200; // hipErrorInvalidImage
  ++loadedModules;
  *module = &token;
  return 0;
}
int hipModuleUnload(void *) {
  --loadedModules;
  return 0;
}
int hipModuleGetFunction(void **function, void *, const char *name) {
  if (std::string(name) != "k")
    return 500;
  *function = &token;
  return 0;
}
int hipFuncGetAttribute(int *value, int attribute, void *) {
  // Registers, local bytes.
  *value = attribute == 4 ? 96 : attribute == 3 ? 8 : 0;
  return 0;
}
int hipModuleLaunchKernel(void *, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params,
                          void **extra) {
  if (!params || extra)
    return 1;
  last = {{gx, gy, gz}, {bx, by, bz}, shared, stream, 0, 0, 0, false};
  std::memcpy(&last.x, params[0], 8);
  std::memcpy(&last.y, params[1], 8);
  std::memcpy(&last.n, params[2], 4);
  return 0;
}
int hipModuleLaunchCooperativeKernel(void *function, unsigned gx, unsigned gy,
                                     unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned shared, void *stream,
                                     void **params) {
  int result = hipModuleLaunchKernel(function, gx, gy, gz, bx, by, bz, shared,
                                     stream, params, nullptr);
  last.cooperative = true;
  return result;
}
int hipMalloc(void **address, size_t bytes) {
  *address = new char[bytes];
  return 0;
}
int hipFree(void *address) {
  delete[] static_cast<char *>(address);
  return 0;
}
int hipMemcpyHtoD(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return 0;
}
int hipMemcpyDtoH(void *dst, void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return 0;
}

// Events count their records; an elapsed time is the records between.
int hipEventCreate(void **event) {
  *event = new unsigned(0);
  return 0;
}
int hipEventRecord(void *event, void *) {
  *static_cast<unsigned *>(event) = ++records;
  return 0;
}
int hipEventSynchronize(void *) { return 0; }
int hipEventElapsedTime(float *ms, void *start, void *end) {
  *ms = float(*static_cast<unsigned *>(end) - *static_cast<unsigned *>(start));
  return 0;
}
int hipEventDestroy(void *event) {
  delete static_cast<unsigned *>(event);
  return 0;
}
int hipMemsetD32Async(void *dst, int value, size_t words, void *) {
  for (size_t i = 0; i < words; ++i)
    std::memcpy(static_cast<char *>(dst) + 4 * i, &value, 4);
  return 0;
}

/// What the last launch was given; the modules loaded and not unloaded.
const FakeHipLaunch *fakeHipLastLaunch() { return &last; }
int fakeHipLoadedModules() { return loadedModules; }
}
