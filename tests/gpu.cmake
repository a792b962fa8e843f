# GPU tests (included from tests/CMakeLists.txt). They run on llvmpipe in CI; exit code 77
# (no GL 4.3 context can be made at all) is a visible SKIP. Every run uses a debug context
# and checks GL errors after each stage.

add_executable(gpu_test gpu/gpu_test.c)
target_link_libraries(gpu_test PRIVATE boids_gpu)
add_test(NAME gpu_deterministic_limits_bounded_grid_id_order COMMAND gpu_test)

# `boids verify` in-process, so that "no context" can be told apart from a failure.
add_executable(gpu_verify_test gpu/verify_test.c ${PROJECT_SOURCE_DIR}/src/app/cmd_verify.c
                               ${PROJECT_SOURCE_DIR}/src/app/verify_float.c)
target_include_directories(gpu_verify_test PRIVATE ${PROJECT_SOURCE_DIR}/src/app)
target_link_libraries(gpu_verify_test PRIVATE boids_gpu)

set(BOIDS_GPU_TESTS gpu_deterministic_limits_bounded_grid_id_order)
# Small N: every scenario that keeps its N (dense adds its cluster, n1/n2 fix theirs).
add_test(NAME gpu_verify_matches_cpu_ref_n1
         COMMAND gpu_verify_test -n 1 --scenarios random,walls,fov,predator-food --seeds 0)
add_test(NAME gpu_verify_matches_cpu_ref_n2
         COMMAND gpu_verify_test -n 2 --scenarios random,edges,walls,fov,predator-food --seeds 0)
add_test(NAME gpu_verify_matches_cpu_ref_n7 COMMAND gpu_verify_test -n 7 --seeds 0)
# N = 1000: all scenarios and the order curves (classic, 12 seeds, 300 steps).
add_test(NAME gpu_verify_matches_cpu_ref_n1000_and_order_curves COMMAND gpu_verify_test -n 1000)
add_test(NAME gpu_verify_matches_cpu_ref_n1000_deterministic
         COMMAND gpu_verify_test -n 1000 --deterministic --scenarios random,dense,edges --seeds 0)
# N = 20000 at the lab density (1500 boids in 900 x 560, the world scaled by sqrt(20000/1500)),
# one random scenario: cpu-ref and the calibration are O(N^2).
add_test(NAME gpu_verify_matches_cpu_ref_n20000
         COMMAND gpu_verify_test -n 20000 --set width=3286 --set height=2045 --scenarios random
                 --seeds 0)
list(APPEND BOIDS_GPU_TESTS gpu_verify_matches_cpu_ref_n1 gpu_verify_matches_cpu_ref_n2
     gpu_verify_matches_cpu_ref_n7 gpu_verify_matches_cpu_ref_n1000_and_order_curves
     gpu_verify_matches_cpu_ref_n1000_deterministic gpu_verify_matches_cpu_ref_n20000)
set_tests_properties(${BOIDS_GPU_TESTS} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
