# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
$b0 << EOD
1000 8.09258 7.96504 8.77994 8092.58 0 0 0 0 0 0
10000 841.419 821.725 918.157 84141.9 0 0 0 0 0 0
EOD
$b1 << EOD
1000 0.103863 0.101804 0.108366 103.863 0 0 0 0 0 0
10000 0.864287 0.852266 0.87253 86.4287 0 0 0 0 0 0
100000 8.57658 8.50838 8.61304 85.7658 0 0 0 0 0 0
1000000 79.1834 78.698 82.1758 79.1834 0 0 0 0 0 0
EOD
$b2 << EOD
1000 0.102536 0.100699 0.105561 102.536 0 0 0 0 0 0
10000 0.517976 0.503183 0.532197 51.7976 0 0 0 0 0 0
100000 4.68443 4.64312 4.80646 46.8443 0 0 0 0 0 0
1000000 42.4201 41.6331 43.2749 42.4201 0 0 0 0 0 0
EOD
$b3 << EOD
1000 0.644247 0.483548 1.01223 644.247 0.00114323 0.0397762 0.0519742 0.0500213 0 0.349332
10000 5.05465 3.74724 5.87027 505.465 0.00290583 0.205584 0.154118 0.171847 0 4.14612
100000 26.5333 26.3559 29.027 265.333 0.00846225 1.11543 0.471752 1.22853 0 36.1371
1000000 268.238 265.378 272.577 268.238 0.040736 7.29277 1.53157 7.55347 0 251.774
EOD
$b4 << EOD
1000 0.522352 0.499256 0.54868 522.352 0.000742433 0.0413423 0.0450699 0.0390708 0.0507124 0.33506
10000 4.92768 4.61903 4.99784 492.768 0.0014193 0.179339 0.144414 0.155542 0.327777 4.05286
100000 28.3285 27.7039 29.4832 283.285 0.00645587 0.76848 0.260824 0.700369 1.35219 24.6898
1000000 289.397 279.597 298.184 289.397 0.038883 7.45103 1.51514 7.94793 13.745 248.84
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - llvmpipe (LLVM 15.0.6, 256 bits) / AMD EPYC' noenhanced
set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
plot $b0 using 1:2:3:4 with yerrorlines lw 2 title 'cpu-ref', \
    $b1 using 1:2:3:4 with yerrorlines lw 2 title 'cpu-1t', \
    $b2 using 1:2:3:4 with yerrorlines lw 2 title 'cpu-all', \
    $b3 using 1:2:3:4 with yerrorlines lw 2 title 'gpu', \
    $b4 using 1:2:3:4 with yerrorlines lw 2 title 'gpu-det'
set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_cost.svg'
set title 'boids-bench: cost per boid-step - llvmpipe (LLVM 15.0.6, 256 bits) / AMD EPYC' noenhanced

set logscale xy
set grid
set key left top
set format x '10^{%L}'
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
plot $b0 using 1:5 with linespoints lw 2 title 'cpu-ref', \
    $b1 using 1:5 with linespoints lw 2 title 'cpu-1t', \
    $b2 using 1:5 with linespoints lw 2 title 'cpu-all', \
    $b3 using 1:5 with linespoints lw 2 title 'gpu', \
    $b4 using 1:5 with linespoints lw 2 title 'gpu-det'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_stages.svg'
set title 'boids-bench: GPU time per stage - llvmpipe (LLVM 15.0.6, 256 bits) / AMD EPYC' noenhanced
unset title
unset logscale
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
plot $b3 using 6:xtic(1) title 'clear', \
    $b3 using 7:xtic(1) title 'count', \
    $b3 using 8:xtic(1) title 'scan', \
    $b3 using 9:xtic(1) title 'scatter', \
    $b3 using 10:xtic(1) title 'sort', \
    $b3 using 11:xtic(1) title 'steer'
set title 'gpu-det'
plot $b4 using 6:xtic(1) title 'clear', \
    $b4 using 7:xtic(1) title 'count', \
    $b4 using 8:xtic(1) title 'scan', \
    $b4 using 9:xtic(1) title 'scatter', \
    $b4 using 10:xtic(1) title 'sort', \
    $b4 using 11:xtic(1) title 'steer'
unset multiplot
