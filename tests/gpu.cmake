# SPDX-License-Identifier: MIT
# GPU tests (included from tests/CMakeLists.txt). They run on llvmpipe in CI; exit code 77
# (no GL 4.3 context can be made at all) is a visible SKIP. Every run uses a debug context
# and checks GL errors after each stage.

# The pipeline in 2-D and 3-D against cpu-ref (neighbour sets, one step), deterministic bits,
# the state layout, id order, refusals; the plane's limits, bounded grid, split and variants.
boids_c_test(gpu_test gpu_matches_cpu_ref_deterministic_layout_limits_2d_3d gpu/gpu_test.c
             LINK boids_gpu)

# `boids verify` in-process, so that "no context" can be told apart from a failure.
add_executable(gpu_verify_test gpu/verify_test.c)
target_link_libraries(gpu_verify_test PRIVATE boids_app_commands)

# Seed 003 on the GPU: the three agents, topological ties and rings, the noise stream,
# deterministic Vicsek.
boids_c_test(gpu_lab_test gpu_vicsek_seed003_topological_ties_noise_deterministic
             gpu/gpu_lab_test.c LINK boids_gpu)

# Pinned golden state hashes of deterministic mode, compared on llvmpipe only (tests/golden.h).
boids_c_test(golden_gpu_test golden_hashes_gpu_deterministic_llvmpipe gpu/golden_gpu_test.c
             LINK boids_gpu)

# No boid enters an obstacle in 10,000 steps (deterministic; 2,000 fast: see the test). The
# sanitizer build runs 1,000 (200 fast), as the cpu obstacle test does: it looks for memory
# errors and undefined behaviour in the host's code, which every path of the test meets in its
# first steps (the steps themselves run in the driver, which is not instrumented).
if(BOIDS_SANITIZE)
  set(boids_gpu_obstacle_steps 1000)
  set(boids_gpu_sphere_steps 1000)
else()
  set(boids_gpu_obstacle_steps 10000)
  set(boids_gpu_sphere_steps 5000)
endif()
add_executable(gpu_obstacle_test gpu/obstacle_gpu_test.c)
target_include_directories(gpu_obstacle_test PRIVATE ${PROJECT_SOURCE_DIR}/src/core
                                                     ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(gpu_obstacle_test PRIVATE boids_gpu)
add_test(NAME gpu_obstacles_never_entered_${boids_gpu_obstacle_steps}_steps_deterministic_fast
         COMMAND gpu_obstacle_test 2 ${boids_gpu_obstacle_steps})

# The same test in 3-D: no boid enters a sphere (5,000 deterministic steps; 1,000 fast, 1,000
# Vicsek: see the test).
add_test(NAME gpu_spheres_never_entered_3d_deterministic_fast
         COMMAND gpu_obstacle_test 3 ${boids_gpu_sphere_steps})

# A driver's cut of a long loop (llvmpipe: 65,535 passes) is reported, never silent: the
# topological search in 2-D and 3-D, and a dense metric block (about 10 s on llvmpipe); and a
# topological search whose every boid walks far less is not cut.
boids_c_test(gpu_loop_cut_test gpu_loop_cut_reported_not_silent gpu/loop_cut_test.c LINK boids_gpu)

# Tile mode (src/core/tile.h): K = 2 and 3 tiles give the whole flock's bits, 2-D and 3-D,
# every boundary, Reynolds with the interaction table, Vicsek with noise, topological with
# k_in_vision; the host's row of a boid is the count stage's; BOIDS_EGL_DEVICE.
boids_c_test(gpu_tile_test gpu_tile_same_bits_as_whole_flock_rows_device gpu/gpu_tile_test.c
             LINK boids_gpu INCLUDE ${PROJECT_SOURCE_DIR}/src/core ${CMAKE_CURRENT_SOURCE_DIR})

set(BOIDS_GPU_TESTS gpu_loop_cut_reported_not_silent gpu_tile_same_bits_as_whole_flock_rows_device
    gpu_matches_cpu_ref_deterministic_layout_limits_2d_3d
    gpu_obstacles_never_entered_${boids_gpu_obstacle_steps}_steps_deterministic_fast
    gpu_spheres_never_entered_3d_deterministic_fast
    gpu_vicsek_seed003_topological_ties_noise_deterministic golden_hashes_gpu_deterministic_llvmpipe)
# Small N: every scenario that keeps its N (dense adds its cluster, n1/n2 fix theirs).
# Seed 003's scenarios (vicsek*, topological*) are in every run without --scenarios; at
# N = 7, topological k = 7 and k = 20 exceed N - 1 and take every candidate.
add_test(NAME gpu_verify_matches_cpu_ref_n1
         COMMAND gpu_verify_test -n 1 --scenarios
                 random,walls,fov,predator-food,vicsek,vicsek-open,vicsek-topological,topological
                 --seeds 0)
add_test(NAME gpu_verify_matches_cpu_ref_n2
         COMMAND gpu_verify_test -n 2 --scenarios
                 random,edges,walls,fov,predator-food,vicsek,vicsek-walls,vicsek-topological,topological,topological-vision
                 --seeds 0)
add_test(NAME gpu_verify_matches_cpu_ref_n7 COMMAND gpu_verify_test -n 7 --seeds 0)
# N = 1000: all scenarios and the order curves (the lab preset's Reynolds flock, N 100 at its
# density, 12 seeds, 120 steps).
add_test(NAME gpu_verify_matches_cpu_ref_n1000_and_order_curves COMMAND gpu_verify_test -n 1000)
add_test(NAME gpu_verify_matches_cpu_ref_n1000_deterministic
         COMMAND gpu_verify_test -n 1000 --deterministic
                 --scenarios random,dense,edges,vicsek,vicsek-topological,topological,interact,vicsek-interact
                 --seeds 0)
# Every scenario run as the Vicsek model with topological neighbours (the dense cluster, the
# seams and corners, walls), and the Vicsek order curves (noise 2) against cpu-ref's. The 16
# edge boids of `edges` tie across the seams (0 and W are one point) and are decided against
# each choice of their tied neighbours (tests/verify_matrix_test.py runs N 7 and 300 too).
add_test(NAME gpu_verify_vicsek_topological_all_scenarios_n2000
         COMMAND gpu_verify_test -n 2000 --set model=vicsek --set neighbours=topological --seeds 0)
add_test(NAME gpu_verify_vicsek_order_curves
         COMMAND gpu_verify_test -n 300 --scenarios random --set model=vicsek --set noise=2)
# N = 20000 at the lab density (1500 boids in 900 x 560, the world scaled by sqrt(20000/1500)),
# one random scenario: cpu-ref and the calibration are O(N^2). Not under the sanitizers: its
# code is the N = 1000 runs' (which do run there), and instrumented cpu-ref at 4e8 pairs a
# step would double the sanitizer suite's longest test.
if(NOT BOIDS_SANITIZE)
  add_test(NAME gpu_verify_matches_cpu_ref_n20000
           COMMAND gpu_verify_test -n 20000 --set width=3286 --set height=2045 --scenarios random
                   --seeds 0)
  list(APPEND BOIDS_GPU_TESTS gpu_verify_matches_cpu_ref_n20000)
endif()
# Every pipeline variant but plain (the runs above): all scenarios at small N in both modes,
# and the order curves (120 steps: the fused variant differs from plain only from the
# second step on).
foreach(v fused)
  add_test(NAME gpu_verify_variant_${v}_n7 COMMAND gpu_verify_test -n 7 --seeds 0 --gpu-variant ${v})
  add_test(NAME gpu_verify_variant_${v}_n1000_and_order_curves
           COMMAND gpu_verify_test -n 1000 --gpu-variant ${v})
  add_test(NAME gpu_verify_variant_${v}_n1000_deterministic
           COMMAND gpu_verify_test -n 1000 --deterministic --seeds 0 --gpu-variant ${v})
  list(APPEND BOIDS_GPU_TESTS gpu_verify_variant_${v}_n7
       gpu_verify_variant_${v}_n1000_and_order_curves gpu_verify_variant_${v}_n1000_deterministic)
endforeach()
# 3-D with the interaction table's points and spheres: its scenarios at a small N (8 of the 15
# boids inside a sphere) and in deterministic mode.
add_test(NAME gpu_verify_3d_interact_n7
         COMMAND gpu_verify_test -n 7 --set dim=3 --scenarios interact,interact-walls,vicsek-interact
                 --seeds 0)
add_test(NAME gpu_verify_3d_interact_deterministic_n1000
         COMMAND gpu_verify_test -n 1000 --set dim=3 --deterministic
                 --scenarios interact,interact-walls,vicsek-interact --seeds 0)
list(APPEND BOIDS_GPU_TESTS gpu_verify_3d_interact_n7 gpu_verify_3d_interact_deterministic_n1000)
# Topological neighbours in a sparse world at small N, both models, 2-D and 3-D: the k nearest
# are far or (N <= k) every boid, so the search walks every cell of the grid, which the
# pipeline caps by N (a 3-D grid sized by the radius alone made llvmpipe cut the walk).
foreach(dim 2 3)
  foreach(n 7 50)
    add_test(NAME gpu_verify_topological_sparse_${dim}d_n${n}
             COMMAND gpu_verify_test -n ${n} --set dim=${dim}
                     --scenarios topological-sparse,vicsek-topological --seeds 0)
    add_test(NAME gpu_verify_vicsek_topological_sparse_${dim}d_n${n}
             COMMAND gpu_verify_test -n ${n} --set dim=${dim} --set model=vicsek
                     --scenarios topological-sparse --seeds 0)
    list(APPEND BOIDS_GPU_TESTS gpu_verify_topological_sparse_${dim}d_n${n}
         gpu_verify_vicsek_topological_sparse_${dim}d_n${n})
  endforeach()
endforeach()
list(APPEND BOIDS_GPU_TESTS gpu_verify_matches_cpu_ref_n1 gpu_verify_matches_cpu_ref_n2
     gpu_verify_matches_cpu_ref_n7 gpu_verify_matches_cpu_ref_n1000_and_order_curves
     gpu_verify_matches_cpu_ref_n1000_deterministic
     gpu_verify_vicsek_topological_all_scenarios_n2000 gpu_verify_vicsek_order_curves)
set_tests_properties(${BOIDS_GPU_TESTS} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
boids_gl_tests(${BOIDS_GPU_TESTS})

# shaders/rules.glsl function by function against rules.h in float, on edge cases: one test
# source (gpu/rules_glsl_test.c) and one case shader (gpu/rules_test.comp) over the dimension,
# compiled for the plane and for the box.
foreach(dim 2 3)
  add_library(gpu_rules_glsl_${dim}d OBJECT gpu/rules_glsl_test.c)
  target_compile_definitions(gpu_rules_glsl_${dim}d PRIVATE RULES_INSTANCE_DIM=${dim})
  # tests/gpu too: rules_instances.h includes the instance file (this test) by name.
  target_include_directories(gpu_rules_glsl_${dim}d PRIVATE ${PROJECT_SOURCE_DIR}/src/gpu
                                                            ${PROJECT_SOURCE_DIR}/src/core
                                                            ${CMAKE_CURRENT_SOURCE_DIR}/gpu)
  target_link_libraries(gpu_rules_glsl_${dim}d PRIVATE boids_gpu)
endforeach()
add_executable(gpu_rules_glsl_test gpu/rules_glsl_main.c)
target_link_libraries(gpu_rules_glsl_test PRIVATE gpu_rules_glsl_2d gpu_rules_glsl_3d boids_gpu)
add_test(NAME gpu_rules_glsl_match_rules_h_on_edge_cases_2d_3d
         COMMAND gpu_rules_glsl_test ${PROJECT_SOURCE_DIR}/shaders/rules.glsl
                 ${CMAKE_CURRENT_SOURCE_DIR}/gpu/rules_test.comp)
set_tests_properties(gpu_rules_glsl_match_rules_h_on_edge_cases_2d_3d PROPERTIES
                     SKIP_RETURN_CODE 77)
boids_gl_tests(gpu_rules_glsl_match_rules_h_on_edge_cases_2d_3d)
