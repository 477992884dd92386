//===- Python.h - the Python the tools hand Python code to ----------------===//
//
// tessera-compile compiles kernels written in Python, and tessera-layout
// reads layouts spelt in Python, through the tessera package: with the
// Python they were built for (TESSERA_PYTHON, a compile definition) or the
// one the TESSERA_PYTHON environment variable names.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_COMMON_PYTHON_H
#define TESSERA_TOOLS_COMMON_PYTHON_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <string>

namespace tessera::tools {

/// The Python to run, with PYTHONPATH set to import the tessera package
/// beside this program (a build tree's python/) before any other; empty
/// where this tool was built without Python. `mainAddress` is any function
/// of the program (to find its path).
inline std::string preparePython(const char *argv0, void *mainAddress) {
#ifdef TESSERA_PYTHON
  const char *python = std::getenv("TESSERA_PYTHON");
  if (!python)
    python = TESSERA_PYTHON;
  std::string self = llvm::sys::fs::getMainExecutable(argv0, mainAddress);
  llvm::SmallString<256> package(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(package, "python");
  if (llvm::sys::fs::is_directory(package)) {
    std::string path = package.str().str();
    if (const char *existing = std::getenv("PYTHONPATH"); existing && *existing)
      path += ":" + std::string(existing);
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  return python;
#else
  (void)argv0;
  (void)mainAddress;
  return "";
#endif
}

} // namespace tessera::tools

#endif // TESSERA_TOOLS_COMMON_PYTHON_H
