# SPDX-License-Identifier: MIT
# The viewer (`boids view`) and offscreen rendering (`boids render`): included from the top
# level after the `boids` target. GLFW is the only window library and only the viewer
# uses it; its shaders get the compute step's prelude, are validated with glslangValidator
# at build time (a shader error fails the build) and embedded as the table
# boids_view_shaders.

pkg_check_modules(GLFW REQUIRED IMPORTED_TARGET glfw3)
# OSC control of the viewer (src/app/osc.c); Debian liblo-dev.
pkg_check_modules(LIBLO REQUIRED IMPORTED_TARGET liblo)
# The 3-D camera's matrices and quaternions (src/app/camera3.c); Debian libcglm-dev.
pkg_check_modules(CGLM REQUIRED IMPORTED_TARGET cglm)
find_package(Threads REQUIRED)

# The units (BOIDS_VIEW_UNITS) are listed in src/shaders.cmake with the compute step's.
set(BOIDS_VIEW_GEN ${PROJECT_BINARY_DIR}/view)
boids_shader_table(BOIDS_VIEW_UNITS ${BOIDS_VIEW_GEN} ${BOIDS_VIEW_GEN}/view_shaders.c
                   boids_view_shaders)

# The viewer's shader table and the follow pass need no window: a library of their own, so
# that tests run the follow pass on an EGL context (tests/gpu/follow_test.c).
add_library(boids_view_gpu STATIC ${BOIDS_VIEW_GEN}/view_shaders.c src/app/follow.c
                                  src/app/follow3.c
                                  src/app/render.c src/app/render3.c src/app/look.c
                                  src/app/camera3.c src/app/camera_path.c)
# Its shaders are validated after the prelude the compute step generates.
add_dependencies(boids_view_shaders_gen boids_gpu_shaders_gen)
add_dependencies(boids_view_gpu boids_view_shaders_gen)
target_include_directories(boids_view_gpu PUBLIC src/app src/gpu)
target_link_libraries(boids_view_gpu PUBLIC boids_gpu PkgConfig::CGLM)

# The viewer and the drawing code as a library of the program, so that a test program can
# print the viewer's key table (tests/view.cmake). Its backend set-up is boids_cli's.
add_library(boids_viewer STATIC
  src/app/view.c
  src/app/view_window.c
  src/app/view_keys.c
  src/app/view_input.c
  src/app/view_sim.c
  src/app/view_panel.c
  src/app/view_hud.c
  src/app/view_osc.c
  src/app/view_tuio.c
  src/app/view_record.c
  src/app/view_life.c
  src/app/view3.c
  src/app/dive.c
  src/app/osc.c
  src/app/view_ui.c
  src/app/render_scene.c
  src/app/render_image.c
)
target_include_directories(boids_viewer PUBLIC ${PROJECT_SOURCE_DIR}/src/app)
target_link_libraries(boids_viewer PUBLIC boids_cli boids_view_gpu PkgConfig::GLFW
                                          PkgConfig::LIBLO Threads::Threads)

target_sources(boids PRIVATE
  src/app/cmd_view.c
  src/app/cmd_render.c
)
target_link_libraries(boids PRIVATE boids_viewer)
