//===- InputFile.h - the bound on what the tools read -------------*- C++
//-*-===//
//
// tessera-opt and tessera-compile read a kernel's IR from a regular file (or
// standard input) of bounded size: /dev/zero would be read without end and a
// FIFO without a writer would wait forever.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_COMMON_INPUTFILE_H
#define TESSERA_TOOLS_COMMON_INPUTFILE_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <cstddef>

namespace tessera::tools {

/// The most bytes of IR read: far more than any kernel's IR, and where an
/// endless input stops.
constexpr size_t kMaxInputBytes = size_t(64) << 20;

inline llvm::Error inputError(llvm::StringRef path, const llvm::Twine &why) {
  return llvm::createStringError("cannot read " + llvm::Twine(path) + ": " +
                                 why);
}

inline llvm::Error tooLarge(llvm::StringRef path) {
  return inputError(path, "more than " + llvm::Twine(kMaxInputBytes >> 20) +
                              " MiB, larger than any kernel's IR");
}

/// Success where `path` names a regular file of at most kMaxInputBytes.
inline llvm::Error checkInputFile(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return inputError(path, ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return inputError(path, "not a regular file");
  if (status.getSize() > kMaxInputBytes)
    return tooLarge(path);
  return llvm::Error::success();
}

} // namespace tessera::tools

#endif // TESSERA_TOOLS_COMMON_INPUTFILE_H
