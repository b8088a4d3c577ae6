# Warnings for our own targets only (linked PRIVATE, never to third-party code).
add_library(project_warnings INTERFACE)
target_compile_options(project_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wcast-align -Wformat=2 -Wunused -Wconversion -Wsign-conversion)

# Errors in a checkout or CI, so new warnings are fixed, not accumulated; off for
# tarball users whose newer compiler may know warnings we have never seen.
if(EXISTS "${PROJECT_SOURCE_DIR}/.git" OR DEFINED ENV{CI})
  set(_werror_default ON)
else()
  set(_werror_default OFF)
endif()
option(WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ${_werror_default})
if(WARNINGS_AS_ERRORS)
  target_compile_options(project_warnings INTERFACE -Werror)
endif()
