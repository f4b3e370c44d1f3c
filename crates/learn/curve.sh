#!/usr/bin/env bash
# The expert's play-out policy trained from its seeds, with its training
# curve: the network after chosen epochs, each played alone (the basic
# bot's bids, the network's cards) against basic and against hard in the
# arena, and the plot of it (BENCHMARKS.md, "Bots").
#
#   crates/learn/curve.sh OUT_DIR
#
# OUT_DIR keeps the data (data.bin: about 15 minutes of one core at the
# defaults), the training's CSV and a checkpoint per epoch (about 4
# minutes), the arena's reports (about 3 minutes each against hard),
# curve.csv and curve.png. What is there already is not made again, so a
# second run only draws the plot again. The final network is compared
# byte for byte with the committed one (crates/bots/weights/play.bin):
# the same seeds give the same weights.
#
# GAMES (6000) and DATA_SEED (100001): the self-play games of the data.
# EPOCHS (15): the training's length; CURVE ("1 2 4 8 15"): the epochs
# played. BASIC_DEALS (500, from BASIC_SEED 50001) and HARD_DEALS (250,
# from HARD_SEED 62001): each deal is two games, one from each side.
#
# Build first: cargo build --release -p euchre-learn -p euchre-arena
set -euo pipefail

out=${1:?an output folder}
bin=${BIN:-target/release}
games=${GAMES:-6000}
data_seed=${DATA_SEED:-100001}
epochs=${EPOCHS:-15}
curve=${CURVE:-1 2 4 8 15}
basic_deals=${BASIC_DEALS:-500}
basic_seed=${BASIC_SEED:-50001}
hard_deals=${HARD_DEALS:-250}
hard_seed=${HARD_SEED:-62001}
committed=$(dirname "$0")/../bots/weights/play.bin

mkdir -p "$out/checkpoints"
if [ ! -s "$out/data.bin" ]; then
    "$bin/euchre-learn" data --teacher hard:worlds=80,bid_worlds=80 --games "$games" \
        --seed "$data_seed" --out "$out/data.tmp"
    mv "$out/data.tmp" "$out/data.bin"
fi
if [ ! -s "$out/play.bin" ]; then
    RAYON_NUM_THREADS=1 "$bin/euchre-learn" train --data "$out/data.bin" --hidden 128 \
        --epochs "$epochs" --seed 1 --out "$out/play.tmp" --checkpoints "$out/checkpoints" \
        >"$out/train.csv"
    mv "$out/play.tmp" "$out/play.bin"
fi
if cmp -s "$out/play.bin" "$committed"; then
    echo "# the network is the committed one, byte for byte"
else
    echo "# the network differs from the committed one ($committed)"
fi

# One arena run (kept, and not run again): prints "won games low high" of A.
play() {
    local a=$1 b=$2 deals=$3 seed=$4 report=$5
    if [ ! -s "$report" ]; then
        "$bin/euchre-arena" --a "$a" --b "$b" --deals "$deals" --seed "$seed" --threads 1 \
            --json >"$report.tmp" 2>"$report.err"
        mv "$report.tmp" "$report"
    fi
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["a_won"], r["games"], *r["a_win_interval"])' "$report"
}

echo "epoch,loss,holdout_agree,basic_won,basic_games,basic_low,basic_high,hard_won,hard_games,hard_low,hard_high" \
    >"$out/curve.csv"
for epoch in $curve; do
    network=$out/checkpoints/epoch-$epoch.bin
    read -r bw bg bl bh < <(play "policy:$network" basic "$basic_deals" "$basic_seed" "$out/basic-$epoch.json")
    read -r hw hg hl hh < <(play "policy:$network" hard "$hard_deals" "$hard_seed" "$out/hard-$epoch.json")
    trained=$(awk -F, -v e="$epoch" '$1 == e { print $2 "," $4 }' "$out/train.csv")
    echo "$epoch,$trained,$bw,$bg,$bl,$bh,$hw,$hg,$hl,$hh" | tee -a "$out/curve.csv"
done

gnuplot <<EOF
set terminal pngcairo size 900,620 font ",10"
set output "$out/curve.png"
set datafile separator ","
set key autotitle columnhead
set multiplot layout 2,1 title "The play-out policy's training (deal seeds: data $data_seed+, basic $basic_seed+, hard $hard_seed+)"
set ylabel "the policy's win rate (95% interval)"
set xlabel "epochs"
set logscale x 2
set xrange [0.8:$epochs * 1.25]
set xtics ($(echo "$curve" | tr -s ' ' ','))
set yrange [0.2:0.7]
set grid
set key bottom right
plot 0.5 with lines dashtype 2 lc "gray" title "even", \
     "$out/curve.csv" using 1:(\$4/\$5):6:7 with yerrorlines lw 2 title "alone against basic", \
     "$out/curve.csv" using 1:(\$8/\$9):10:11 with yerrorlines lw 2 title "alone against hard"
set ylabel "cross-entropy"
set y2label "agreement with the teacher"
set yrange [*:*]
set y2range [0.6:0.85]
set y2tics
set ytics nomirror
set key top right
plot "$out/train.csv" using 1:2 with linespoints title "loss (left)", \
     "$out/train.csv" using 1:3 axes x1y2 with linespoints title "agreement, training (right)", \
     "$out/train.csv" using 1:4 axes x1y2 with linespoints title "agreement, held out (right)"
unset multiplot
EOF
echo "# curve: $out/curve.csv, $out/curve.png"
