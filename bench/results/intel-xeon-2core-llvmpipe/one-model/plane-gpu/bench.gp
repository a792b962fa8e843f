# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
# gpu: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s3 << EOD
100000 37.2067 36.8147 37.8311 372.067 1 NaN
EOD
# gpu: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g3 << EOD
100000 0.0103647 0.680927 0.302789 0.726364 0 35.405
EOD
# gpu-det: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s4 << EOD
100000 38.8427 38.2066 39.5854 388.427 1 NaN
EOD
# gpu-det: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g4 << EOD
100000 0.0107377 0.735002 0.302868 0.783545 1.48925 36.2032
EOD
# gpu@baseline: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s10 << EOD
100000 39.3303 38.6429 40.2924 393.303 1 NaN
EOD
# gpu@baseline: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g10 << EOD
100000 0.01218 0.684582 0.298312 0.732499 0 35.831
EOD
# gpu-det@baseline: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s11 << EOD
100000 40.4163 39.7396 40.7665 404.163 1 NaN
EOD
# gpu-det@baseline: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g11 << EOD
100000 0.0140088 0.76356 0.327872 0.796319 1.55845 39.291
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.31-1.51, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [66666.7:150000]
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
unset label
plot $s3 using 1:2:3:4 with yerrorbars ps 0 lc 4 notitle, \
    $s3 using 1:($2) with lines lw 2 lc 4 dt 1 title 'gpu' noenhanced, \
    $s3 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:2:3:4 with yerrorbars ps 0 lc 5 notitle, \
    $s4 using 1:($2) with lines lw 2 lc 5 dt 1 title 'gpu-det' noenhanced, \
    $s4 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 5 notitle, \
    $s10 using 1:2:3:4 with yerrorbars ps 0 lc 4 notitle, \
    $s10 using 1:($2) with lines lw 2 lc 4 dt 2 title 'gpu@baseline' noenhanced, \
    $s10 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s10 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s11 using 1:2:3:4 with yerrorbars ps 0 lc 5 notitle, \
    $s11 using 1:($2) with lines lw 2 lc 5 dt 2 title 'gpu-det@baseline' noenhanced, \
    $s11 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s11 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 5 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_cost.svg'
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.31-1.51, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [66666.7:150000]
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
unset label
plot $s3 using 1:($5) with lines lw 2 lc 4 dt 1 title 'gpu' noenhanced, \
    $s3 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:($5) with lines lw 2 lc 5 dt 1 title 'gpu-det' noenhanced, \
    $s4 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 5 notitle, \
    $s10 using 1:($5) with lines lw 2 lc 4 dt 2 title 'gpu@baseline' noenhanced, \
    $s10 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s10 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s11 using 1:($5) with lines lw 2 lc 5 dt 2 title 'gpu-det@baseline' noenhanced, \
    $s11 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s11 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 5 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_stages.svg'
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.31-1.51, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
unset title
unset logscale
unset label
set autoscale x
set format x '%g'
set multiplot layout 1,2 title 'GPU time per stage (CPU clock, glFinish around each stage) - llvmpipe (LLVM 15.0.6, 256 bits)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid y
set key outside bottom center horizontal
set ylabel 'ms per step'
set xlabel 'boids N'
set title 'gpu'
plot $g3 using 2:xtic(1) title 'clear', \
    $g3 using 3:xtic(1) title 'count', \
    $g3 using 4:xtic(1) title 'scan', \
    $g3 using 5:xtic(1) title 'scatter', \
    $g3 using 6:xtic(1) title 'sort', \
    $g3 using 7:xtic(1) title 'steer'
set title 'gpu-det'
plot $g4 using 2:xtic(1) title 'clear', \
    $g4 using 3:xtic(1) title 'count', \
    $g4 using 4:xtic(1) title 'scan', \
    $g4 using 5:xtic(1) title 'scatter', \
    $g4 using 6:xtic(1) title 'sort', \
    $g4 using 7:xtic(1) title 'steer'
unset multiplot
