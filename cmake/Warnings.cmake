# One place for compiler flags so that every target is held to the same standard.
add_library(shardmap_warnings INTERFACE)
target_compile_options(shardmap_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough)
# GCC 12 at -O3 reports -Wrestrict inside libstdc++'s operator+(const char*, std::string&&)
# (GCC bug 105329), a false positive on ordinary string concatenation.
target_compile_options(shardmap_warnings INTERFACE -Wno-restrict)
# GCC 12 at -O3 reports -Wmaybe-uninitialized on moving a value out of a std::variant (our
# Result<T>) into a lambda's argument (GCC bug 80635 and kin), false on every such line of the
# console's bridge. Reading a truly uninitialized variable is still -Wuninitialized.
target_compile_options(shardmap_warnings INTERFACE -Wno-maybe-uninitialized)
# -Wnull-dereference is left out: at -O2 GCC 12 reports it inside libstdc++ code inlined from
# CLI11, where no null pointer exists.
if(SHARDMAP_WERROR)
  target_compile_options(shardmap_warnings INTERFACE -Werror)
endif()
# A unity build (the ci preset's CMAKE_UNITY_BUILD) includes each source into a generated one, so
# GCC takes every type a source defines in its anonymous namespace for one defined in a header and
# reports -Wsubobject-linkage on each test fixture; compiled on its own, the same source is clean.
if(CMAKE_UNITY_BUILD)
  target_compile_options(shardmap_warnings INTERFACE -Wno-subobject-linkage)
endif()
