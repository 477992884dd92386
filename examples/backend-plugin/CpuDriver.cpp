//===- CpuDriver.cpp - the "cpu" platform: kernels run with ORC -----------===//
//
// A module is the relocatable object CpuBackend makes, linked into the
// process by ORC's LLJIT (its runtime calls, libm's and libc's functions
// found in the process). A launch runs the grid's programs on a pool of
// threads, each program one call of the kernel's entry with the program's
// coordinates and a shared-memory buffer of the running thread. Memory is
// the host's; launches finish before they return.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "runtime/Driver.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

using namespace mlir::tile::runtime;

namespace {

/// What a program asks of its launch (CpuRuntime.h), per thread.
struct ProgramState {
  int32_t id[3] = {0, 0, 0}, count[3] = {1, 1, 1};
  void *shared = nullptr;
  size_t sharedBytes = 0;
};
thread_local ProgramState program;

/// The first failed assert of the launch running, if any.
std::mutex failureMutex;
std::string failure;

class CpuKernel : public Kernel {
public:
  CpuKernel(CpuKernelEntry entry, std::string name)
      : entry(entry), name(std::move(name)) {}

  KernelResources resources() override { return {}; }

  void launch(std::array<unsigned, 3> grid, unsigned, unsigned sharedBytes,
              void **args, void *, bool) override {
    uint64_t programs = uint64_t(grid[0]) * grid[1] * grid[2];
    {
      std::lock_guard<std::mutex> lock(failureMutex);
      failure.clear();
    }
    auto run = [&](uint64_t begin, uint64_t end) {
      ProgramState &state = program;
      if (state.sharedBytes < sharedBytes) {
        std::free(state.shared);
        state.sharedBytes = (sharedBytes + 1023) / 1024 * 1024;
        state.shared = std::aligned_alloc(1024, state.sharedBytes);
      }
      for (int axis = 0; axis < 3; ++axis)
        state.count[axis] = static_cast<int32_t>(grid[axis]);
      for (uint64_t p = begin; p < end; ++p) {
        state.id[0] = static_cast<int32_t>(p % grid[0]);
        state.id[1] = static_cast<int32_t>(p / grid[0] % grid[1]);
        state.id[2] = static_cast<int32_t>(p / grid[0] / grid[1]);
        entry(args);
      }
    };
    unsigned threads = pool().getMaxConcurrency();
    if (programs < 2 || threads < 2) {
      run(0, programs);
    } else {
      // A few chunks a thread, so that uneven programs even out.
      uint64_t chunks = std::min<uint64_t>(programs, uint64_t(threads) * 4);
      llvm::ThreadPoolTaskGroup group(pool());
      for (uint64_t c = 0; c < chunks; ++c)
        group.async(run, programs * c / chunks, programs * (c + 1) / chunks);
      group.wait();
    }
    std::fflush(stdout); // what the programs printed
    std::lock_guard<std::mutex> lock(failureMutex);
    if (!failure.empty())
      throw DriverError(name + ": " + failure);
  }

private:
  static llvm::DefaultThreadPool &pool() {
    static llvm::DefaultThreadPool threads(llvm::hardware_concurrency());
    return threads;
  }

  CpuKernelEntry entry;
  std::string name;
};

class CpuModule : public Module {
public:
  explicit CpuModule(std::unique_ptr<llvm::orc::LLJIT> jit)
      : jit(std::move(jit)) {
    // What linking reports (symbols not found, say) goes into the error of
    // the lookup that failed.
    this->jit->getExecutionSession().setErrorReporter(
        [this](llvm::Error error) {
          std::lock_guard<std::mutex> lock(errorsMutex);
          errors += "; " + llvm::toString(std::move(error));
        });
  }

  std::unique_ptr<Kernel> kernel(const std::string &name) override {
    auto address = jit->lookup(name);
    if (!address) {
      std::string message = llvm::toString(address.takeError());
      std::lock_guard<std::mutex> lock(errorsMutex);
      throw DriverError("cannot link the CPU kernel " + name + " (" + message +
                        errors + ")");
    }
    return std::make_unique<CpuKernel>(address->toPtr<CpuKernelEntry>(), name);
  }

private:
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::mutex errorsMutex;
  std::string errors;
};

class CpuDriver : public Driver {
public:
  std::string name() const override { return "cpu"; }
  bool sharesHostMemory() const override { return true; }
  int deviceCount() override { return 1; }

  DeviceInfo deviceInfo(int device) override {
    if (device != 0)
      throw DriverError("no CPU device " + std::to_string(device) +
                        " (1 present)");
    DeviceInfo info;
    info.name = "host CPU (" + llvm::sys::getHostCPUName().str() + ")";
    info.arch = llvm::sys::getHostCPUName().str();
    info.multiprocessors =
        static_cast<int>(llvm::hardware_concurrency().compute_thread_count());
    info.warpSize = 1;
    info.maxSharedPerBlock = 1 << 20;
    return info;
  }

  void setDevice(int device) override { deviceInfo(device); }

  std::unique_ptr<Module> loadModule(const std::string &image) override {
    initializeHostTarget();
    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit)
      throw DriverError("cannot start ORC: " + llvm::toString(jit.takeError()));
    // The runtime calls (this plugin's), libm's and libc's functions.
    auto process =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            (*jit)->getDataLayout().getGlobalPrefix());
    if (!process)
      throw DriverError(llvm::toString(process.takeError()));
    (*jit)->getMainJITDylib().addGenerator(std::move(*process));
    if (llvm::Error error = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(image, "kernel.o")))
      throw DriverError("cannot load the CPU kernel: " +
                        llvm::toString(std::move(error)));
    return std::make_unique<CpuModule>(std::move(*jit));
  }

  // Memory is the host's.
  uint64_t allocate(size_t bytes) override {
    void *memory =
        std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
    if (!memory)
      throw DriverError("out of host memory (" + std::to_string(bytes) +
                        " bytes)");
    return reinterpret_cast<uint64_t>(memory);
  }
  void release(uint64_t address) override {
    std::free(reinterpret_cast<void *>(address));
  }
  void copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  }
  void copyToHost(void *dst, uint64_t src, size_t bytes) override {
    std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  }
  void synchronize() override {}

  // Launches finish before they return: an event is the time it is
  // recorded.
  uint64_t createEvent() override {
    return reinterpret_cast<uint64_t>(new int64_t(0));
  }
  void recordEvent(uint64_t event, void *) override {
    *reinterpret_cast<int64_t *>(event) = tessera_cpu_time_ns();
  }
  float elapsedMilliseconds(uint64_t start, uint64_t end) override {
    return float(*reinterpret_cast<int64_t *>(end) -
                 *reinterpret_cast<int64_t *>(start)) /
           1e6f;
  }
  void destroyEvent(uint64_t event) override {
    delete reinterpret_cast<int64_t *>(event);
  }
  void fill(uint64_t address, uint32_t value, size_t words, void *) override {
    auto *word = reinterpret_cast<uint32_t *>(address);
    std::fill(word, word + words, value);
  }
};

} // namespace

extern "C" {
int32_t tessera_cpu_program_id(int32_t axis) { return program.id[axis]; }
int32_t tessera_cpu_num_programs(int32_t axis) { return program.count[axis]; }
void *tessera_cpu_shared() { return program.shared; }
int64_t tessera_cpu_time_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
void tessera_cpu_assert_fail(const char *message, const char *file,
                             int32_t line, const char *function) {
  std::lock_guard<std::mutex> lock(failureMutex);
  if (failure.empty())
    failure = std::string(file) + ":" + std::to_string(line) + ": " + function +
              ": device-side assertion failed: " + message;
}
}

void registerCpuDriver() {
  static CpuDriver driver;
  Driver::registerDriver("cpu", driver);
}
