# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
$s0 << EOD
10000 57.1024 56.9595 57.2469 5710.24 0 0 0 0 0 0 1 0.051179
100000 6041.56 6036.24 6158.58 60415.6 0 0 0 0 0 0 1 0.0049301
EOD
$s1 << EOD
10000 2.92245 2.91466 2.92467 292.245 0 0 0 0 0 0 1 1
100000 29.7855 29.7592 29.8166 297.855 0 0 0 0 0 0 1 1
1000000 304.761 303.432 305.767 304.761 0 0 0 0 0 0 1 1
EOD
$s2 << EOD
10000 1.59788 1.58696 1.62843 159.788 0 0 0 0 0 0 1 1.82895
100000 16.4206 16.4014 16.473 164.206 0 0 0 0 0 0 1 1.81391
1000000 169.054 168.771 169.92 169.054 0 0 0 0 0 0 1 1.80275
EOD
$s3 << EOD
10000 4.52282 4.12588 5.04765 452.282 0.00358169 0.111239 0.282442 0.121827 0 3.55796 1 0.646156
100000 35.5014 35.3848 36.2686 355.014 0.0356625 0.657497 1.58492 0.868828 0 32.7008 1 0.838994
1000000 354.581 353.121 354.988 354.581 0.65754 7.02718 15.6982 11.5619 0 317.123 1 0.859495
EOD
$s4 << EOD
10000 4.31913 4.26508 4.35372 431.913 0.00415953 0.122715 0.292812 0.15138 0.183473 3.60719 1 0.676628
100000 36.7017 36.6741 36.8966 367.017 0.0377877 0.691964 1.58962 0.869622 1.19563 32.2067 1 0.811556
1000000 366.753 365.701 368.302 366.753 0.546495 7.07367 15.893 12.5864 11.627 316.292 1 0.830969
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 0.84-1.68, others up to 0.03 cores, 0 of 14 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
plot $s0 using 1:2:3:4 with yerrorbars ps 0 lc 1 notitle, \
    $s0 using 1:($2) with lines lw 2 lc 1 dt 1 title 'cpu-ref', \
    $s0 using 1:($12 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($12 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:2:3:4 with yerrorbars ps 0 lc 2 notitle, \
    $s1 using 1:($2) with lines lw 2 lc 2 dt 1 title 'cpu-1t', \
    $s1 using 1:($12 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($12 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:2:3:4 with yerrorbars ps 0 lc 3 notitle, \
    $s2 using 1:($2) with lines lw 2 lc 3 dt 1 title 'cpu-all', \
    $s2 using 1:($12 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($12 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:2:3:4 with yerrorbars ps 0 lc 4 notitle, \
    $s3 using 1:($2) with lines lw 2 lc 4 dt 1 title 'gpu', \
    $s3 using 1:($12 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($12 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:2:3:4 with yerrorbars ps 0 lc 5 notitle, \
    $s4 using 1:($2) with lines lw 2 lc 5 dt 1 title 'gpu-det', \
    $s4 using 1:($12 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($12 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 5 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_cost.svg'
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 0.84-1.68, others up to 0.03 cores, 0 of 14 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
plot $s0 using 1:($5) with lines lw 2 lc 1 dt 1 title 'cpu-ref', \
    $s0 using 1:($12 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($12 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:($5) with lines lw 2 lc 2 dt 1 title 'cpu-1t', \
    $s1 using 1:($12 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($12 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:($5) with lines lw 2 lc 3 dt 1 title 'cpu-all', \
    $s2 using 1:($12 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($12 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:($5) with lines lw 2 lc 4 dt 1 title 'gpu', \
    $s3 using 1:($12 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($12 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:($5) with lines lw 2 lc 5 dt 1 title 'gpu-det', \
    $s4 using 1:($12 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($12 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 5 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_speedup.svg'
set title 'boids-bench: speedup against cpu-1t of this build - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 0.84-1.68, others up to 0.03 cores, 0 of 14 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'time of cpu-1t / time of the backend (median)'
unset label
set label '' at first 1000000, graph 0.030 point pt 2 ps 1.5 lc 1
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#808080'
plot $s0 using 1:($13) with lines lw 2 lc 1 dt 1 title 'cpu-ref', \
    $s0 using 1:($12 > 0 ? ($13) : 1/0) with points pt 7 ps 0.8 lc 1 notitle, \
    $s0 using 1:($12 > 0 ? 1/0 : ($13)) with points pt 6 ps 1.5 lc 1 notitle, \
    $s1 using 1:($13) with lines lw 2 lc 2 dt 1 title 'cpu-1t', \
    $s1 using 1:($12 > 0 ? ($13) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($12 > 0 ? 1/0 : ($13)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s2 using 1:($13) with lines lw 2 lc 3 dt 1 title 'cpu-all', \
    $s2 using 1:($12 > 0 ? ($13) : 1/0) with points pt 7 ps 0.8 lc 3 notitle, \
    $s2 using 1:($12 > 0 ? 1/0 : ($13)) with points pt 6 ps 1.5 lc 3 notitle, \
    $s3 using 1:($13) with lines lw 2 lc 4 dt 1 title 'gpu', \
    $s3 using 1:($12 > 0 ? ($13) : 1/0) with points pt 7 ps 0.8 lc 4 notitle, \
    $s3 using 1:($12 > 0 ? 1/0 : ($13)) with points pt 6 ps 1.5 lc 4 notitle, \
    $s4 using 1:($13) with lines lw 2 lc 5 dt 1 title 'gpu-det', \
    $s4 using 1:($12 > 0 ? ($13) : 1/0) with points pt 7 ps 0.8 lc 5 notitle, \
    $s4 using 1:($12 > 0 ? 1/0 : ($13)) with points pt 6 ps 1.5 lc 5 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted', \
    NaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'
unset arrow

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_stages.svg'
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 0.84-1.68, others up to 0.03 cores, 0 of 14 points untrusted (hollow)' noenhanced
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
plot $s3 using 6:xtic(1) title 'clear', \
    $s3 using 7:xtic(1) title 'count', \
    $s3 using 8:xtic(1) title 'scan', \
    $s3 using 9:xtic(1) title 'scatter', \
    $s3 using 10:xtic(1) title 'sort', \
    $s3 using 11:xtic(1) title 'steer'
set title 'gpu-det'
plot $s4 using 6:xtic(1) title 'clear', \
    $s4 using 7:xtic(1) title 'count', \
    $s4 using 8:xtic(1) title 'scan', \
    $s4 using 9:xtic(1) title 'scatter', \
    $s4 using 10:xtic(1) title 'sort', \
    $s4 using 11:xtic(1) title 'steer'
unset multiplot
