# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
$b1 << EOD
10000 1.60519 1.57552 1.9075 160.519 0 0 0 0 0 0
100000 13.4002 13.3112 14.0774 134.002 0 0 0 0 0 0
1000000 136.249 131.724 144.111 136.249 0 0 0 0 0 0
EOD
$b2 << EOD
10000 0.833044 0.826259 0.937336 83.3044 0 0 0 0 0 0
100000 8.23563 7.65524 8.51309 82.3563 0 0 0 0 0 0
1000000 67.5795 66.8528 68.7384 67.5795 0 0 0 0 0 0
EOD
$b3 << EOD
10000 10.2706 10.2135 13.7833 1027.06 0.00969192 0.283322 0.226967 0.217188 0 9.33609
100000 90.6235 87.9515 103.389 906.235 0.0108 0.934715 0.367106 0.81161 0 73.8454
1000000 626.766 622.945 664.312 626.766 0.076535 11.0371 3.02065 12.9236 0 870.719
EOD
$b4 << EOD
10000 10.8118 10.3377 11.1811 1081.18 0.00542967 0.249689 0.227168 0.217642 0.535415 9.33264
100000 72.3311 71.9461 72.8024 723.311 0.010256 0.876128 0.348494 0.775412 2.56592 67.5058
1000000 940.243 886.515 951.077 940.243 0.073249 10.8373 3.05164 13.2429 40.5125 870.267
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
plot $b1 using 1:2:3:4 with yerrorlines lw 2 title 'cpu-1t', \
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
plot $b1 using 1:5 with linespoints lw 2 title 'cpu-1t', \
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
