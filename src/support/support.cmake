# SPDX-License-Identifier: MIT
# The support library (src/support, included from the top level before the core): the error
# report, atomic output files, the INI reader, bounded text lines and the one monotonic clock. Internal to
# the project: never installed, never exported, declared in no public header.
#
#   boids_support_objects  the code, compiled once, position-independent and with hidden
#                          visibility; its objects go into the core's archive and shared
#                          library (BOIDS_CORE_SOURCES), so the installed libboids_core.a
#                          and .so are whole without it and export none of its symbols
#   boids_support          what the app, bench and the tests link to use it: its headers
#                          ("atomic_file.h") and the core that holds its objects
add_library(boids_support_objects OBJECT
  src/support/error.c
  src/support/atomic_file.c
  src/support/clock.c
  src/support/ini.c
  src/support/text_lines.c
  src/support/shortest.c
)
# boids/error.h: the error report (error.c) is public, declared in include/boids and exported
# by the core that holds these objects; everything else here stays hidden.
target_include_directories(boids_support_objects
  PUBLIC ${PROJECT_SOURCE_DIR}/src/support ${PROJECT_SOURCE_DIR}/include)
set_target_properties(boids_support_objects PROPERTIES
  POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)

add_library(boids_support INTERFACE)
target_include_directories(boids_support INTERFACE ${PROJECT_SOURCE_DIR}/src/support)
# boids_core is added after this file: a name is enough here, resolved at generation.
target_link_libraries(boids_support INTERFACE boids_core)
