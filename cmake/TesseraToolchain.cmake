# Compiler launcher, linker and warning settings shared by every target.

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

# LLVM and MLIR are compiled without RTTI; our classes derive from theirs.
add_compile_options(-fno-rtti -Wall -Wno-unused-parameter)

if(TESSERA_ENABLE_ASSERTIONS)
  add_compile_options(-UNDEBUG)
endif()
