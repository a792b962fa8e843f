# SPDX-License-Identifier: MIT
# Viewer and offscreen rendering tests (included from tests/CMakeLists.txt). The window
# tests run under Xvfb (xvfb-run, Debian xvfb) and are skipped without it.

# boids_view_py_tests(DRIVER TEST...): each TEST the test of that name of tests/view/DRIVER.
# `xvfb-run -a` picks a free display number racily: one Xvfb test at a time. The no-display
# test makes no GL context (tests/CMakeLists.txt: boids_gl_tests).
function(boids_view_py_tests driver)
  foreach(t ${ARGN})
    add_test(NAME ${t}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/${driver}
                     $<TARGET_FILE:boids> ${t})
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
    if(t MATCHES "^view_|^predator_|^osc_")
      set_tests_properties(${t} PROPERTIES RESOURCE_LOCK xvfb)
    endif()
    if(NOT t STREQUAL "no_display_says_so_exit_2")
      boids_gl_tests(${t})
    endif()
  endforeach()
endfunction()

boids_view_py_tests(view_test.py
  view_starts_draws_boids_and_closes_cleanly
  predator_pushes_boids_away_food_draws_them_in
  view_keys_and_panel_change_the_live_settings
  view_follow_marks_neighbours_cpu_and_gpu
  view_fills_the_window_and_its_panel_scrolls
  view_speaks_every_model_with_linked_speeds
  view_clean_hides_every_overlay
  view_hud_has_no_box_over_the_flock
  view_records_its_frames_to_a_video
  view_caps_the_steps_each_frame
  view_murmuration_in_every_preset_list
  render_world_takes_the_frame_shape
  render_look_from_config_trails_and_density
  render_draws_obstacles_and_points
  render_colours_each_species
  render_writes_pngs_with_boids
  render_same_seed_same_frames_and_raw_rgba
  no_display_says_so_exit_2)

# The viewer's videos (tests/view/video_test.py): --record in real time (the file lasts as
# long as the recording), boids render -o FILE.mp4 through the same writer, --stream to a
# UDP receiver.
boids_view_py_tests(video_test.py
  view_records_in_real_time_the_file_lasts_the_recording
  render_writes_a_video_through_the_viewers_writer
  view_streams_live_to_udp_received_at_its_size)

# The viewer's first impression (tests/view/first_test.py): --warmup, the camera that frames
# the flock, the panel that fits 1280 x 800 and folds its groups, no pointer circle before
# the pointer moves, the HUD's panel over a dense flock.
boids_view_py_tests(first_test.py
  view_warmup_opens_on_a_flock_camera_frames_it
  view_panel_fits_1280x800_its_groups_fold
  view_pointer_waits_for_a_person_hud_backed_over_dense_flock)

# The viewer and renderer in 3-D (tests/view/view_box_test.py): the murmuration preset from
# two camera positions, the gpu backend drawn from its buffers, the predator's dives, the
# depth cue of a two-boid state, the scripted camera and its bad specs.
boids_view_py_tests(view_box_test.py
  view_murmuration_two_cameras_show_a_3d_flock
  view_gpu_backend_draws_3d_from_its_buffers
  view_murmuration_predator_dives_every_period
  view_panel_offers_murmuration_in_3d
  render_murmuration_dark_birds_on_a_pale_sky
  render_3d_backend_gpu_on_request_cpu_on_software
  render_depth_cue_far_boid_dimmer_and_smaller
  render_camera_orbit_writes_frames_bad_specs_exit_2)

# The viewer's GL programs on an EGL context (no window; tests/view/view_fixture.h):
#   follow_test  the follow pass (src/app/render/follow.c) marks exactly the step's
#                neighbours, in the plane and the box, on every backend whose marks it makes;
#   render_test  the box's drawing on a synthetic state: the depth cue (fog, perspective),
#                the box, and two camera positions (src/app/render/render.c);
#   scene_test   the scene on the gpu backend in 3-D: drawn from the backend's buffers, with
#                the previous velocities put in their order after each step (render_scene.c).
foreach(prog follow render scene)
  add_executable(${prog}_test view/${prog}_test.c)
  target_link_libraries(${prog}_test PRIVATE boids_app_render)
  target_include_directories(${prog}_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/gpu)
endforeach()
add_test(NAME follow_marks_each_backends_neighbours_and_picks COMMAND follow_test)
add_test(NAME render_box_far_boids_dimmer_and_smaller_box_drawn COMMAND render_test)
add_test(NAME scene_gpu_box_previous_velocities_follow_each_boid COMMAND scene_test)
set(BOIDS_VIEW_GL_TESTS follow_marks_each_backends_neighbours_and_picks
    render_box_far_boids_dimmer_and_smaller_box_drawn
    scene_gpu_box_previous_velocities_follow_each_boid)
set_tests_properties(${BOIDS_VIEW_GL_TESTS} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
boids_gl_tests(${BOIDS_VIEW_GL_TESTS})

# The 3-D camera's maths, no GL needed (src/app/render/camera3.c).
boids_c_test(camera3_test camera3_orbit_view_matrix_and_fly_move_as_documented view/camera3_test.c
             LINK boids_app_render)

# The key table of docs/viewer.md is the viewer's own (src/app/viewer/view_keys.c), printed by a
# small program linked with the viewer.
add_executable(view_keys_markdown view/keys_markdown.c)
target_link_libraries(view_keys_markdown PRIVATE boids_app_viewer)
add_test(NAME docs_viewer_key_table_is_the_viewers
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/keys_doc_test.py
                 $<TARGET_FILE:view_keys_markdown> ${PROJECT_SOURCE_DIR}/docs/viewer.md)

# OSC remote control of a running viewer (tests/view/osc_test.py, liblo-tools' oscsend and
# oscdump).
add_test(NAME osc_changes_parameters_presets_points_and_sends_observables
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/osc_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(osc_changes_parameters_presets_points_and_sends_observables PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(osc_changes_parameters_presets_points_and_sends_observables)

# Hostile OSC and TUIO input refused with a reply and a line, the viewer unchanged
# (tests/view/osc_hostile_test.py: the OSC part of the hostile-input table).
add_test(NAME osc_hostile_input_refused_with_a_reply_viewer_unchanged
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/osc_hostile_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(osc_hostile_input_refused_with_a_reply_viewer_unchanged PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(osc_hostile_input_refused_with_a_reply_viewer_unchanged)

# Control surfaces: /boids/norm faders and numeric replies, the map's every key answered, a
# config's relative places kept across a preset (tests/view/osc_norm_test.py).
add_test(NAME osc_faders_get_numbers_back_relative_places_kept_across_presets
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/osc_norm_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(osc_faders_get_numbers_back_relative_places_kept_across_presets PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(osc_faders_get_numbers_back_relative_places_kept_across_presets)

# TUIO cursors on the OSC port as predators of the interaction table (tests/view/tuio_test.py).
add_test(NAME tuio_cursors_become_predators_and_leave_with_alive
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/tuio_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(tuio_cursors_become_predators_and_leave_with_alive PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(tuio_cursors_become_predators_and_leave_with_alive)

# TUIO calibration (config and options) and markers in the clean view (tests/view/tuio_cal_test.py).
add_test(NAME tuio_calibration_offset_scale_flip_and_markers_in_the_clean_view
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/tuio_cal_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(tuio_calibration_offset_scale_flip_and_markers_in_the_clean_view PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(tuio_calibration_offset_scale_flip_and_markers_in_the_clean_view)

# Left alone for weeks: SIGHUP reloads the config, attract mode, SIGTERM closes cleanly
# (tests/view/life_test.py).
add_test(NAME view_sighup_reloads_attract_mode_sigterm_exits_0
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/view/life_test.py
                 $<TARGET_FILE:boids>)
set_tests_properties(view_sighup_reloads_attract_mode_sigterm_exits_0 PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK xvfb)
boids_gl_tests(view_sighup_reloads_attract_mode_sigterm_exits_0)

# Replays of a recorded trajectory (tests/view/replay_test.py): the window's screenshot of
# a frame against `boids render --replay`'s, forwards, backwards, a frame back and stopping
# at the end; the box's replay drawn and moving; the recorded run's obstacles and points
# drawn; bad trajectories, sidecars and options.
boids_view_py_tests(replay_test.py
  view_replay_window_shows_the_recorded_frames_forwards_and_back
  view_replay_box_renders_the_flock_and_moves
  replay_draws_the_recorded_runs_obstacles_and_points
  replay_bad_input_exit_2_naming_what)
