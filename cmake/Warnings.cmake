# One place for compiler flags so that every target is held to the same standard.
add_library(shardmap_warnings INTERFACE)
target_compile_options(shardmap_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough)
# GCC 12 at -O3 reports -Wrestrict inside libstdc++'s operator+(const char*, std::string&&)
# (GCC bug 105329), a false positive on ordinary string concatenation.
target_compile_options(shardmap_warnings INTERFACE -Wno-restrict)
# -Wnull-dereference is left out: at -O2 GCC 12 reports it inside libstdc++ code inlined from
# CLI11, where no null pointer exists.
if(SHARDMAP_WERROR)
  target_compile_options(shardmap_warnings INTERFACE -Werror)
endif()
