# SPDX-License-Identifier: MIT
"""The viewer's videos (src/app/render/video.c, src/app/viewer/view_record.c), under Xvfb:

view_records_in_real_time_the_file_lasts_the_recording
    `--record` keeps time: the viewer is stopped by SIGTERM a measured time after it says it
    records, and the file (ffprobe) lasts that long, whether the viewer draws faster than the
    video's rate (frames dropped) or slower (frames held). (`--record-every-frame`, one video
    frame per frame drawn and the factor said: view_test.py's
    view_records_its_frames_to_a_video.)
render_writes_a_video_through_the_viewers_writer
    `boids render -o FILE.mp4` sends its frames through the same writer (render/video.c),
    one video frame per frame at --fps: the file has every frame and lasts frames / fps; a
    rate that is not a whole number is refused, nothing written.
view_streams_live_to_udp_received_at_its_size
    `--stream udp://127.0.0.1:PORT`: a receiver (ffmpeg) reading that port gets H.264 frames
    of the window's size showing the flock; bad targets are refused before the window opens.

Run as video_test.py BOIDS TEST."""
import json
import os
import shutil
import signal
import subprocess
import time

import view_harness
from view_harness import BOIDS, XVFB, check, need_xvfb, run
import harness
import png


def need_ffmpeg():
    if not shutil.which("ffmpeg") or not shutil.which("ffprobe"):
        harness.skip("ffmpeg or ffprobe not found (Debian package ffmpeg)")


def probe(path):
    """(width, height, frames, duration in seconds) of a video's first stream."""
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                        "-show_entries", "stream=width,height,nb_read_frames:format=duration",
                        "-of", "json", path], capture_output=True, text=True, timeout=120)
    if r.returncode:
        return None
    j = json.loads(r.stdout)
    s = j["streams"][0]
    return s["width"], s["height"], int(s["nb_read_frames"]), float(j["format"]["duration"])


def record_for(tmp, seconds, args):
    """`boids view ARGS --stats` under Xvfb, stopped by SIGTERM `seconds` after it says it
    records. Returns (the time from that line to SIGTERM, stderr, the --stats columns)."""
    pidfile = os.path.join(tmp, "pid")
    err_path = os.path.join(tmp, "err.txt")
    with open(err_path, "w") as err:
        viewer = subprocess.Popen(
            XVFB + ["sh", "-c", f'echo $$ > {pidfile}; exec "$0" "$@"', BOIDS, "view",
                    *args, "--stats"], stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        up = harness.wait_for(err_path, "recording ", 120)
        t0 = time.monotonic()
        check(up, "the viewer never said it records")
        time.sleep(seconds)
        with open(pidfile) as f:
            os.kill(int(f.read()), signal.SIGTERM)
        span = time.monotonic() - t0
        out, _ = viewer.communicate(timeout=200)
    finally:
        if viewer.poll() is None:
            viewer.kill()
    with open(err_path) as f:
        err = f.read()
    check(viewer.returncode == 0, f"exit {viewer.returncode}: {err[-2000:]}")
    return span, err, harness.view_stats(out)


def test_view_records_in_real_time_the_file_lasts_the_recording(tmp):
    need_xvfb()
    need_ffmpeg()
    # Two flocks: 300 boids drawn faster than 10 video frames a second (frames dropped), and
    # 20,000 drawn slower than 60 (frames held: llvmpipe on this machine draws 20,000 boids
    # at 320 x 200 a few to 20 times a second; the test says which case each run was).
    for n, fps in ((300, 10), (20000, 60)):
        video = os.path.join(tmp, f"real-{n}.mp4")
        span, err, s = record_for(tmp, 5.0, ["-n", str(n), "--size", "320x200", "--no-hud",
                                             "--no-panel", "--video-fps", str(fps), "--record",
                                             video])
        got = probe(video)
        check(got is not None and got[:2] == (320, 200), f"n={n}: ffprobe says {got}")
        drawn = s["frames"] / s["seconds"]
        # The file lasts from the first frame drawn after "recording" to the frame under
        # way at SIGTERM, held to the close, within one slot (1/fps) of the grid. It ends
        # after the line was read (0.2 s polling, then sleep) and starts with the first frame
        # after it: one frame time (1 / drawn) and the 0.2 s polling either way, and two
        # slots for the grid's rounding at both ends.
        tol = 0.2 + 2.0 / drawn + 2.0 / fps
        check(abs(got[3] - span) <= tol,
              f"n={n}: the video lasts {got[3]:.3f} s for {span:.3f} s of recording "
              f"(tolerance {tol:.3f} s; {drawn:.1f} frames drawn a second)")
        check(got[2] <= fps * got[3] + 1, f"n={n}: {got[2]} frames in {got[3]:.3f} s at {fps}")
        print(f"ok: {n} boids drawn at {drawn:.1f} a second, video at {fps}: {got[2]} frames, "
              f"{got[3]:.3f} s for {span:.3f} s recorded")
    check(not [f for f in os.listdir(tmp) if ".tmp" in f], "temporary files left")


def test_render_writes_a_video_through_the_viewers_writer(tmp):
    need_ffmpeg()
    video = os.path.join(tmp, "film.mp4")
    r = run(["render", "-n", "300", "--frames", "12", "--fps", "24", "--size", "320x200",
             "-o", video])
    check(r.returncode == 0, f"render -o {video}: exit {r.returncode}", r)
    got = probe(video)
    # 12 frames at 24 a second: 0.5 s; the container rounds times to milliseconds.
    check(got is not None and got[:3] == (320, 200, 12) and abs(got[3] - 0.5) <= 0.002,
          f"render -o film.mp4: ffprobe says {got}", r)
    bad = os.path.join(tmp, "bad.mp4")
    r = run(["render", "--frames", "2", "--fps", "29.97", "-o", bad])
    check(r.returncode == 2 and "--fps 29.97" in r.stderr and not os.path.exists(bad),
          "--fps 29.97 for a video not refused", r)
    check(not [f for f in os.listdir(tmp) if ".tmp" in f], "temporary files left")
    print(f"ok: render -o film.mp4: {got[2]} frames, {got[3]:.3f} s; --fps 29.97 exit 2")


def test_view_streams_live_to_udp_received_at_its_size(tmp):
    need_xvfb()
    need_ffmpeg()
    port = harness.free_udp_port()
    url = f"udp://127.0.0.1:{port}"
    last = os.path.join(tmp, "received.png")
    # The receiver listens first and decodes 20 frames: a CRC line each (framecrc: the
    # decoded frame's size in bytes, 320 x 200 in yuv420p is 96,000) and the last as a PNG.
    # It gives up 20 s after the stream stops.
    rx = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-i", url + "?timeout=20000000",
                           "-map", "0:v", "-frames:v", "20", "-f", "framecrc", "-",
                           "-map", "0:v", "-frames:v", "20", "-update", "1", last],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        # In real time the stream carries video-fps frames a second, however fast the 400
        # frames are drawn: on a quiet machine they take 0.7 s, which at 30 a second is 21
        # video frames, too few for a receiver that may join a frame or two late. At 120 a
        # second the same 0.7 s carries 84, four times what the receiver reads.
        r = run(["view", "-n", "2000", "--size", "320x200", "--frames", "400", "--no-hud",
                 "--no-panel", "--video-fps", "120", "--stream", url + "?pkt_size=1316"],
                xvfb=True)
        rx_out, rx_err = rx.communicate(timeout=120)
    finally:
        if rx.poll() is None:
            rx.kill()
    check(r.returncode == 0, f"--stream: exit {r.returncode}", r)
    check("streamed" in r.stderr and url in r.stderr, "--stream: no closing line", r)
    frames = [x.split(",") for x in rx_out.splitlines() if x and not x.startswith("#")]
    check(rx.returncode == 0 and len(frames) == 20 and
          all(int(f[4]) == 320 * 200 * 3 // 2 for f in frames) and os.path.exists(last),
          f"the receiver got {len(frames)} frames (exit {rx.returncode}): {rx_out[-500:]} "
          f"{rx_err[-1000:]}", r)
    w, h, ch, rows = png.read(last)
    lit = png.count_not_background(w, h, ch, rows)
    check((w, h) == (320, 200) and lit > 200, f"received {w}x{h}, {lit} lit pixels", r)
    print(f"ok: {url}: 20 frames received, {w}x{h}, {lit} pixels lit")
    # Bad targets: an output protocol ffmpeg lacks, a missing device; exit 2, one line.
    for target, words in (("nosuch://127.0.0.1:1", "no output protocol"),
                          ("/dev/video99", "no writable video device")):
        r = run(["view", "--frames", "2", "--stream", target], xvfb=True)
        check(r.returncode == 2 and words in r.stderr and target in r.stderr
              and len(r.stderr.strip().splitlines()) == 1, f"--stream {target} not refused", r)
    print("ok: bad --stream targets exit 2")


view_harness.main(globals())
