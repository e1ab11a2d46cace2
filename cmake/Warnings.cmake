# One place for compiler flags so that every target is held to the same standard.
add_library(shardmap_warnings INTERFACE)
target_compile_options(shardmap_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
if(SHARDMAP_WERROR)
  target_compile_options(shardmap_warnings INTERFACE -Werror)
endif()
