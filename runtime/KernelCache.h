//===- KernelCache.h - compiled kernels on disk ---------------------------===//
//
// One file per compiled kernel, named by a hash of everything that decides
// it: the tile IR (with its source locations), the target, the options and
// the compiler build. Entries are written to a temporary file and renamed
// into place, so readers never see half of one; each carries a checksum, so
// a corrupt or truncated entry is found, removed and compiled again, never
// loaded; what is not a regular file of an entry's size is never read.
// Temporary files a writer left (it died before renaming) are removed once
// they are an hour old, when a process first opens the cache. Standard
// library only, like Compiler.h.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_KERNELCACHE_H
#define TESSERA_RUNTIME_KERNELCACHE_H

#include "backends/Compiler.h"

#include <optional>
#include <string>

namespace mlir::tile {

class KernelCache {
public:
  /// Opens the cache in `directory`, removing stale temporary files the
  /// first time this process opens it.
  explicit KernelCache(std::string directory);

  /// The cache the environment asks for: TESSERA_CACHE_DIR, else
  /// ~/.cache/tessera; none when TESSERA_CACHE_DIR is set but empty, or
  /// with TESSERA_ALWAYS_COMPILE=1.
  static std::optional<KernelCache> fromEnvironment();

  const std::string &getDirectory() const { return directory; }

  /// The key of a compilation.
  static std::string key(const std::string &tileIR, const std::string &target,
                         const CompileOptions &options);

  /// The entry of `key`, if one is there and whole. A damaged entry is
  /// removed, and `problem` says what was wrong with it.
  std::optional<CompiledKernel> load(const std::string &key,
                                     std::string &problem) const;
  /// Stores `kernel` under `key`; returns what went wrong, if anything (a
  /// cache that cannot be written only costs compile time).
  std::optional<std::string> store(const std::string &key,
                                   const CompiledKernel &kernel) const;

private:
  std::string pathOf(const std::string &key) const;

  std::string directory;
};

/// What identifies this build of the compiler: the library (or program)
/// holding it, by path, size and modification time, so that a rebuilt
/// compiler never reads the kernels (or tuning results) of the last one.
const std::string &compilerBuild();

/// compileKernel through `cache`: an entry's kernel when one is there,
/// else a compilation, stored where it has a binary. `note` gets "hit",
/// "stored", "no binary" (not stored), or what went wrong with the cache.
CompiledKernel compileKernelCached(const std::string &tileIR,
                                   const std::string &target,
                                   const CompileOptions &options,
                                   const KernelCache &cache, std::string &note);

} // namespace mlir::tile

#endif // TESSERA_RUNTIME_KERNELCACHE_H
