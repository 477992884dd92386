//===- Roctracer.cpp - kernels' device time from roctracer, by dlopen -----===//
//
// A callback on each HIP API call that launches kernels keeps the launching
// thread's op by the call's correlation id; roctracer's HIP_OPS activity
// records then give each dispatch's begin, end, agent, queue and the
// correlation id of the call that launched it. The few types and entry
// points used (roctracer v4) are declared here instead of including
// roctracer.h, so that neither building nor running needs ROCm.
//
//===----------------------------------------------------------------------===//

#include "runtime/ActivityTracer.h"
#include "runtime/Driver.h"
#include "runtime/hip/Kfd.h"

#include <cstring>

using namespace mlir::tile::runtime;

namespace {
using Status = int;
using ApiCallback = void (*)(uint32_t, uint32_t, const void *, void *);
using BufferCallback = void (*)(const char *, const char *, void *);

constexpr Status kSuccess = 0;
constexpr uint32_t kHipOps = 2, kHipApi = 3;
constexpr uint32_t kDispatch = 0;
constexpr uint32_t kApiEnter = 0;
constexpr size_t kPoolBytes = 8 << 20;

/// The HIP calls that launch kernels, by name: roctracer numbers them
/// differently from one ROCm release to the next.
constexpr const char *kLaunches[] = {"hipLaunchKernel",
                                     "hipModuleLaunchKernel",
                                     "hipExtModuleLaunchKernel",
                                     "hipHccModuleLaunchKernel",
                                     "hipExtLaunchKernel",
                                     "hipLaunchCooperativeKernel",
                                     "hipModuleLaunchCooperativeKernel",
                                     "hipLaunchKernelExC",
                                     "hipDrvLaunchKernelEx",
                                     "hipGraphLaunch"};

// roctracer_properties_t, naturally aligned.
struct Properties {
  uint32_t mode;
  size_t bufferSize;
  void *allocate;
  void *allocateArgument;
  BufferCallback bufferCallback;
  void *bufferCallbackArgument;
};

// activity_record_t: domain, kind, op, then correlation_id, begin_ns,
// end_ns, device_id (an HSA agent's node), queue_id and kernel_name.
struct RecordOffsets {
  static constexpr size_t domain = 0, op = 8, correlation = 16, begin = 24,
                          end = 32, device = 40, queue = 48, name = 56;
};
// hip_api_data_t: correlation_id, then phase.
constexpr size_t kApiDataPhase = 8;

template <typename T> T read(const void *record, size_t offset) {
  T value;
  std::memcpy(&value, static_cast<const char *>(record) + offset, sizeof value);
  return value;
}

struct Api {
  Status (*roctracer_open_pool)(const Properties *);
  Status (*roctracer_enable_op_callback)(uint32_t, uint32_t, ApiCallback,
                                         void *);
  Status (*roctracer_disable_op_callback)(uint32_t, uint32_t);
  Status (*roctracer_op_code)(uint32_t, const char *, uint32_t *, uint32_t *);
  Status (*roctracer_enable_domain_activity)(uint32_t);
  Status (*roctracer_disable_domain_activity)(uint32_t);
  Status (*roctracer_flush_activity)();
  Status (*roctracer_next_record)(const void *, const void **);
  Status (*roctracer_get_timestamp)(uint64_t *);
  const char *(*roctracer_error_string)();
};

class Roctracer : public ActivityTracer {
public:
  Roctracer(std::string path, const Api &api)
      : ActivityTracer(std::move(path)), api(api) {}

  std::string name() const override { return "roctracer"; }

  void start() override {
    if (started)
      return;
    reset();
    if (!poolOpen) {
      Properties properties{};
      properties.bufferSize = kPoolBytes;
      properties.bufferCallback = onBuffer;
      properties.bufferCallbackArgument = this;
      check(api.roctracer_open_pool(&properties), "roctracer_open_pool");
      poolOpen = true;
    }
    launchOps.clear();
    for (const char *call : kLaunches) {
      uint32_t op = 0;
      if (api.roctracer_op_code(kHipApi, call, &op, nullptr) == kSuccess)
        launchOps.push_back(op);
    }
    if (launchOps.empty())
      throw DriverError("roctracer knows none of HIP's launch calls");
    for (uint32_t op : launchOps)
      check(api.roctracer_enable_op_callback(kHipApi, op, onApi, this),
            "roctracer_enable_op_callback");
    check(api.roctracer_enable_domain_activity(kHipOps),
          "roctracer_enable_domain_activity");
    started = true;
  }

  void stop() override {
    if (!started)
      return;
    api.roctracer_flush_activity();
    api.roctracer_disable_domain_activity(kHipOps);
    for (uint32_t op : launchOps)
      api.roctracer_disable_op_callback(kHipApi, op);
    started = false;
  }

  std::vector<KernelActivity> flush() override {
    check(api.roctracer_flush_activity(), "roctracer_flush_activity");
    return take();
  }

  uint64_t timestamp() override {
    uint64_t now = 0;
    check(api.roctracer_get_timestamp(&now), "roctracer_get_timestamp");
    return now;
  }

private:
  void check(Status status, const char *call) const {
    if (status != kSuccess)
      throw DriverError(std::string(call) +
                        " failed: " + api.roctracer_error_string());
  }

  static void onApi(uint32_t, uint32_t, const void *data, void *self) {
    if (read<uint32_t>(data, kApiDataPhase) == kApiEnter)
      static_cast<Roctracer *>(self)->launching(read<uint64_t>(data, 0));
  }

  static void onBuffer(const char *begin, const char *end, void *argument) {
    auto *self = static_cast<Roctracer *>(argument);
    std::vector<KfdAgent> agents = kfdGpuAgents();
    const void *record = begin;
    while (record < end) {
      using R = RecordOffsets;
      if (read<uint32_t>(record, R::domain) == kHipOps &&
          read<uint32_t>(record, R::op) == kDispatch)
        self->finished(read<uint64_t>(record, R::correlation),
                       read<const char *>(record, R::name),
                       read<uint64_t>(record, R::begin),
                       read<uint64_t>(record, R::end),
                       hipDevice(agents, read<int>(record, R::device)),
                       read<uint64_t>(record, R::queue));
      if (self->api.roctracer_next_record(record, &record) != kSuccess)
        break;
    }
  }

  /// The HIP device of the agent at KFD `node`: its place among the GPU
  /// agents (the node itself where the topology cannot be read).
  static int hipDevice(const std::vector<KfdAgent> &agents, int node) {
    for (size_t i = 0; i < agents.size(); ++i)
      if (agents[i].node == node)
        return static_cast<int>(i);
    return node;
  }

  Api api;
  bool poolOpen = false, started = false;
  std::vector<uint32_t> launchOps;
};

std::unique_ptr<Roctracer>
openRoctracer(const std::vector<std::string> &libraries, std::string &whyNot) {
  std::string tried;
  std::unique_ptr<Library> library = openFirst(libraries, tried);
  if (!library) {
    whyNot = "roctracer cannot be opened (" + tried +
             "); it comes with ROCm (libroctracer64.so in /opt/rocm/lib), or "
             "set TESSERA_ROCTRACER_LIBRARY";
    return nullptr;
  }
  Api api;
  library->bind(api.roctracer_open_pool, "roctracer_open_pool");
  library->bind(api.roctracer_enable_op_callback,
                "roctracer_enable_op_callback");
  library->bind(api.roctracer_disable_op_callback,
                "roctracer_disable_op_callback");
  library->bind(api.roctracer_op_code, "roctracer_op_code");
  library->bind(api.roctracer_enable_domain_activity,
                "roctracer_enable_domain_activity");
  library->bind(api.roctracer_disable_domain_activity,
                "roctracer_disable_domain_activity");
  library->bind(api.roctracer_flush_activity, "roctracer_flush_activity");
  library->bind(api.roctracer_next_record, "roctracer_next_record");
  library->bind(api.roctracer_get_timestamp, "roctracer_get_timestamp");
  library->bind(api.roctracer_error_string, "roctracer_error_string");
  if (!library->complete()) {
    whyNot = library->whyNot() + "; roctracer 4 (ROCm 5 or later) is needed";
    return nullptr;
  }
  return std::make_unique<Roctracer>(library->name(), api);
}
} // namespace

Tracer &Tracer::roctracer(const std::vector<std::string> &libraries) {
  static std::unique_ptr<ActivityTracer> tracer;
  return openOnce(tracer, [&](std::string &whyNot) {
    return std::unique_ptr<ActivityTracer>(openRoctracer(libraries, whyNot));
  });
}
