# SPDX-License-Identifier: MIT
# The shader compile units, defined once (included from src/gpu/gpu.cmake). A unit is the
# prelude printed by src/gpu/prelude.c (#version, #defines, the uniform block P) followed by
# the files listed here, in order; the last holds main(), names the unit and gives its stage
# by its extension. From this one list boids_shader_table() below
#   - composes each unit exactly as the run time does and validates it with glslangValidator,
#     so a shader error fails the build;
#   - embeds the files and, per unit, the list of its sources, from which src/gpu/compose.c
#     composes the unit at run time (pipeline.c for the step, render.c for the viewer).

# boids_unit(LIST MAIN [SHARED...]): appends unit MAIN, preceded by the shared files, to LIST.
macro(boids_unit list main)
  set(boids_unit_files ${ARGN} ${main})
  string(REPLACE ";" "," boids_unit_files "${boids_unit_files}")
  list(APPEND ${list} "${boids_unit_files}")
endmacro()

# The compute step (src/gpu/pipeline.c): every program gets the rules, the grid and the state
# it reads; the stages that write the state get state_out.glsl. The topological selection
# (select.glsl) goes only to the programs that select: its per-invocation list would
# otherwise sit in every program.
set(BOIDS_GPU_UNITS)
foreach(u scan scan_add)
  boids_unit(BOIDS_GPU_UNITS ${u}.comp rules.glsl grid.glsl)
endforeach()
foreach(u count neighbours)
  boids_unit(BOIDS_GPU_UNITS ${u}.comp rules.glsl grid.glsl state.glsl)
endforeach()
foreach(u scatter sort)
  boids_unit(BOIDS_GPU_UNITS ${u}.comp rules.glsl grid.glsl state.glsl state_out.glsl)
endforeach()
# The steer stage's variants share the metric steer (steer.glsl).
foreach(u steer steer_fused)
  boids_unit(BOIDS_GPU_UNITS ${u}.comp rules.glsl grid.glsl state.glsl state_out.glsl steer.glsl)
endforeach()
boids_unit(BOIDS_GPU_UNITS steer_topo.comp rules.glsl grid.glsl state.glsl state_out.glsl
           select.glsl)
boids_unit(BOIDS_GPU_UNITS neighbours_topo.comp rules.glsl grid.glsl state.glsl select.glsl)
# The 3-D step (dim = 3): the same stages over a 3-D grid (grid3.glsl, after grid.glsl's
# starts) and the 3-D state (positions and velocities in two arrays), with rules3.glsl after
# the planar rules it shares pieces of; the scan is the 2-D one.
boids_unit(BOIDS_GPU_UNITS count3.comp rules.glsl rules3.glsl grid.glsl grid3.glsl state3.glsl)
foreach(u scatter3 sort3 steer3)
  boids_unit(BOIDS_GPU_UNITS ${u}.comp rules.glsl rules3.glsl grid.glsl grid3.glsl state3.glsl
             state3_out.glsl)
endforeach()
boids_unit(BOIDS_GPU_UNITS neighbours3.comp rules.glsl rules3.glsl grid.glsl grid3.glsl
           state3.glsl)
boids_unit(BOIDS_GPU_UNITS steer3_topo.comp rules.glsl rules3.glsl grid.glsl grid3.glsl
           state3.glsl state3_out.glsl select3.glsl)
boids_unit(BOIDS_GPU_UNITS neighbours3_topo.comp rules.glsl rules3.glsl grid.glsl grid3.glsl
           state3.glsl select3.glsl)

# The viewer (src/app/render/render.c, render_scene.c, follow.c): every unit once for the plane
# (BOIDS_VIEW_UNITS, the table boids_view_shaders) and once for the box
# (BOIDS_VIEW_BOX_UNITS, boids_view_box_shaders), after plane.glsl or box.glsl, which define
# DIM. boids_view_unit(MAIN [SHARED...]) appends MAIN to both.
set(BOIDS_VIEW_UNITS)
set(BOIDS_VIEW_BOX_UNITS)
macro(boids_view_unit main)
  boids_unit(BOIDS_VIEW_UNITS ${main} plane.glsl ${ARGN})
  boids_unit(BOIDS_VIEW_BOX_UNITS ${main} box.glsl ${ARGN})
endmacro()
foreach(u ui.vert ui.frag layer.vert layer.frag view_order.comp line.vert view_prev.comp)
  boids_view_unit(${u})
endforeach()
# The boids share their colours (palette.glsl); the box's are lit and fogged (fog.glsl, with
# the lines of the world box and the vision cone).
boids_view_unit(boid.vert palette.glsl)
boids_view_unit(boid.frag fog.glsl)
boids_view_unit(line.frag fog.glsl)
# The follow pass decides neighbours with the step's own rule and selection: each dimension's
# rules, state and selection.
boids_unit(BOIDS_VIEW_UNITS view_follow.comp plane.glsl rules.glsl grid.glsl state.glsl
           select.glsl)
boids_unit(BOIDS_VIEW_BOX_UNITS view_follow.comp box.glsl rules.glsl rules3.glsl grid.glsl
           grid3.glsl state3.glsl select3.glsl)

# boids_shader_table(UNITS GEN_DIR OUT TABLE): validates every unit of the list variable UNITS
# under GEN_DIR/check and writes OUT, the C table TABLE (type boids_gpu_shader, shaders.h),
# driven by the custom target TABLE_gen.
function(boids_shader_table units gen out table)
  set(dir ${PROJECT_SOURCE_DIR}/shaders)
  set(files)
  set(stamps)
  foreach(u IN LISTS ${units})
    string(REPLACE "," ";" parts "${u}")
    list(GET parts -1 name)
    set(srcs)
    foreach(f IN LISTS parts)
      list(APPEND srcs ${dir}/${f})
    endforeach()
    list(APPEND files ${srcs})
    add_custom_command(
      OUTPUT ${gen}/check/${name}.stamp
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}/check
      COMMAND ${CMAKE_COMMAND} -E cat ${BOIDS_GPU_GEN}/prelude.glsl ${srcs} > ${gen}/check/${name}
      COMMAND ${BOIDS_GLSLANG} --quiet ${gen}/check/${name}
      COMMAND ${CMAKE_COMMAND} -E touch ${gen}/check/${name}.stamp
      DEPENDS ${BOIDS_GPU_GEN}/prelude.glsl ${srcs}
      COMMENT "Validating shaders/${name} with glslangValidator"
      VERBATIM)
    list(APPEND stamps ${gen}/check/${name}.stamp)
  endforeach()
  list(REMOVE_DUPLICATES files)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DDIR=${dir} "-DUNITS=${${units}}" -DTABLE=${table}
            -P ${PROJECT_SOURCE_DIR}/src/embed_shaders.cmake
    DEPENDS ${files} ${stamps} ${PROJECT_SOURCE_DIR}/src/embed_shaders.cmake
            ${PROJECT_SOURCE_DIR}/src/shaders.cmake
    COMMENT "Embedding the shaders of ${table}"
    VERBATIM)
  # The one target that runs these commands: every library compiling OUT depends on it, so
  # that parallel builds (Makefiles) never run the same command twice at once.
  add_custom_target(${table}_gen DEPENDS ${out})
endfunction()
