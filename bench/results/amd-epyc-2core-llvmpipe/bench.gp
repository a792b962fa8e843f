# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
$b0 << EOD
1000 8.86948 7.87164 9.18205 8869.48 0 0 0 0 0 0
10000 868.056 858.011 880.281 86805.6 0 0 0 0 0 0
EOD
$b1 << EOD
1000 0.14762 0.143323 0.150118 147.62 0 0 0 0 0 0
10000 0.897546 0.892272 0.903044 89.7546 0 0 0 0 0 0
100000 10.3478 9.42261 10.7681 103.478 0 0 0 0 0 0
1000000 105.623 82.315 110.073 105.623 0 0 0 0 0 0
EOD
$b2 << EOD
1000 0.124159 0.121396 0.128054 124.159 0 0 0 0 0 0
10000 0.510964 0.509891 0.563479 51.0964 0 0 0 0 0 0
100000 5.09288 5.03342 5.79869 50.9288 0 0 0 0 0 0
1000000 55.4097 55.147 56.1954 55.4097 0 0 0 0 0 0
EOD
$b3 << EOD
1000 0.538642 0.521512 0.84269 538.642 0.00113517 0.036565 0.0562173 0.0406004 0 0.503924
10000 4.54905 4.53212 4.66158 454.905 0.00380687 0.216442 0.151898 0.140738 0 3.99451
100000 42.2072 41.4769 44.1301 422.072 0.0070872 1.22977 0.55693 1.34804 0 39.8117
1000000 415.686 409.905 427.435 415.686 0.044103 10.3984 2.62412 12.7435 0 377.392
EOD
$b4 << EOD
1000 0.59793 0.57956 0.622023 597.93 0.0018725 0.0388851 0.0608377 0.0449414 0.0652635 0.454247
10000 4.87123 4.70703 5.19332 487.123 0.00208553 0.227464 0.165798 0.191518 0.346142 4.14761
100000 43.5344 42.7793 44.4312 435.344 0.0083678 1.19193 0.522635 1.33505 2.29622 38.8675
1000000 427.349 425.482 443.912 427.349 0.04235 10.9064 3.02203 13.2941 21.9768 381.91
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
