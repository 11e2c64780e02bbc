# Warning flags for remat's own targets; REMAT_WERROR (on in CI) makes them errors.
add_library(remat_options INTERFACE)
target_compile_options(remat_options INTERFACE
  -Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wimplicit-fallthrough
  $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
  $<$<BOOL:${REMAT_WERROR}>:-Werror>)
target_include_directories(remat_options INTERFACE ${PROJECT_SOURCE_DIR}/src)
if(REMAT_SANITIZE)
  target_compile_options(remat_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(remat_options INTERFACE -fsanitize=address,undefined)
endif()
