//===- FakeRoctracer.cpp - a roctracer that reports the launches it is told of
//
// Stands in for libroctracer64 where there is no AMD GPU:
// fakeRoctracerLaunch plays a kernel launch through a HIP call as roctracer
// 4 reports it (the API callback on the calling thread, then an
// activity_record_t dispatch record in the next flushed buffer, after a copy
// record that tracers must skip).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {
using Callback = void (*)(uint32_t, uint32_t, const void *, void *);
using BufferCallback = void (*)(const char *, const char *, void *);

constexpr uint32_t kHipOps = 2, kHipApi = 3;

struct Properties {
  uint32_t mode;
  size_t bufferSize;
  void *allocate, *allocateArgument;
  BufferCallback bufferCallback;
  void *bufferCallbackArgument;
};

struct Record {
  uint32_t domain, kind, op;
  uint64_t correlation, begin, end;
  int device;
  uint64_t queue;
  const char *name;
};
static_assert(sizeof(Record) == 64);

struct ApiData {
  uint64_t correlation;
  uint32_t phase;
};

// The HIP calls this roctracer knows, and their op codes.
const std::map<std::string, uint32_t> kCalls = {
    {"hipModuleLaunchKernel", 41}, {"hipLaunchKernel", 42}, {"hipMemcpy", 43}};

Properties pool{};
bool poolOpen = false, activity = false;
std::map<uint32_t, std::pair<Callback, void *>> callbacks;
std::vector<Record> pending;
uint64_t correlation = 0;
std::set<std::string> names;
std::string lastError;
} // namespace

extern "C" {
int roctracer_open_pool(const Properties *properties) {
  if (poolOpen) {
    lastError = "default pool already set";
    return -1;
  }
  pool = *properties;
  poolOpen = true;
  return 0;
}
int roctracer_op_code(uint32_t domain, const char *name, uint32_t *op,
                      uint32_t *) {
  auto call = kCalls.find(name);
  if (domain != kHipApi || call == kCalls.end()) {
    lastError = std::string("Invalid API name \"") + name + "\"";
    return -2;
  }
  *op = call->second;
  return 0;
}
int roctracer_enable_op_callback(uint32_t domain, uint32_t op, Callback fn,
                                 void *argument) {
  if (domain == kHipApi)
    callbacks[op] = {fn, argument};
  return 0;
}
int roctracer_disable_op_callback(uint32_t domain, uint32_t op) {
  if (domain == kHipApi)
    callbacks.erase(op);
  return 0;
}
int roctracer_enable_domain_activity(uint32_t domain) {
  if (domain == kHipOps)
    activity = true;
  return 0;
}
int roctracer_disable_domain_activity(uint32_t domain) {
  if (domain == kHipOps)
    activity = false;
  return 0;
}
int roctracer_flush_activity() {
  if (pending.empty())
    return 0;
  std::vector<Record> records;
  records.swap(pending);
  pool.bufferCallback(
      reinterpret_cast<const char *>(records.data()),
      reinterpret_cast<const char *>(records.data() + records.size()),
      pool.bufferCallbackArgument);
  return 0;
}
int roctracer_next_record(const Record *record, const Record **next) {
  *next = record + 1;
  return 0;
}
int roctracer_get_timestamp(uint64_t *timestamp) {
  *timestamp = 5000;
  return 0;
}
const char *roctracer_error_string() { return lastError.c_str(); }

/// Plays a launch of kernel `name` through HIP call `call` on the calling
/// thread; it runs from `begin` to `end` on the agent at KFD node `node`.
void fakeRoctracerLaunch(const char *call, const char *name, uint64_t begin,
                         uint64_t end, int node, uint64_t queue) {
  ApiData data{++correlation, 0};
  auto found = kCalls.find(call);
  if (found != kCalls.end()) {
    auto callback = callbacks.find(found->second);
    if (callback != callbacks.end())
      for (uint32_t phase : {0u, 1u}) {
        data.phase = phase;
        callback->second.first(kHipApi, found->second, &data,
                               callback->second.second);
      }
  }
  if (!activity)
    return;
  pending.push_back(
      {kHipOps, 0x11F1, 1, correlation, begin, end, node, queue, nullptr});
  pending.push_back({kHipOps, 0x11F0, 0, correlation, begin, end, node, queue,
                     names.insert(name).first->c_str()});
}
}
