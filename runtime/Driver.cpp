//===- Driver.cpp - the drivers by their platform's name ------------------===//

#include "runtime/Driver.h"

#include <map>
#include <mutex>

using namespace mlir::tile::runtime;

namespace {
std::mutex registryMutex;
std::map<std::string, Driver *> &registry() {
  static std::map<std::string, Driver *> drivers;
  return drivers;
}
} // namespace

Driver &Driver::named(const std::string &platform) {
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    auto found = registry().find(platform);
    if (found != registry().end())
      return *found->second;
  }
  if (platform == "cuda")
    return cuda();
  if (platform == "hip")
    return hip();
  throw DriverError("unknown GPU platform '" + platform +
                    "': expected cuda, hip or one a backend plugin registers");
}

void Driver::registerDriver(const std::string &platform, Driver &driver) {
  std::lock_guard<std::mutex> lock(registryMutex);
  registry()[platform] = &driver;
}

std::vector<std::string> Driver::registeredPlatforms() {
  std::lock_guard<std::mutex> lock(registryMutex);
  std::vector<std::string> platforms;
  for (const auto &entry : registry())
    platforms.push_back(entry.first);
  return platforms;
}
