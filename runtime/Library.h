//===- Library.h - a vendor library's entry points, by dlopen -------------===//
//
// For the drivers: opens a library at first use and binds the functions a
// driver calls, saying why when it cannot.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_LIBRARY_H
#define TESSERA_RUNTIME_LIBRARY_H

#include "llvm/Support/DynamicLibrary.h"

#include <string>
#include <type_traits>

namespace mlir::tile::runtime {

class Library {
public:
  /// Opens `path`; `opened()` says whether it could, `whyNot()` why not.
  explicit Library(const std::string &path) : path(path) {
    std::string error;
    library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!library.isValid())
      why = error;
  }

  bool opened() const { return library.isValid(); }
  /// The path or name it was opened by.
  const std::string &name() const { return path; }

  /// Points `fn` at `symbol`; the first symbol missing becomes `whyNot()`.
  template <typename Fn> void bind(Fn &fn, const char *symbol) {
    fn = reinterpret_cast<std::remove_reference_t<Fn>>(
        library.getAddressOfSymbol(symbol));
    if (!fn && why.empty())
      why = path + " has no " + symbol;
  }

  /// Points `fn` at `symbol`, or null where the library lacks it.
  template <typename Fn> void bindIfPresent(Fn &fn, const char *symbol) {
    fn = reinterpret_cast<std::remove_reference_t<Fn>>(
        library.getAddressOfSymbol(symbol));
  }

  /// Whether every bind found its symbol.
  bool complete() const { return opened() && why.empty(); }
  const std::string &whyNot() const { return why; }

private:
  std::string path, why;
  llvm::sys::DynamicLibrary library;
};

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_LIBRARY_H
