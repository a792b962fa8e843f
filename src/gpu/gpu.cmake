# SPDX-License-Identifier: MIT
# GPU backend: OpenGL 4.3 compute shaders in a headless EGL context (included from the top level).
#
# Generated at build time into the build tree, never committed:
#   glad/            GL 4.3 core + EGL 1.5 loader (/usr/bin/glad, Debian python3-glad)
#   gpu/preludeD.glsl the text prepended to every shader at load time (#version, #defines, the
#                    uniform block; for D = 2 or 3 the dimension, DIM and vecD; D = 0 none;
#                    D = 2t or 3t also TILE, the tile mode's), printed by the same C code
#                    that builds it at run time
#   gpu/check/dD/*   each unit of src/shaders.cmake as GL compiles it for dimension D (prelude
#                    + shared GLSL + shader), validated with glslangValidator so that a shader
#                    error fails the build
#   gpu/shaders.c    the units' sources embedded as C strings, with the table of their order

find_program(BOIDS_GLAD glad PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT BOIDS_GLAD)
  find_program(BOIDS_GLAD glad REQUIRED)
endif()
find_program(BOIDS_GLSLANG glslangValidator REQUIRED)

set(BOIDS_GLAD_DIR ${PROJECT_BINARY_DIR}/glad)
set(BOIDS_GLAD_EXTENSIONS
  GL_KHR_debug,EGL_EXT_platform_base,EGL_MESA_platform_surfaceless,EGL_EXT_platform_device,EGL_EXT_device_base,EGL_EXT_device_enumeration,EGL_EXT_device_query,EGL_KHR_surfaceless_context)
add_custom_command(
  OUTPUT ${BOIDS_GLAD_DIR}/src/gl.c ${BOIDS_GLAD_DIR}/src/egl.c
         ${BOIDS_GLAD_DIR}/include/glad/gl.h ${BOIDS_GLAD_DIR}/include/glad/egl.h
  COMMAND ${BOIDS_GLAD} --quiet --reproducible --api gl:core=4.3,egl=1.5
          --extensions ${BOIDS_GLAD_EXTENSIONS} --out-path ${BOIDS_GLAD_DIR} c --loader
  COMMENT "Generating the glad GL 4.3 / EGL 1.5 loader"
  VERBATIM)
add_library(boids_glad STATIC ${BOIDS_GLAD_DIR}/src/gl.c ${BOIDS_GLAD_DIR}/src/egl.c)
target_include_directories(boids_glad SYSTEM PUBLIC ${BOIDS_GLAD_DIR}/include)
target_link_libraries(boids_glad PUBLIC ${CMAKE_DL_LIBS})
# Generated code: not ours to keep warning-clean under -pedantic.
target_compile_options(boids_glad PRIVATE -w)

# ---- shaders: prelude, build-time validation, embedding ---------------------------------------
set(BOIDS_GPU_GEN ${PROJECT_BINARY_DIR}/gpu)

add_executable(boids_gpu_prelude src/gpu/gen_prelude.c src/gpu/prelude.c)
target_include_directories(boids_gpu_prelude PRIVATE include src/gpu)
foreach(dim 0 2 3 2t 3t)
  add_custom_command(
    OUTPUT ${BOIDS_GPU_GEN}/prelude${dim}.glsl
    COMMAND ${CMAKE_COMMAND} -E make_directory ${BOIDS_GPU_GEN}
    COMMAND boids_gpu_prelude ${BOIDS_GPU_GEN}/prelude${dim}.glsl ${dim}
    DEPENDS boids_gpu_prelude
    COMMENT "Generating the shader prelude (dimension ${dim})"
    VERBATIM)
endforeach()

# Which files make each shader, the viewer's included: src/shaders.cmake, the one list.
include(${PROJECT_SOURCE_DIR}/src/shaders.cmake)
boids_shader_table(BOIDS_GPU_UNITS ${BOIDS_GPU_GEN} ${BOIDS_GPU_GEN}/shaders.c boids_gpu_shaders TILE)

add_library(boids_gpu STATIC
  src/gpu/gl.c
  src/gpu/gpu_api.c
  src/gpu/prelude.c
  src/gpu/compose.c
  # The compute step, by concern (src/gpu/pipeline.h says which file holds what).
  src/gpu/blocks.c
  src/gpu/buffers.c
  src/gpu/grid.c
  src/gpu/step.c
  src/gpu/transfer.c
  src/gpu/resident.c
  src/gpu/backend.c
  ${BOIDS_GPU_GEN}/shaders.c
)
add_dependencies(boids_gpu boids_gpu_shaders_gen)
target_include_directories(boids_gpu PUBLIC include PRIVATE src/gpu src/core)
target_link_libraries(boids_gpu PUBLIC boids_core boids_glad PRIVATE boids_support)
