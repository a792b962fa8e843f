# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
# gpu: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s3 << EOD
100000 42.2919 40.4901 43.2241 422.919 1 NaN
EOD
# gpu: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g3 << EOD
100000 0.0492795 0.654449 1.66713 0.912413 0 36.1207
EOD
# gpu-det: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s4 << EOD
100000 39.9708 39.3059 50.3739 399.708 1 NaN
EOD
# gpu-det: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g4 << EOD
100000 0.0624602 0.742193 1.81742 1.18644 1.35807 39.4827
EOD
# gpu@baseline: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s10 << EOD
100000 38.7529 37.8367 41.6049 387.529 1 NaN
EOD
# gpu@baseline: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g10 << EOD
100000 0.0653337 0.71696 1.66899 0.964209 0 35.1107
EOD
# gpu-det@baseline: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s11 << EOD
100000 45.852 44.2548 52.9851 458.52 1 NaN
EOD
# gpu-det@baseline: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g11 << EOD
100000 0.0612272 0.819303 1.85425 1.12829 1.40602 39.4101
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.51-1.72, others up to 0.02 cores, 0 of 4 points untrusted (hollow)' noenhanced
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
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.51-1.72, others up to 0.02 cores, 0 of 4 points untrusted (hollow)' noenhanced
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
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.51-1.72, others up to 0.02 cores, 0 of 4 points untrusted (hollow)' noenhanced
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
