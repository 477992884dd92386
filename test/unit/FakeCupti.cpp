//===- FakeCupti.cpp - a CUPTI that reports the launches it is told of ----===//
//
// Stands in for libcupti where there is no NVIDIA GPU: fakeCuptiLaunch
// plays a kernel launch through cuLaunchKernel as CUPTI reports it (the API
// callback on the calling thread, then a CUpti_ActivityKernel record in the
// next flushed buffer, after a memcpy record that tracers must skip).
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {
using Callback = void (*)(void *, int, uint32_t, const void *);
using Request = void (*)(uint8_t **, size_t *, size_t *);
using Complete = void (*)(void *, uint32_t, uint8_t *, size_t, size_t);

constexpr size_t kRecordBytes = 144;
constexpr int kConcurrentKernel = 10, kMemcpy = 1;

bool subscribed = false;
Callback callback = nullptr;
void *userdata = nullptr;
std::set<std::pair<int, uint32_t>> enabledCallbacks;
bool kernelsEnabled = false;
Request request = nullptr;
Complete complete = nullptr;
std::vector<std::vector<uint8_t>> pending;
uint32_t correlation = 0;
uint64_t now = 1000;
std::set<std::string> names; // kernel names live as long as the library

template <typename T> void put(std::vector<uint8_t> &record, size_t at, T v) {
  std::memcpy(record.data() + at, &v, sizeof v);
}

// CUpti_CallbackData, naturally aligned.
struct CallbackData {
  uint32_t site;
  const char *functionName;
  const void *params, *result;
  const char *symbol;
  void *context;
  uint32_t contextUid;
  uint64_t *correlationData;
  uint32_t correlationId;
};
static_assert(offsetof(CallbackData, correlationId) == 64);
} // namespace

extern "C" {
int cuptiSubscribe(void **subscriber, Callback fn, void *data) {
  if (subscribed)
    return 39; // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
  subscribed = true;
  callback = fn;
  userdata = data;
  *subscriber = &subscribed;
  return 0;
}
int cuptiUnsubscribe(void *) {
  subscribed = false;
  enabledCallbacks.clear();
  return 0;
}
int cuptiEnableCallback(uint32_t enable, void *, int domain, uint32_t id) {
  if (enable)
    enabledCallbacks.insert({domain, id});
  else
    enabledCallbacks.erase({domain, id});
  return 0;
}
int cuptiActivityEnable(int kind) {
  if (kind == kConcurrentKernel)
    kernelsEnabled = true;
  return 0;
}
int cuptiActivityDisable(int kind) {
  if (kind == kConcurrentKernel)
    kernelsEnabled = false;
  return 0;
}
int cuptiActivityRegisterCallbacks(Request r, Complete c) {
  request = r;
  complete = c;
  return 0;
}
int cuptiActivityFlushAll(uint32_t) {
  if (pending.empty() || !request)
    return 0;
  uint8_t *buffer = nullptr;
  size_t size = 0, maxRecords = 0;
  request(&buffer, &size, &maxRecords);
  size_t valid = 0;
  for (const std::vector<uint8_t> &record : pending) {
    if (valid + record.size() > size)
      break;
    std::memcpy(buffer + valid, record.data(), record.size());
    valid += record.size();
  }
  pending.clear();
  complete(nullptr, 0, buffer, size, valid);
  return 0;
}
int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                               uint8_t **record) {
  uint8_t *next = *record ? *record + kRecordBytes : buffer;
  if (next + kRecordBytes > buffer + valid)
    return 12; // CUPTI_ERROR_MAX_LIMIT_REACHED
  *record = next;
  return 0;
}
int cuptiGetTimestamp(uint64_t *timestamp) {
  *timestamp = now;
  return 0;
}
int cuptiGetResultString(int result, const char **text) {
  *text = result == 39 ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                       : "CUPTI_ERROR_UNKNOWN";
  return 0;
}

/// Plays a launch of kernel `name` through cuLaunchKernel (driver callback
/// 307) on the calling thread; it runs from `start` to `end`.
void fakeCuptiLaunch(const char *name, uint64_t start, uint64_t end,
                     uint32_t device, uint32_t stream) {
  CallbackData data{};
  data.functionName = "cuLaunchKernel";
  data.correlationId = ++correlation;
  if (subscribed && enabledCallbacks.count({1, 307}))
    for (uint32_t site : {0u, 1u}) {
      data.site = site;
      callback(userdata, 1, 307, &data);
    }
  if (!kernelsEnabled)
    return;
  std::vector<uint8_t> memcpy(kRecordBytes), kernel(kRecordBytes);
  put<uint32_t>(memcpy, 0, kMemcpy);
  pending.push_back(memcpy);
  put<uint32_t>(kernel, 0, kConcurrentKernel);
  put<uint64_t>(kernel, 16, start);
  put<uint64_t>(kernel, 24, end);
  put<uint32_t>(kernel, 40, device);
  put<uint32_t>(kernel, 48, stream);
  put<uint32_t>(kernel, 92, data.correlationId);
  put<const char *>(kernel, 104, names.insert(name).first->c_str());
  pending.push_back(kernel);
}

/// Sets what cuptiGetTimestamp returns.
void fakeCuptiSetTime(uint64_t time) { now = time; }
}
