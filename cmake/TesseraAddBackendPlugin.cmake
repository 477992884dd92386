# tessera_add_backend_plugin(<name> SOURCES <file>...): a backend plugin
# (backends/Plugin.h), a shared library linked to libTesseraCompiler.so and
# to nothing else of LLVM or MLIR. Installed with Tessera's CMake package
# (find_package(Tessera)) and used by its own tests.

function(tessera_add_backend_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE Tessera::Compiler)
  # As LLVM and MLIR are built; every symbol found in the library.
  target_compile_options(${name} PRIVATE -fno-rtti)
  target_compile_features(${name} PRIVATE cxx_std_17)
  target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  # A static LLVM or MLIR library linked besides would register its
  # command-line options a second time, which aborts when it is loaded.
  # (Deferred calls read their arguments when they run: the name is baked.)
  cmake_language(EVAL CODE
    "cmake_language(DEFER CALL _tessera_check_plugin_links [[${name}]])")
endfunction()

function(_tessera_check_plugin_links name)
  get_target_property(libraries ${name} LINK_LIBRARIES)
  foreach(library IN LISTS libraries)
    if(library MATCHES "^(LLVM|MLIR|lld)")
      message(FATAL_ERROR "backend plugin ${name} links ${library}: a plugin "
        "takes LLVM and MLIR from libTesseraCompiler.so (Tessera::Compiler) "
        "only")
    endif()
  endforeach()
endfunction()
