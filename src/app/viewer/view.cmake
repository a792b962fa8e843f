# SPDX-License-Identifier: MIT
# The viewer (`boids view`) and offscreen rendering (`boids render`): included from the top
# level (app.cmake) before the commands part. GLFW is the only window library and only the viewer
# uses it; its shaders get the compute step's prelude, are validated with glslangValidator
# at build time (a shader error fails the build) and embedded as the table
# boids_view_shaders.

pkg_check_modules(GLFW REQUIRED IMPORTED_TARGET glfw3)
# The OSC transport of the viewer's remote control (src/app/remote/osc.c); Debian liblo-dev.
pkg_check_modules(LIBLO REQUIRED IMPORTED_TARGET liblo)
# The 3-D camera's matrices and quaternions (src/app/render/camera3.c); Debian libcglm-dev.
pkg_check_modules(CGLM REQUIRED IMPORTED_TARGET cglm)
find_package(Threads REQUIRED)

# The units (BOIDS_VIEW_UNITS) are listed in src/shaders.cmake with the compute step's.
set(BOIDS_VIEW_GEN ${PROJECT_BINARY_DIR}/view)
boids_shader_table(BOIDS_VIEW_UNITS ${BOIDS_VIEW_GEN} ${BOIDS_VIEW_GEN}/view_shaders.c
                   boids_view_shaders)

# The parts of src/app that draw (app.cmake, boids_app_part): render/ with the viewer's shader
# table, which needs no window (tests run the follow pass on an EGL context:
# tests/view/follow_test.c), the OSC transport of remote/, and the viewer.
boids_app_part(render SOURCES ${BOIDS_VIEW_GEN}/view_shaders.c PACKAGES PkgConfig::CGLM)
# Its shaders are validated after the prelude the compute step generates.
add_dependencies(boids_view_shaders_gen boids_gpu_shaders_gen)
add_dependencies(boids_app_render boids_view_shaders_gen)
boids_app_part(remote PACKAGES PkgConfig::LIBLO Threads::Threads)
boids_app_part(viewer PACKAGES PkgConfig::GLFW Threads::Threads)
