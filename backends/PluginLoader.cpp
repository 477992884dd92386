//===- PluginLoader.cpp - loading backend plugins -------------------------===//

#include "backends/Backend.h"
#include "backends/Compiler.h"
#include "backends/Plugin.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace mlir::tile;

namespace {
llvm::Error pluginError(llvm::StringRef path, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "backend plugin " + path + ": " + why);
}

/// The ABI tag in the plugin's .note.tessera, read from the file.
llvm::Expected<std::string> readAbiTag(llvm::StringRef path) {
  auto object = llvm::object::ObjectFile::createObjectFile(path);
  if (!object)
    return pluginError(path, llvm::toString(object.takeError()));
  for (const llvm::object::SectionRef &section :
       object->getBinary()->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != ".note.tessera")
      continue;
    llvm::Expected<llvm::StringRef> contents = section.getContents();
    if (!contents)
      return pluginError(path, llvm::toString(contents.takeError()));
    // namesz, descsz, type, then the owner and the tag, each padded to 4.
    llvm::StringRef note = *contents;
    uint32_t header[3];
    if (note.size() < sizeof header)
      break;
    std::memcpy(header, note.data(), sizeof header);
    size_t owner = sizeof header, tag = owner + (header[0] + 3) / 4 * 4;
    if (header[2] != plugin::kNoteType || tag + header[1] > note.size() ||
        note.substr(owner, header[0]).rtrim('\0') != "Tessera")
      break;
    return note.substr(tag, header[1]).rtrim('\0').str();
  }
  return pluginError(path,
                     "not a Tessera backend plugin (it has no .note.tessera "
                     "ABI note; is it built with TESSERA_BACKEND_PLUGIN?)");
}

std::mutex loaderMutex;
/// The plugins loaded, by real path: the backends each registered.
llvm::StringMap<std::vector<std::string>> &loaded() {
  static llvm::StringMap<std::vector<std::string>> plugins;
  return plugins;
}
/// The plugins loaded, as path:size:mtime, in order.
std::string &origins() {
  static std::string text;
  return text;
}

llvm::Expected<std::vector<std::string>> load(llvm::StringRef path) {
  registerBuiltinBackends(); // a plugin replaces them, not the other way
  llvm::SmallString<256> real;
  if (std::error_code error = llvm::sys::fs::real_path(path, real))
    return pluginError(path, error.message());
  std::lock_guard<std::mutex> lock(loaderMutex);
  auto known = loaded().find(real);
  if (known != loaded().end())
    return known->second;

  llvm::Expected<std::string> tag = readAbiTag(real);
  if (!tag)
    return tag.takeError();
  if (*tag != TESSERA_ABI_TAG)
    return pluginError(path, "it was built against '" + *tag +
                                 "', and this is '" TESSERA_ABI_TAG
                                 "': rebuild it against this Tessera "
                                 "(find_package(Tessera))");
  std::string why;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(real.c_str(), &why);
  if (!library.isValid())
    return pluginError(path, why);
  auto registerBackends = reinterpret_cast<void (*)()>(
      library.getAddressOfSymbol("tesseraRegisterBackends_v1"));
  if (!registerBackends)
    return pluginError(path, "it has no tesseraRegisterBackends_v1");
  size_t before = backendRegistrations().size();
  try {
    registerBackends();
  } catch (const std::exception &e) {
    return pluginError(path, llvm::Twine("registering its backends failed: ") +
                                 e.what());
  }
  std::vector<std::string> all = backendRegistrations();
  std::vector<std::string> names(all.begin() + before, all.end());
  if (names.empty())
    return pluginError(path, "it registered no backend");
  loaded()[real] = names;
  llvm::sys::fs::file_status status;
  llvm::sys::fs::status(real, status);
  origins() +=
      (real + ":" + llvm::Twine(status.getSize()) + ":" +
       llvm::Twine(
           status.getLastModificationTime().time_since_epoch().count()) +
       ";")
          .str();
  return names;
}

} // namespace

std::vector<std::string> mlir::tile::loadPlugin(const std::string &path) {
  llvm::Expected<std::vector<std::string>> names = load(path);
  if (!names)
    throw BackendPluginError(llvm::toString(names.takeError()));
  return *names;
}

std::string mlir::tile::loadedPlugins() {
  std::lock_guard<std::mutex> lock(loaderMutex);
  return origins();
}

void mlir::tile::loadEnvironmentPlugins() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    const char *paths = std::getenv("TESSERA_BACKEND_PLUGINS");
    llvm::SmallVector<llvm::StringRef> list;
    llvm::StringRef(paths ? paths : "").split(list, ':', -1, false);
    for (llvm::StringRef path : list)
      if (auto names = load(path); !names) {
        failure = "TESSERA_BACKEND_PLUGINS: " + toString(names.takeError());
        return;
      }
  });
  if (!failure.empty())
    throw BackendPluginError(failure);
}
