# SPDX-License-Identifier: MIT
# The viewer (`boids view`) and offscreen rendering (`boids render`): included from the top
# level after the `boids` target. GLFW is the only window library and only the viewer
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

# One library a folder, each linking what its README's "May use" names.
# render/: drawing without a window (the shader table, the flock, the overlay, the scene,
# images, the camera, the dive, the follow pass), so that tests draw on an EGL context
# (tests/view/*_test.c). Its scene sets up backends through cli.
add_library(boids_render STATIC ${BOIDS_VIEW_GEN}/view_shaders.c
  ${BOIDS_APP}/render/follow.c
  ${BOIDS_APP}/render/render.c
  ${BOIDS_APP}/render/render_overlay.c
  ${BOIDS_APP}/render/render_scene.c
  ${BOIDS_APP}/render/render_image.c
  ${BOIDS_APP}/render/look.c
  ${BOIDS_APP}/render/camera3.c
  ${BOIDS_APP}/render/camera_path.c
  ${BOIDS_APP}/render/dive.c
  ${BOIDS_APP}/render/offscreen.c)
# Its shaders are validated after the prelude the compute step generates.
add_dependencies(boids_view_shaders_gen boids_gpu_shaders_gen)
add_dependencies(boids_render boids_view_shaders_gen)
target_include_directories(boids_render PUBLIC src/gpu)
target_link_libraries(boids_render PUBLIC boids_app_tree boids_cli boids_support boids_gpu
                                          PkgConfig::CGLM)

# remote/: the OSC transport, which knows no viewer.
add_library(boids_remote STATIC ${BOIDS_APP}/remote/osc.c)
target_link_libraries(boids_remote PUBLIC boids_app_tree boids_core PkgConfig::LIBLO
                                          Threads::Threads)

# viewer/: the window, as a library of the program so that a test program can print the
# viewer's key table (tests/view.cmake). Its backend set-up is boids_cli's, its replays
# read trajectories through boids_research's reader (output/).
add_library(boids_viewer STATIC
  ${BOIDS_APP}/viewer/view.c
  ${BOIDS_APP}/viewer/view_window.c
  ${BOIDS_APP}/viewer/view_keys.c
  ${BOIDS_APP}/viewer/view_input.c
  ${BOIDS_APP}/viewer/view_sim.c
  ${BOIDS_APP}/viewer/view_panel.c
  ${BOIDS_APP}/viewer/view_hud.c
  ${BOIDS_APP}/viewer/view_osc.c
  ${BOIDS_APP}/viewer/view_tuio.c
  ${BOIDS_APP}/viewer/view_record.c
  ${BOIDS_APP}/viewer/view_replay.c
  ${BOIDS_APP}/viewer/view_life.c
  ${BOIDS_APP}/viewer/view_camera.c
  ${BOIDS_APP}/viewer/view_ui.c
)
target_link_libraries(boids_viewer PUBLIC boids_cli boids_research boids_render boids_remote
                                          PkgConfig::GLFW)

target_sources(boids PRIVATE
  ${BOIDS_APP}/commands/cmd_view.c
  ${BOIDS_APP}/commands/cmd_render.c
  ${BOIDS_APP}/commands/replay.c
)
target_link_libraries(boids PRIVATE boids_viewer)
