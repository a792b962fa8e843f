# SPDX-License-Identifier: MIT
# The shader compile units, defined once (included from src/gpu/gpu.cmake). A unit is the
# prelude printed by src/gpu/prelude.c (#version, #defines, the uniform block P) followed by
# the files listed here, in order; the last holds main(), names the unit and gives its stage
# by its extension. From this one list boids_shader_table() below
#   - composes each unit exactly as the run time does and validates it with glslangValidator,
#     so a shader error fails the build;
#   - embeds the files and, per unit, the list of its sources, from which src/gpu/compose.c
#     composes the unit at run time (backend.c for the step, render.c for the viewer).

# boids_unit(LIST DIM MAIN [SHARED...]): appends unit MAIN, preceded by the shared files, to
# LIST, compiled for dimension DIM: 2 (the plane) or 3 (the box), which the prelude gives
# the shaders as DIM and the vector type vecD; 0 for a unit without one.
macro(boids_unit list dim main)
  set(boids_unit_files ${ARGN} ${main})
  string(REPLACE ";" "," boids_unit_files "${boids_unit_files}")
  list(APPEND ${list} "${dim}:${boids_unit_files}")
endmacro()

# The compute step (src/gpu, pipeline.h), each stage one source compiled for the plane and the
# box: every program gets the rules, the grid and the state it reads; the stages that write
# the state get state_out.glsl. The topological selection (select.glsl) goes only to the
# programs that select: its per-invocation list would otherwise sit in every program. The
# scan knows no dimension. The fused variant runs in the plane only.
set(BOIDS_GPU_UNITS)
foreach(u scan scan_add)
  boids_unit(BOIDS_GPU_UNITS 0 ${u}.comp)
endforeach()
foreach(dim 2 3)
  foreach(u count neighbours)
    boids_unit(BOIDS_GPU_UNITS ${dim} ${u}.comp rules.glsl grid.glsl state.glsl)
  endforeach()
  foreach(u scatter sort)
    boids_unit(BOIDS_GPU_UNITS ${dim} ${u}.comp rules.glsl grid.glsl state.glsl state_out.glsl)
  endforeach()
  # The steer stage's variants share the metric steer (steer.glsl).
  boids_unit(BOIDS_GPU_UNITS ${dim} steer.comp rules.glsl grid.glsl state.glsl state_out.glsl
             steer.glsl)
  boids_unit(BOIDS_GPU_UNITS ${dim} steer_topo.comp rules.glsl grid.glsl state.glsl
             state_out.glsl select.glsl)
  # Species (docs/model.md): the steer stage of a flock of several species.
  boids_unit(BOIDS_GPU_UNITS ${dim} steer_species.comp rules.glsl grid.glsl state.glsl
             state_out.glsl species.glsl)
  boids_unit(BOIDS_GPU_UNITS ${dim} steer_topo_species.comp rules.glsl grid.glsl state.glsl
             state_out.glsl species.glsl select.glsl)
  boids_unit(BOIDS_GPU_UNITS ${dim} neighbours_topo.comp rules.glsl grid.glsl state.glsl
             species.glsl select.glsl)
  # A resident tile's passes (src/gpu/resident.c), built by its first tile_start.
  boids_unit(BOIDS_GPU_UNITS ${dim} tile_res.comp state.glsl state_out.glsl)
endforeach()
boids_unit(BOIDS_GPU_UNITS 2 steer_fused.comp rules.glsl grid.glsl state.glsl state_out.glsl
           steer.glsl)

# The viewer (src/app/render/render.c, render_scene.c, follow.c): the units that draw or follow
# the flock compiled for the plane and the box, the others without a dimension.
set(BOIDS_VIEW_UNITS)
foreach(u ui.vert ui.frag layer.vert layer.frag view_order.comp line.vert view_prev.comp)
  boids_unit(BOIDS_VIEW_UNITS 0 ${u})
endforeach()
boids_unit(BOIDS_VIEW_UNITS 0 line.frag fog.glsl)
# The boids share their colours (palette.glsl); the box's are lit and fogged (fog.glsl, with
# the lines of the world box and the vision cone). The follow pass decides neighbours with
# the step's own rules, state and selection.
foreach(dim 2 3)
  boids_unit(BOIDS_VIEW_UNITS ${dim} boid.vert palette.glsl)
  boids_unit(BOIDS_VIEW_UNITS ${dim} boid.frag fog.glsl)
  boids_unit(BOIDS_VIEW_UNITS ${dim} view_follow.comp rules.glsl grid.glsl state.glsl
             select.glsl)
endforeach()

# boids_shader_table(UNITS GEN_DIR OUT TABLE [TILE]): validates every unit of the list variable
# UNITS under GEN_DIR/check/dDIM and writes OUT, the C table TABLE (type boids_gpu_shader,
# shaders.h), driven by the custom target TABLE_gen. TILE: the units of a dimension are also
# validated as the tile mode compiles them (the prelude's TILE, under GEN_DIR/check/dDIMt).
function(boids_shader_table units gen out table)
  set(dir ${PROJECT_SOURCE_DIR}/shaders)
  set(files)
  set(stamps)
  foreach(u IN LISTS ${units})
    string(REGEX REPLACE "^([0-9]):.*" "\\1" dim "${u}")
    string(REGEX REPLACE "^[0-9]:" "" u "${u}")
    string(REPLACE "," ";" parts "${u}")
    list(GET parts -1 name)
    set(srcs)
    foreach(f IN LISTS parts)
      list(APPEND srcs ${dir}/${f})
    endforeach()
    list(APPEND files ${srcs})
    set(preludes ${dim})
    if(ARGV4 STREQUAL "TILE" AND NOT dim EQUAL 0)
      list(APPEND preludes ${dim}t)
    endif()
    foreach(d IN LISTS preludes)
      add_custom_command(
        OUTPUT ${gen}/check/d${d}/${name}.stamp
        COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}/check/d${d}
        COMMAND ${CMAKE_COMMAND} -E cat ${BOIDS_GPU_GEN}/prelude${d}.glsl ${srcs} >
                ${gen}/check/d${d}/${name}
        COMMAND ${BOIDS_GLSLANG} --quiet ${gen}/check/d${d}/${name}
        COMMAND ${CMAKE_COMMAND} -E touch ${gen}/check/d${d}/${name}.stamp
        DEPENDS ${BOIDS_GPU_GEN}/prelude${d}.glsl ${srcs}
        COMMENT "Validating shaders/${name} (dimension ${d}) with glslangValidator"
        VERBATIM)
      list(APPEND stamps ${gen}/check/d${d}/${name}.stamp)
    endforeach()
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
