//===- Cupti.cpp - kernels' device time from CUPTI, opened with dlopen ----===//
//
// A callback on every kernel launch API (driver and runtime) keeps the
// launching thread's op by the call's correlation id; CUPTI's activity
// buffers then give each kernel's start, end, device, stream and the
// correlation id of the call that launched it. The few types and entry
// points used are declared here instead of including cupti.h, and records
// are read at the offsets every CUpti_ActivityKernel version from 4 on
// shares, so that neither building nor running needs a CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#include "runtime/ActivityTracer.h"
#include "runtime/Driver.h"

#include <cstdlib>
#include <cstring>

using namespace mlir::tile::runtime;

namespace {
using CUptiResult = int;
using Subscriber = void *;
using ApiCallback = void (*)(void *, int, uint32_t, const void *);
using BufferRequest = void (*)(uint8_t **, size_t *, size_t *);
using BufferComplete = void (*)(void *, uint32_t, uint8_t *, size_t, size_t);

constexpr CUptiResult kSuccess = 0;
constexpr CUptiResult kMultipleSubscribers = 39;
constexpr int kConcurrentKernel = 10;
constexpr int kDriverApi = 1, kRuntimeApi = 2;
constexpr uint32_t kApiEnter = 0;
constexpr uint32_t kFlushForced = 1;
constexpr size_t kBufferBytes = 8 << 20;

// Callback ids of the calls that launch kernels (cupti_driver_cbid.h,
// cupti_runtime_cbid.h): cuLaunch*, cuLaunchKernel(Ex), cooperative
// launches and graph launches, each with its per-thread-stream twin.
constexpr uint32_t kDriverLaunches[] = {115, 116, 117, 307, 442, 477,
                                        478, 480, 514, 515, 652, 653};
constexpr uint32_t kRuntimeLaunches[] = {13,  211, 214, 269, 270,
                                         272, 311, 312, 430, 431};

// CUpti_CallbackData: callbackSite (a 4-byte enum) first, correlationId at
// byte 64.
constexpr size_t kCallbackCorrelation = 64;
// CUpti_ActivityKernel4 to 11, packed.
struct KernelOffsets {
  static constexpr size_t kind = 0, start = 16, end = 24, device = 40,
                          stream = 48, correlation = 92, name = 104;
};

template <typename T> T read(const uint8_t *record, size_t offset) {
  T value;
  std::memcpy(&value, record + offset, sizeof value);
  return value;
}

struct Api {
  CUptiResult (*cuptiSubscribe)(Subscriber *, ApiCallback, void *);
  CUptiResult (*cuptiUnsubscribe)(Subscriber);
  CUptiResult (*cuptiEnableCallback)(uint32_t, Subscriber, int, uint32_t);
  CUptiResult (*cuptiActivityEnable)(int);
  CUptiResult (*cuptiActivityDisable)(int);
  CUptiResult (*cuptiActivityRegisterCallbacks)(BufferRequest, BufferComplete);
  CUptiResult (*cuptiActivityFlushAll)(uint32_t);
  CUptiResult (*cuptiActivityGetNextRecord)(uint8_t *, size_t, uint8_t **);
  CUptiResult (*cuptiGetTimestamp)(uint64_t *);
  CUptiResult (*cuptiGetResultString)(CUptiResult, const char **);
};

class Cupti : public ActivityTracer {
public:
  Cupti(std::string path, const Api &api)
      : ActivityTracer(std::move(path)), api(api) {}

  std::string name() const override { return "cupti"; }

  void start() override {
    if (subscriber)
      return;
    reset();
    CUptiResult result = api.cuptiSubscribe(&subscriber, onApi, this);
    if (result == kMultipleSubscribers) {
      subscriber = nullptr;
      throw DriverError("CUPTI is in use by another profiler (Nsight "
                        "Systems, Nsight Compute, torch.profiler, Proton)");
    }
    check(result, "cuptiSubscribe");
    for (uint32_t id : kDriverLaunches)
      check(api.cuptiEnableCallback(1, subscriber, kDriverApi, id),
            "cuptiEnableCallback");
    for (uint32_t id : kRuntimeLaunches)
      check(api.cuptiEnableCallback(1, subscriber, kRuntimeApi, id),
            "cuptiEnableCallback");
    check(api.cuptiActivityRegisterCallbacks(onRequest, onComplete),
          "cuptiActivityRegisterCallbacks");
    check(api.cuptiActivityEnable(kConcurrentKernel), "cuptiActivityEnable");
  }

  void stop() override {
    if (!subscriber)
      return;
    api.cuptiActivityFlushAll(kFlushForced);
    api.cuptiActivityDisable(kConcurrentKernel);
    api.cuptiUnsubscribe(subscriber);
    subscriber = nullptr;
  }

  std::vector<KernelActivity> flush() override {
    check(api.cuptiActivityFlushAll(kFlushForced), "cuptiActivityFlushAll");
    return take();
  }

  uint64_t timestamp() override {
    uint64_t now = 0;
    check(api.cuptiGetTimestamp(&now), "cuptiGetTimestamp");
    return now;
  }

  static Cupti *instance;

private:
  void check(CUptiResult result, const char *call) const {
    if (result == kSuccess)
      return;
    const char *text = "?";
    api.cuptiGetResultString(result, &text);
    throw DriverError(std::string(call) + " failed: " + text);
  }

  static void onApi(void *self, int, uint32_t, const void *data) {
    auto *bytes = static_cast<const uint8_t *>(data);
    if (read<uint32_t>(bytes, 0) == kApiEnter)
      static_cast<Cupti *>(self)->launching(
          read<uint32_t>(bytes, kCallbackCorrelation));
  }

  static void onRequest(uint8_t **buffer, size_t *size, size_t *records) {
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *records = 0;
  }

  static void onComplete(void *, uint32_t, uint8_t *buffer, size_t,
                         size_t valid) {
    uint8_t *record = nullptr;
    while (instance->api.cuptiActivityGetNextRecord(buffer, valid, &record) ==
           kSuccess) {
      using K = KernelOffsets;
      if (read<uint32_t>(record, K::kind) != kConcurrentKernel)
        continue;
      instance->finished(
          read<uint32_t>(record, K::correlation),
          read<const char *>(record, K::name), read<uint64_t>(record, K::start),
          read<uint64_t>(record, K::end), read<uint32_t>(record, K::device),
          read<uint32_t>(record, K::stream));
    }
    std::free(buffer);
  }

  Api api;
  Subscriber subscriber = nullptr;
};

Cupti *Cupti::instance = nullptr;

std::unique_ptr<Cupti> openCupti(const std::vector<std::string> &libraries,
                                 std::string &whyNot) {
  std::string tried;
  std::unique_ptr<Library> library = openFirst(libraries, tried);
  if (!library) {
    whyNot = "CUPTI cannot be opened (" + tried +
             "); it comes with the CUDA toolkit (extras/CUPTI) and the "
             "nvidia-cuda-cupti wheels, or set TESSERA_CUPTI_LIBRARY";
    return nullptr;
  }
  Api api;
  library->bind(api.cuptiSubscribe, "cuptiSubscribe");
  library->bind(api.cuptiUnsubscribe, "cuptiUnsubscribe");
  library->bind(api.cuptiEnableCallback, "cuptiEnableCallback");
  library->bind(api.cuptiActivityEnable, "cuptiActivityEnable");
  library->bind(api.cuptiActivityDisable, "cuptiActivityDisable");
  library->bind(api.cuptiActivityRegisterCallbacks,
                "cuptiActivityRegisterCallbacks");
  library->bind(api.cuptiActivityFlushAll, "cuptiActivityFlushAll");
  library->bind(api.cuptiActivityGetNextRecord, "cuptiActivityGetNextRecord");
  library->bind(api.cuptiGetTimestamp, "cuptiGetTimestamp");
  library->bind(api.cuptiGetResultString, "cuptiGetResultString");
  if (!library->complete()) {
    whyNot = library->whyNot() + "; this CUPTI is too old";
    return nullptr;
  }
  return std::make_unique<Cupti>(library->name(), api);
}
} // namespace

Tracer &Tracer::cupti(const std::vector<std::string> &libraries) {
  static std::unique_ptr<ActivityTracer> tracer;
  return openOnce(tracer, [&](std::string &whyNot) {
    std::unique_ptr<Cupti> cupti = openCupti(libraries, whyNot);
    Cupti::instance = cupti.get();
    return std::unique_ptr<ActivityTracer>(std::move(cupti));
  });
}
