# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
# cpu-ref: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s0 << EOD
1000 0.713027 0.706761 0.747119 713.027 1 0.0793929
10000 45.0757 44.0027 47.9717 4507.57 1 0.0106605
100000 4336.3 4213.3 4503.56 43363 1 0.00101933
EOD
# cpu-1t: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s1 << EOD
1000 0.0566093 0.0516747 0.0788408 56.6093 1 1
10000 0.48053 0.476053 0.49192 48.053 1 1
100000 4.42011 4.33153 4.4358 44.2011 1 1
1000000 44.8193 44.076 46.3247 44.8193 1 1
EOD
# cpu-all: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s2 << EOD
1000 0.0511075 0.0497694 0.0534286 51.1075 1 1.10765
10000 0.276702 0.268702 0.287244 27.6702 1 1.73663
100000 2.29939 2.28413 2.38491 22.9939 1 1.92229
1000000 23.2113 22.7981 28.3237 23.2113 1 1.93093
EOD
# gpu: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s3 << EOD
1000 0.521702 0.483866 0.752895 521.702 1 0.108509
10000 6.45638 4.40432 7.70181 645.638 1 0.0744271
100000 36.9676 36.4411 37.2242 369.676 1 0.119567
1000000 367.397 362.525 369.078 367.397 1 0.121991
EOD
# gpu: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g3 << EOD
1000 0.00136183 0.0330741 0.0369305 0.0350531 0 0.419716
10000 0.00254693 0.134884 0.147457 0.134577 0 4.21505
100000 0.0102885 0.662 0.29801 0.688635 0 35.2891
1000000 0.064093 6.56488 1.51851 8.06946 0 347.827
EOD
# gpu-det: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s4 << EOD
1000 0.655525 0.596343 0.676422 655.525 1 0.0863571
10000 4.68185 4.6269 4.89838 468.185 1 0.102637
100000 37.7381 37.4076 38.0098 377.381 1 0.117126
1000000 380.718 374.02 382.319 380.718 1 0.117723
EOD
# gpu-det: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g4 << EOD
1000 0.00130413 0.0314774 0.0355756 0.0326388 0.0560643 0.377056
10000 0.00407113 0.140622 0.157411 0.144121 0.252723 4.80636
100000 0.013824 0.655396 0.28606 0.726408 1.36834 34.71
1000000 0.064293 6.45122 1.56677 8.08649 13.71 352.428
EOD
# gpu-fused: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s5 << EOD
1000 0.448502 0.436182 0.484458 448.502 1 0.126219
10000 4.41687 4.26047 4.53544 441.687 1 0.108794
100000 35.9152 35.6447 36.2265 359.152 1 0.123071
1000000 362.556 355.29 363.558 362.556 1 0.12362
EOD
# gpu-fused: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g5 << EOD
1000 0.00217453 0.0005028 0.0387531 0.0355845 0 0.388805
10000 0.00138463 0.000114767 0.130606 0.121958 0 4.06549
100000 0.00908433 0.000473667 0.298014 0.691286 0 35.4914
1000000 0.066223 0.000130001 1.53086 8.03654 0 348.008
EOD
# gpu-fused-det: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s6 << EOD
1000 0.519286 0.504882 0.555868 519.286 1 0.109014
10000 4.47853 4.43828 4.75995 447.853 1 0.107296
100000 37.8825 37.4194 39.3248 378.825 1 0.11668
1000000 374.413 372.38 376.549 374.413 1 0.119706
EOD
# gpu-fused-det: N clear_ms count_ms scan_ms scatter_ms sort_ms steer_ms
$g6 << EOD
1000 0.002183 0.000485167 0.0376639 0.0338277 0.0555655 0.376438
10000 0.00245737 0.0001203 0.137894 0.127478 0.22913 4.19435
100000 0.0100508 0.000484333 0.296686 0.744523 1.39809 35.1108
1000000 0.063338 0.000128 1.56455 8.00301 13.6937 351.57
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.75-2.04, others up to 0.10 cores, 0 of 27 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [666.667:1.5e+06]
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
plot $s0 using 1:2:3:4 with yerrorbars ps 0 lc 1 notitle, \
    $s0 using 1:($2) with lines lw 2 lc 1 dt 1 title 'cpu-ref' noenhanced, \
    $s0 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:2:3:4 with yerrorbars ps 0 lc 2 notitle, \
    $s1 using 1:($2) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:2:3:4 with yerrorbars ps 0 lc 3 notitle, \
    $s2 using 1:($2) with lines lw 2 lc 3 dt 1 title 'cpu-all' noenhanced, \
    $s2 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:2:3:4 with yerrorbars ps 0 lc 4 notitle, \
    $s3 using 1:($2) with lines lw 2 lc 4 dt 1 title 'gpu' noenhanced, \
    $s3 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:2:3:4 with yerrorbars ps 0 lc 5 notitle, \
    $s4 using 1:($2) with lines lw 2 lc 5 dt 1 title 'gpu-det' noenhanced, \
    $s4 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 5 notitle, \
    $s5 using 1:2:3:4 with yerrorbars ps 0 lc 6 notitle, \
    $s5 using 1:($2) with lines lw 2 lc 6 dt 1 title 'gpu-fused' noenhanced, \
    $s5 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 6 notitle, \
    $s5 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 6 notitle, \
    $s6 using 1:2:3:4 with yerrorbars ps 0 lc 7 notitle, \
    $s6 using 1:($2) with lines lw 2 lc 7 dt 1 title 'gpu-fused-det' noenhanced, \
    $s6 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 7 notitle, \
    $s6 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 7 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_cost.svg'
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.75-2.04, others up to 0.10 cores, 0 of 27 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [666.667:1.5e+06]
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
plot $s0 using 1:($5) with lines lw 2 lc 1 dt 1 title 'cpu-ref' noenhanced, \
    $s0 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:($5) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:($5) with lines lw 2 lc 3 dt 1 title 'cpu-all' noenhanced, \
    $s2 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:($5) with lines lw 2 lc 4 dt 1 title 'gpu' noenhanced, \
    $s3 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:($5) with lines lw 2 lc 5 dt 1 title 'gpu-det' noenhanced, \
    $s4 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 5 notitle, \
    $s5 using 1:($5) with lines lw 2 lc 6 dt 1 title 'gpu-fused' noenhanced, \
    $s5 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 6 notitle, \
    $s5 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 6 notitle, \
    $s6 using 1:($5) with lines lw 2 lc 7 dt 1 title 'gpu-fused-det' noenhanced, \
    $s6 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 7 notitle, \
    $s6 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 7 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_speedup.svg'
set title 'boids-bench: speedup against cpu-1t of this build - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.75-2.04, others up to 0.10 cores, 0 of 27 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [666.667:1.5e+06]
set xlabel 'boids N'
set ylabel 'time of cpu-1t / time of the backend (median)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#808080'
plot $s0 using 1:($7) with lines lw 2 lc 1 dt 1 title 'cpu-ref' noenhanced, \
    $s0 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:($7) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:($7) with lines lw 2 lc 3 dt 1 title 'cpu-all' noenhanced, \
    $s2 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:($7) with lines lw 2 lc 4 dt 1 title 'gpu' noenhanced, \
    $s3 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:($7) with lines lw 2 lc 5 dt 1 title 'gpu-det' noenhanced, \
    $s4 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 5 notitle, \
    $s5 using 1:($7) with lines lw 2 lc 6 dt 1 title 'gpu-fused' noenhanced, \
    $s5 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 6 notitle, \
    $s5 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 6 notitle, \
    $s6 using 1:($7) with lines lw 2 lc 7 dt 1 title 'gpu-fused-det' noenhanced, \
    $s6 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 7 notitle, \
    $s6 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 7 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'
unset arrow

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_stages.svg'
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 1.75-2.04, others up to 0.10 cores, 0 of 27 points untrusted (hollow)' noenhanced
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
