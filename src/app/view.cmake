# The viewer (`boids view`) and offscreen rendering (`boids render`): included from the top
# level after the `boids` target. GLFW is the only window library and only the viewer
# uses it; the shaders under shaders/ are validated with glslangValidator at build time
# (a shader error fails the build) and embedded as the table boids_view_shaders.

pkg_check_modules(GLFW REQUIRED IMPORTED_TARGET glfw3)

set(BOIDS_VIEW_SHADERS boid.vert boid.frag ui.vert ui.frag view_order.comp view_follow.comp)
set(BOIDS_VIEW_GEN ${CMAKE_BINARY_DIR}/view)
set(BOIDS_VIEW_SHADER_FILES)
set(BOIDS_VIEW_STAMPS)
foreach(s IN LISTS BOIDS_VIEW_SHADERS)
  set(src ${CMAKE_SOURCE_DIR}/shaders/${s})
  list(APPEND BOIDS_VIEW_SHADER_FILES ${src})
  add_custom_command(
    OUTPUT ${BOIDS_VIEW_GEN}/check/${s}.stamp
    COMMAND ${BOIDS_GLSLANG} --quiet ${src}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${BOIDS_VIEW_GEN}/check
    COMMAND ${CMAKE_COMMAND} -E touch ${BOIDS_VIEW_GEN}/check/${s}.stamp
    DEPENDS ${src}
    COMMENT "Validating shaders/${s} with glslangValidator"
    VERBATIM)
  list(APPEND BOIDS_VIEW_STAMPS ${BOIDS_VIEW_GEN}/check/${s}.stamp)
endforeach()
add_custom_command(
  OUTPUT ${BOIDS_VIEW_GEN}/view_shaders.c
  COMMAND ${CMAKE_COMMAND} -DOUT=${BOIDS_VIEW_GEN}/view_shaders.c "-DFILES=${BOIDS_VIEW_SHADER_FILES}"
          -DHEADER=render.h -DTYPE=render_shader -DTABLE=boids_view_shaders
          -P ${CMAKE_SOURCE_DIR}/src/embed_shaders.cmake
  DEPENDS ${BOIDS_VIEW_SHADER_FILES} ${BOIDS_VIEW_STAMPS} ${CMAKE_SOURCE_DIR}/src/embed_shaders.cmake
  COMMENT "Embedding the viewer's shaders"
  VERBATIM)

# The viewer and the drawing code as a library of the program, so that a test program can
# print the viewer's key table (tests/view.cmake). It calls back into the program's backend
# set-up (src/app/backends.c, cli.c), which a program linking it compiles in.
add_library(boids_viewer STATIC
  src/app/view.c
  src/app/view_window.c
  src/app/view_keys.c
  src/app/view_input.c
  src/app/view_sim.c
  src/app/view_panel.c
  src/app/view_hud.c
  src/app/view_ui.c
  src/app/render.c
  src/app/render_scene.c
  src/app/render_image.c
  ${BOIDS_VIEW_GEN}/view_shaders.c
)
target_include_directories(boids_viewer PUBLIC ${CMAKE_SOURCE_DIR}/src/app)
target_link_libraries(boids_viewer PUBLIC boids_core boids_gpu PkgConfig::GLFW)

target_sources(boids PRIVATE
  src/app/cmd_view.c
  src/app/cmd_render.c
)
target_link_libraries(boids PRIVATE boids_viewer)
