//===- HipDriver.cpp - the HIP runtime, opened with dlopen ----------------===//
//
// Declares the few HIP API types and entry points it uses instead of
// including hip_runtime.h, so that building needs no ROCm and running needs
// libamdhip64 only where an AMD GPU is used. Kernels take their arguments
// as CUDA's do: an array of pointers to each argument's value
// (hipModuleLaunchKernel's kernelParams), which HIP packs into the kernel
// argument segment the code object describes.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"
#include "runtime/Library.h"
#include "runtime/hip/Kfd.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace mlir::tile::runtime;

namespace {

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;
using hipEvent_t = void *;

// hipDeviceAttribute_t values (hip_runtime_api.h).
constexpr int kAttrMaxSharedPerBlock = 74;
constexpr int kAttrMultiprocessors = 63;
constexpr int kAttrWarpSize = 87;
constexpr int kAttrClockRate = 5;
constexpr int kAttrMemoryBusWidth = 59;
constexpr int kAttrMemoryClockRate = 60;
constexpr int kAttrMaxRegistersPerBlock = 71;
// hipFunction_attribute values.
constexpr int kFuncAttrLocalBytes = 3;
constexpr int kFuncAttrRegisters = 4;

/// The entry points, resolved from the library.
struct Api {
  hipError_t (*hipInit)(unsigned);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  hipError_t (*hipDeviceGetAttribute)(int *, int, int);
  hipError_t (*hipDeviceTotalMem)(size_t *, int);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipFuncGetAttribute)(int *, int, hipFunction_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  /// Null where ROCm has none (cooperative launches then fail).
  hipError_t (*hipModuleLaunchCooperativeKernel)(hipFunction_t, unsigned,
                                                 unsigned, unsigned, unsigned,
                                                 unsigned, unsigned, unsigned,
                                                 hipStream_t, void **);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoD)(void *, const void *, size_t);
  hipError_t (*hipMemcpyDtoH)(void *, void *, size_t);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  hipError_t (*hipMemsetD32Async)(void *, int, size_t, hipStream_t);
};

/// The architecture ("gfx942") of the `index`-th GPU agent, from the KFD
/// topology; empty where it cannot be read.
std::string archOfAgent(int index) {
  std::vector<KfdAgent> agents = kfdGpuAgents();
  if (index < 0 || index >= static_cast<int>(agents.size()))
    return "";
  unsigned version = agents[index].version;
  char arch[32];
  std::snprintf(arch, sizeof arch, "gfx%u%x%x", version / 10000,
                version / 100 % 100, version % 100);
  return arch;
}

class HipDriver;

class HipKernel : public Kernel {
public:
  HipKernel(HipDriver &driver, hipFunction_t function)
      : driver(driver), function(function) {}
  void launch(std::array<unsigned, 3> grid, unsigned threadsPerBlock,
              unsigned sharedBytes, void **args, void *stream,
              bool cooperative) override;
  KernelResources resources() override;

private:
  HipDriver &driver;
  hipFunction_t function;
};

class HipModule : public Module {
public:
  HipModule(HipDriver &driver, hipModule_t module)
      : driver(driver), module(module) {}
  ~HipModule() override;
  std::unique_ptr<Kernel> kernel(const std::string &name) override;

private:
  HipDriver &driver;
  hipModule_t module;
};

class HipDriver : public Driver {
public:
  explicit HipDriver(const Api &api) : api(api) {}

  std::string name() const override { return "hip"; }

  /// Throws DriverError naming the call and the runtime's message.
  void check(hipError_t result, const std::string &call) const {
    if (result == 0)
      return;
    throw DriverError(call + " failed: " + api.hipGetErrorName(result) + " (" +
                      api.hipGetErrorString(result) + ")");
  }

  int deviceCount() override {
    int count = 0;
    check(api.hipGetDeviceCount(&count), "hipGetDeviceCount");
    return count;
  }

  int device(int index) {
    int count = deviceCount();
    if (index < 0 || index >= count)
      throw DriverError("no HIP device " + std::to_string(index) + " (" +
                        std::to_string(count) + " present)");
    return index;
  }

  DeviceInfo deviceInfo(int index) override {
    int d = device(index);
    DeviceInfo info;
    char name[256] = {0};
    check(api.hipDeviceGetName(name, sizeof(name) - 1, d), "hipDeviceGetName");
    info.name = name;
    info.arch = archOfAgent(d);
    // Containers without the KFD topology name it themselves.
    if (const char *arch = std::getenv("TESSERA_HIP_ARCH");
        info.arch.empty() && arch)
      info.arch = arch;
    check(api.hipDeviceGetAttribute(&info.multiprocessors, kAttrMultiprocessors,
                                    d),
          "hipDeviceGetAttribute");
    check(api.hipDeviceGetAttribute(&info.warpSize, kAttrWarpSize, d),
          "hipDeviceGetAttribute");
    check(api.hipDeviceGetAttribute(&info.maxSharedPerBlock,
                                    kAttrMaxSharedPerBlock, d),
          "hipDeviceGetAttribute");
    for (auto [value, attribute] :
         {std::pair(&info.maxRegistersPerBlock, kAttrMaxRegistersPerBlock),
          std::pair(&info.clockRate, kAttrClockRate),
          std::pair(&info.memoryClockRate, kAttrMemoryClockRate),
          std::pair(&info.memoryBusWidth, kAttrMemoryBusWidth)})
      check(api.hipDeviceGetAttribute(value, attribute, d),
            "hipDeviceGetAttribute");
    size_t bytes = 0;
    check(api.hipDeviceTotalMem(&bytes, d), "hipDeviceTotalMem");
    info.totalMemory = bytes;
    return info;
  }

  void setDevice(int index) override {
    check(api.hipSetDevice(device(index)), "hipSetDevice");
  }

  std::unique_ptr<Module> loadModule(const std::string &image) override {
    hipModule_t module;
    check(api.hipModuleLoadData(&module, image.data()), "hipModuleLoadData");
    return std::make_unique<HipModule>(*this, module);
  }

  uint64_t allocate(size_t bytes) override {
    void *address = nullptr;
    check(api.hipMalloc(&address, bytes), "hipMalloc");
    return reinterpret_cast<uint64_t>(address);
  }
  void release(uint64_t address) override {
    check(api.hipFree(reinterpret_cast<void *>(address)), "hipFree");
  }
  void copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    check(api.hipMemcpyHtoD(reinterpret_cast<void *>(dst), src, bytes),
          "hipMemcpyHtoD");
  }
  void copyToHost(void *dst, uint64_t src, size_t bytes) override {
    check(api.hipMemcpyDtoH(dst, reinterpret_cast<void *>(src), bytes),
          "hipMemcpyDtoH");
  }
  void synchronize() override {
    check(api.hipDeviceSynchronize(), "hipDeviceSynchronize");
  }

  uint64_t createEvent() override {
    hipEvent_t event;
    check(api.hipEventCreate(&event), "hipEventCreate");
    return reinterpret_cast<uint64_t>(event);
  }
  void recordEvent(uint64_t event, void *stream) override {
    check(api.hipEventRecord(reinterpret_cast<hipEvent_t>(event), stream),
          "hipEventRecord");
  }
  float elapsedMilliseconds(uint64_t start, uint64_t end) override {
    check(api.hipEventSynchronize(reinterpret_cast<hipEvent_t>(end)),
          "hipEventSynchronize");
    float ms = 0;
    check(api.hipEventElapsedTime(&ms, reinterpret_cast<hipEvent_t>(start),
                                  reinterpret_cast<hipEvent_t>(end)),
          "hipEventElapsedTime");
    return ms;
  }
  void destroyEvent(uint64_t event) override {
    check(api.hipEventDestroy(reinterpret_cast<hipEvent_t>(event)),
          "hipEventDestroy");
  }
  void fill(uint64_t address, uint32_t value, size_t words,
            void *stream) override {
    check(api.hipMemsetD32Async(reinterpret_cast<void *>(address),
                                static_cast<int>(value), words, stream),
          "hipMemsetD32Async");
  }

  Api api;
};

void HipKernel::launch(std::array<unsigned, 3> grid, unsigned threadsPerBlock,
                       unsigned sharedBytes, void **args, void *stream,
                       bool cooperative) {
  // The code object states the kernel's LDS (its group segment size), so no
  // dynamic LDS is asked for.
  (void)sharedBytes;
  if (cooperative) {
    if (!driver.api.hipModuleLaunchCooperativeKernel)
      throw DriverError("this ROCm has no hipModuleLaunchCooperativeKernel "
                        "for launch_cooperative_grid");
    driver.check(driver.api.hipModuleLaunchCooperativeKernel(
                     function, grid[0], grid[1], grid[2], threadsPerBlock, 1, 1,
                     /*sharedMemBytes=*/0, stream, args),
                 "hipModuleLaunchCooperativeKernel");
    return;
  }
  driver.check(driver.api.hipModuleLaunchKernel(
                   function, grid[0], grid[1], grid[2], threadsPerBlock, 1, 1,
                   /*sharedMemBytes=*/0, stream, args, nullptr),
               "hipModuleLaunchKernel");
}

KernelResources HipKernel::resources() {
  KernelResources used;
  driver.check(driver.api.hipFuncGetAttribute(&used.registers,
                                              kFuncAttrRegisters, function),
               "hipFuncGetAttribute");
  driver.check(driver.api.hipFuncGetAttribute(&used.localBytes,
                                              kFuncAttrLocalBytes, function),
               "hipFuncGetAttribute");
  return used;
}

HipModule::~HipModule() { driver.api.hipModuleUnload(module); }

std::unique_ptr<Kernel> HipModule::kernel(const std::string &name) {
  hipFunction_t function;
  driver.check(driver.api.hipModuleGetFunction(&function, module, name.c_str()),
               "hipModuleGetFunction(" + name + ")");
  return std::make_unique<HipKernel>(driver, function);
}

/// Opens the library and resolves every entry point, or says why not.
std::unique_ptr<HipDriver> openHip(std::string &whyNot) {
  const char *override = std::getenv("TESSERA_HIP_LIBRARY");
  std::string path = override ? override : "libamdhip64.so";
  Library library(path);
  if (!library.opened()) {
    whyNot = "the HIP runtime library " + path + " cannot be opened (" +
             library.whyNot() +
             "); is there an AMD GPU and ROCm on this machine?";
    return nullptr;
  }
  Api api;
  library.bind(api.hipInit, "hipInit");
  library.bind(api.hipGetErrorName, "hipGetErrorName");
  library.bind(api.hipGetErrorString, "hipGetErrorString");
  library.bind(api.hipGetDeviceCount, "hipGetDeviceCount");
  library.bind(api.hipDeviceGetName, "hipDeviceGetName");
  library.bind(api.hipDeviceGetAttribute, "hipDeviceGetAttribute");
  library.bind(api.hipDeviceTotalMem, "hipDeviceTotalMem");
  library.bind(api.hipSetDevice, "hipSetDevice");
  library.bind(api.hipDeviceSynchronize, "hipDeviceSynchronize");
  library.bind(api.hipModuleLoadData, "hipModuleLoadData");
  library.bind(api.hipModuleUnload, "hipModuleUnload");
  library.bind(api.hipModuleGetFunction, "hipModuleGetFunction");
  library.bind(api.hipFuncGetAttribute, "hipFuncGetAttribute");
  library.bind(api.hipModuleLaunchKernel, "hipModuleLaunchKernel");
  library.bindIfPresent(api.hipModuleLaunchCooperativeKernel,
                        "hipModuleLaunchCooperativeKernel");
  library.bind(api.hipMalloc, "hipMalloc");
  library.bind(api.hipFree, "hipFree");
  library.bind(api.hipMemcpyHtoD, "hipMemcpyHtoD");
  library.bind(api.hipMemcpyDtoH, "hipMemcpyDtoH");
  library.bind(api.hipEventCreate, "hipEventCreate");
  library.bind(api.hipEventRecord, "hipEventRecord");
  library.bind(api.hipEventSynchronize, "hipEventSynchronize");
  library.bind(api.hipEventElapsedTime, "hipEventElapsedTime");
  library.bind(api.hipEventDestroy, "hipEventDestroy");
  library.bind(api.hipMemsetD32Async, "hipMemsetD32Async");
  if (!library.complete()) {
    whyNot = library.whyNot() + "; ROCm is too old";
    return nullptr;
  }
  if (hipError_t result = api.hipInit(0)) {
    whyNot = std::string("hipInit failed: ") + api.hipGetErrorString(result);
    return nullptr;
  }
  return std::make_unique<HipDriver>(api);
}

} // namespace

Driver &Driver::hip() {
  static std::once_flag once;
  static std::unique_ptr<HipDriver> driver;
  static std::string whyNot;
  std::call_once(once, [] { driver = openHip(whyNot); });
  if (!driver)
    throw DriverError(whyNot);
  return *driver;
}
