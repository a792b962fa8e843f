# SPDX-License-Identifier: MIT
# The libraries as others link them (included from the top level after the core and the GPU
# targets). The program, the benchmark and the tests link the static boids_core and
# boids_gpu, which may use internal headers; what is installed and exported is:
#
#   boids::core         libboids_core.so (SONAME libboids_core.so.0.4 while the major
#                       version is 0, then .so.MAJOR)
#   boids::core_static  libboids_core.a (the in-tree boids_core)
#   boids::gpu          libboids_gpu.so, the GL loader (glad) inside it and hidden
#   boids::gpu_static   libboids_gpu.a, the same objects as one whose hidden symbols
#                       are local (the loader cannot clash with a host's in a static link)
#
# Every library is compiled with hidden visibility: only the declarations of include/boids/
# are exported (boids/api.h), so a host application with its own GL loader links cleanly.
# Both core libraries hold the support library's objects (src/support: atomic files, the INI
# reader), hidden: it is neither installed nor exported.
# The same names exist as ALIAS targets for a parent project that adds boids with
# add_subdirectory or FetchContent.
include(GNUInstallDirs)

# 0.x promises no compatibility between minor versions (the package's version file says
# SameMinorVersion too), so until 1.0 the minor version is part of the SONAME.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(BOIDS_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(BOIDS_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
target_include_directories(boids_core PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(boids_core PROPERTIES EXPORT_NAME core_static)

add_library(boids_core_shared SHARED ${BOIDS_CORE_SOURCES})
target_include_directories(boids_core_shared
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
         $<BUILD_INTERFACE:${BOIDS_GENERATED_INCLUDE}>
         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  PRIVATE ${PROJECT_SOURCE_DIR}/src/core ${PROJECT_SOURCE_DIR}/src/support)
target_link_libraries(boids_core_shared
  PRIVATE ${MATH_LIB} $<TARGET_NAME_IF_EXISTS:OpenMP::OpenMP_C>)
set_target_properties(boids_core_shared PROPERTIES
  OUTPUT_NAME boids_core EXPORT_NAME core C_VISIBILITY_PRESET hidden
  VERSION ${PROJECT_VERSION} SOVERSION ${BOIDS_SOVERSION})
if(BOIDS_AVX2)
  target_compile_definitions(boids_core_shared PRIVATE BOIDS_AVX2=1)
endif()
add_library(boids::core ALIAS boids_core_shared)
add_library(boids::core_static ALIAS boids_core)
set(BOIDS_EXPORTED_TARGETS boids_core boids_core_shared)

if(TARGET boids_gpu)
  # The GPU sources and the generated glad loader compiled once, position-independent and
  # hidden, for both installed GPU libraries; include paths and definitions follow the
  # in-tree boids_gpu so that src/gpu/gpu.cmake stays the one place that lists them.
  get_target_property(BOIDS_GPU_LIB_SOURCES boids_gpu SOURCES)
  get_target_property(BOIDS_GLAD_SOURCES boids_glad SOURCES)
  # The grid geometry and the tiles' window check (src/core/grid_geom.c, tile.c) are
  # internal to the core, hidden in its shared library, and so is the support library's clock
  # (src/support/clock.c): the GPU libraries carry their own hidden copy of them.
  add_library(boids_gpu_objects OBJECT ${BOIDS_GPU_LIB_SOURCES} ${BOIDS_GLAD_SOURCES}
                                       ${PROJECT_SOURCE_DIR}/src/core/grid_geom.c
                                       ${PROJECT_SOURCE_DIR}/src/core/tile.c
                                       ${PROJECT_SOURCE_DIR}/src/support/clock.c)
  target_include_directories(boids_gpu_objects
    PRIVATE $<TARGET_PROPERTY:boids_gpu,INCLUDE_DIRECTORIES> ${BOIDS_GLAD_DIR}/include
            ${PROJECT_SOURCE_DIR}/src/support)
  target_link_libraries(boids_gpu_objects PRIVATE boids_core_shared)
  target_compile_definitions(boids_gpu_objects
    PRIVATE $<TARGET_PROPERTY:boids_gpu,COMPILE_DEFINITIONS>)
  set_target_properties(boids_gpu_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  add_dependencies(boids_gpu_objects boids_gpu_shaders_gen)
  # The in-tree target keeps its loader private too (same flags, for the same symbols).
  set_target_properties(boids_gpu boids_glad PROPERTIES C_VISIBILITY_PRESET hidden)

  add_library(boids_gpu_shared SHARED $<TARGET_OBJECTS:boids_gpu_objects>)
  target_link_libraries(boids_gpu_shared PUBLIC boids_core_shared PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(boids_gpu_shared PROPERTIES
    OUTPUT_NAME boids_gpu EXPORT_NAME gpu VERSION ${PROJECT_VERSION} SOVERSION ${BOIDS_SOVERSION})
  # Hidden visibility keeps symbols out of a shared library's table, but a static archive
  # still offers glad's globals (glad_glGetIntegerv, gladLoadGL, ...) to the host's link,
  # where its own glad defines them again. So the archive holds one relocatable object
  # whose hidden symbols are made local: only the boids_ API is left to link against.
  set(BOIDS_GPU_RELOCATABLE ${PROJECT_BINARY_DIR}/lib/boids_gpu_static.o)
  if(CMAKE_OBJCOPY AND CMAKE_LINKER AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    add_custom_command(
      OUTPUT ${BOIDS_GPU_RELOCATABLE}
      COMMAND ${CMAKE_LINKER} -r -o ${BOIDS_GPU_RELOCATABLE}.all $<TARGET_OBJECTS:boids_gpu_objects>
      COMMAND ${CMAKE_OBJCOPY} --localize-hidden ${BOIDS_GPU_RELOCATABLE}.all
              ${BOIDS_GPU_RELOCATABLE}
      DEPENDS boids_gpu_objects $<TARGET_OBJECTS:boids_gpu_objects>
      COMMENT "Making the GL loader local to libboids_gpu.a"
      COMMAND_EXPAND_LISTS VERBATIM)
    add_library(boids_gpu_static STATIC ${BOIDS_GPU_RELOCATABLE})
    # The objects must exist before the custom command runs (Makefile generators).
    add_dependencies(boids_gpu_static boids_gpu_objects)
    set_target_properties(boids_gpu_static PROPERTIES LINKER_LANGUAGE C)
  else()
    add_library(boids_gpu_static STATIC $<TARGET_OBJECTS:boids_gpu_objects>)
  endif()
  target_link_libraries(boids_gpu_static PUBLIC boids_core ${CMAKE_DL_LIBS})
  # Its own folder: the in-tree boids_gpu (without the loader) is libboids_gpu.a as well.
  set_target_properties(boids_gpu_static PROPERTIES OUTPUT_NAME boids_gpu EXPORT_NAME gpu_static
    ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
  add_library(boids::gpu ALIAS boids_gpu_shared)
  add_library(boids::gpu_static ALIAS boids_gpu_static)
  list(APPEND BOIDS_EXPORTED_TARGETS boids_gpu_shared boids_gpu_static)
endif()
