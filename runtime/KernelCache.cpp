//===- KernelCache.cpp - compiled kernels on disk -------------------------===//
//
// An entry: the magic line, then length-prefixed fields (the key first),
// then the xxh3 checksum of everything before it.
//
//===----------------------------------------------------------------------===//

#include "runtime/KernelCache.h"
#include "backends/Compiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tile;

const std::string &mlir::tile::compilerBuild() {
  static const std::string build = [] {
    Dl_info info;
    struct stat st;
    if (!dladdr(reinterpret_cast<void *>(&compilerBuild), &info) ||
        !info.dli_fname || stat(info.dli_fname, &st) != 0)
      return std::string("unknown");
    return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) +
           ":" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return build;
}

namespace {

constexpr llvm::StringLiteral kMagic = "TESSERA-KERNEL 4\n";

/// The most bytes an entry has: far more than any kernel's stages and
/// binary. A larger file is not an entry, and is not read.
constexpr uint64_t kMaxEntryBytes = uint64_t(256) << 20;

/// How old a temporary file is when no writer will rename it any more: a
/// writer that died between writing and renaming left it.
constexpr std::chrono::hours kStaleTemporaryAge(1);

/// Removes the temporary files of `directory` older than
/// kStaleTemporaryAge, once per directory and process.
void removeStaleTemporaries(const std::string &directory) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(directory).second)
      return;
  }
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  // Links are not followed: one is removed as the link it is.
  for (llvm::sys::fs::directory_iterator it(directory, ec,
                                            /*follow_symlinks=*/false),
       end;
       it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".tmp")
      continue;
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (status && now - status->getLastModificationTime() > kStaleTemporaryAge)
      llvm::sys::fs::remove(it->path());
  }
}

/// The fields of an entry, in order.
template <typename Kernel, typename Fn>
void forEachField(Kernel &kernel, Fn fn) {
  fn(kernel.name);
  fn(kernel.backend);
  fn(kernel.arch);
  fn(kernel.assemblyKind);
  fn(kernel.binaryKind);
  fn(kernel.warpSize);
  fn(kernel.numWarps);
  fn(kernel.sharedBytes);
  fn(kernel.parameterTypes);
  fn(kernel.tensorMaps);
  fn(kernel.tileLayout);
  fn(kernel.llvmIR);
  fn(kernel.assembly);
  fn(kernel.binary);
  fn(kernel.binaryNote);
}

void writeField(std::string &out, llvm::StringRef bytes) {
  char length[8];
  llvm::support::endian::write64le(length, bytes.size());
  out.append(length, 8);
  out.append(bytes.data(), bytes.size());
}

/// Reads fields off the front of an entry's body.
class FieldReader {
public:
  explicit FieldReader(llvm::StringRef body) : rest(body) {}

  bool read(std::string &field) {
    if (rest.size() < 8)
      return false;
    uint64_t length = llvm::support::endian::read64le(rest.data());
    rest = rest.drop_front(8);
    if (length > rest.size())
      return false;
    field = rest.take_front(length).str();
    rest = rest.drop_front(length);
    return true;
  }
  bool read(unsigned &field) {
    std::string text;
    return read(text) && !llvm::StringRef(text).getAsInteger(10, field);
  }
  bool read(std::vector<std::string> &field) {
    unsigned count = 0;
    if (!read(count) || count > rest.size())
      return false;
    field.resize(count);
    for (std::string &item : field)
      if (!read(item))
        return false;
    return true;
  }
  bool atEnd() const { return rest.empty(); }

private:
  llvm::StringRef rest;
};

} // namespace

KernelCache::KernelCache(std::string directory)
    : directory(std::move(directory)) {
  removeStaleTemporaries(this->directory);
}

std::optional<KernelCache> KernelCache::fromEnvironment() {
  if (const char *always = std::getenv("TESSERA_ALWAYS_COMPILE"))
    if (llvm::StringRef(always) == "1")
      return std::nullopt;
  if (const char *dir = std::getenv("TESSERA_CACHE_DIR")) {
    if (!*dir)
      return std::nullopt;
    return KernelCache(dir);
  }
  llvm::SmallString<128> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (!llvm::sys::path::home_directory(dir))
    return std::nullopt;
  else
    llvm::sys::path::append(dir, ".cache");
  llvm::sys::path::append(dir, "tessera");
  return KernelCache(std::string(dir));
}

std::string KernelCache::key(const std::string &tileIR,
                             const std::string &target,
                             const CompileOptions &options) {
  llvm::SHA256 hash;
  auto add = [&](llvm::StringRef part) {
    std::string field;
    writeField(field, part);
    hash.update(field);
  };
  add(compilerBuild());
  add(loadedPlugins());
  add(tileIR);
  add(target);
  add(std::to_string(options.numWarps) + "," +
      std::to_string(options.numStages) + "," +
      std::to_string(options.numCTAs) + "," +
      std::to_string(options.enableFpFusion) + "," +
      std::to_string(options.debug) + "," + std::to_string(options.wavesPerEU) +
      "," + std::to_string(options.bulkCopies) + "," +
      std::to_string(options.maxRegisters) + "," +
      std::to_string(options.mmaV3) + "," +
      std::to_string(options.matrixInstrNonKDim) + "," +
      std::to_string(options.kpack));
  // The assembler chosen by the environment changes the binary.
  const char *assembler = std::getenv("TESSERA_ASSEMBLER");
  add(assembler ? assembler : "");
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::string KernelCache::pathOf(const std::string &key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + ".kernel");
  return std::string(path);
}

std::optional<CompiledKernel> KernelCache::load(const std::string &key,
                                                std::string &problem) const {
  std::string path = pathOf(key);
  auto damaged = [&](const llvm::Twine &why) -> std::optional<CompiledKernel> {
    problem = ("the cached kernel " + path + " is damaged (" + why +
               "); it was removed and the kernel compiled again")
                  .str();
    llvm::sys::fs::remove(path);
    return std::nullopt;
  };
  // Without blocking: opening a FIFO would wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt; // Not there (or unreadable): compile.
  struct stat st;
  bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular || uint64_t(st.st_size) > kMaxEntryBytes) {
    ::close(fd);
    return damaged(regular ? "larger than any kernel entry"
                           : "not a regular file");
  }
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      fd, path, st.st_size, /*RequiresNullTerminator=*/false);
  ::close(fd);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  if (!data.consume_front(kMagic))
    return damaged("not a kernel entry of this format");
  if (data.size() < 8)
    return damaged("truncated");
  llvm::StringRef body = data.drop_back(8);
  uint64_t checksum = llvm::support::endian::read64le(data.take_back(8).data());
  if (checksum != llvm::xxh3_64bits(body))
    return damaged("its checksum does not match: truncated or overwritten");
  FieldReader reader(body);
  std::string storedKey;
  CompiledKernel kernel;
  bool whole = reader.read(storedKey);
  forEachField(kernel,
               [&](auto &field) { whole = whole && reader.read(field); });
  if (!whole || !reader.atEnd())
    return damaged("its fields do not parse");
  if (storedKey != key)
    return damaged("it holds another key");
  return kernel;
}

std::optional<std::string>
KernelCache::store(const std::string &key, const CompiledKernel &kernel) const {
  std::string body;
  writeField(body, key);
  forEachField(kernel, [&](const auto &field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<Field, unsigned>) {
      writeField(body, std::to_string(field));
    } else if constexpr (std::is_same_v<Field, std::vector<std::string>>) {
      writeField(body, std::to_string(field.size()));
      for (const std::string &item : field)
        writeField(body, item);
    } else {
      writeField(body, field);
    }
  });
  char checksum[8];
  llvm::support::endian::write64le(checksum, llvm::xxh3_64bits(body));

  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return "cannot create the kernel cache " + directory + ": " + ec.message();
  llvm::SmallString<256> temporary;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          pathOf(key) + ".%%%%%%%%.tmp", fd, temporary))
    return "cannot write to the kernel cache " + directory + ": " +
           ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMagic << body;
    os.write(checksum, 8);
    os.flush();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return "cannot write to the kernel cache " + directory + ": " + message;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, pathOf(key))) {
    llvm::sys::fs::remove(temporary);
    return "cannot write to the kernel cache " + directory + ": " +
           ec.message();
  }
  return std::nullopt;
}

CompiledKernel mlir::tile::compileKernelCached(const std::string &tileIR,
                                               const std::string &target,
                                               const CompileOptions &options,
                                               const KernelCache &cache,
                                               std::string &note) {
  std::string key =
      KernelCache::key(tileIR, target, optionsForTarget(target, options));
  std::string problem;
  if (std::optional<CompiledKernel> hit = cache.load(key, problem)) {
    note = "hit";
    return std::move(*hit);
  }
  CompiledKernel kernel = compileKernel(tileIR, target, options);
  // Without a binary (no assembler here), only the driver's JIT can load
  // the kernel; a later compile with an assembler should not find this.
  std::optional<std::string> failure;
  if (!kernel.binary.empty())
    failure = cache.store(key, kernel);
  note = !problem.empty()        ? problem
         : failure               ? *failure
         : kernel.binary.empty() ? "no binary"
                                 : "stored";
  return kernel;
}
