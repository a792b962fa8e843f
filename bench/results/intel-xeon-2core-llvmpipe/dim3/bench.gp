# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
$s0 << EOD
10000 120.26 119.347 122.417 12026 0 0 0 0 0 0 0 0.0244847
EOD
$s1 << EOD
10000 2.94453 2.9438 2.94486 294.453 0 0 0 0 0 0 1 1
100000 32.6787 30.5523 41.3079 326.787 0 0 0 0 0 0 1 1
1000000 319.906 309.422 325.35 319.906 0 0 0 0 0 0 1 1
EOD
$s2 << EOD
10000 2.59959 2.42531 2.85297 259.959 0 0 0 0 0 0 0 1.13269
100000 35.9557 35.8649 36.2991 359.557 0 0 0 0 0 0 0 0.908859
1000000 323.918 277.612 329.752 323.918 0 0 0 0 0 0 0 0.987615
EOD
$s3 << EOD
10000 3.87431 3.85864 6.25899 387.431 0.00382697 0.10615 0.259023 0.122407 0 3.3698 0 0.760016
100000 43.5502 40.2543 52.7171 435.502 0.068333 2.0798 3.68023 3.53424 0 82.9139 0 0.750368
1000000 658.088 657.713 658.826 658.088 0.556381 14.2935 31.619 25.452 0 597.702 0 0.486114
EOD
$s4 << EOD
10000 4.10202 4.06951 4.12896 410.202 0.00447903 0.105341 0.263157 0.128951 0.167217 3.46616 1 0.717826
100000 80.4779 68.6337 102.395 804.779 0.0491833 1.24258 2.98055 1.85027 2.41239 60.1068 0 0.406057
1000000 681.334 605.714 693.089 681.334 0.558154 14.1802 30.6663 23.5282 23.5903 592.738 0 0.469529
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 3.12-4.04, others up to 1.24 cores, 9 of 13 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
unset label
set label '' at first 100000, graph 0.030 point pt 2 ps 1.5 lc 1
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
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 3.12-4.04, others up to 1.24 cores, 9 of 13 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
unset label
set label '' at first 100000, graph 0.030 point pt 2 ps 1.5 lc 1
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
set title 'boids-bench: speedup against cpu-1t of this build - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 3.12-4.04, others up to 1.24 cores, 9 of 13 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xrange [6666.67:1.5e+06]
set xlabel 'boids N'
set ylabel 'time of cpu-1t / time of the backend (median)'
unset label
set label '' at first 100000, graph 0.030 point pt 2 ps 1.5 lc 1
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
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / Intel(R) Xeon(R) Processor'."\n".'load 3.12-4.04, others up to 1.24 cores, 9 of 13 points untrusted (hollow)' noenhanced
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
