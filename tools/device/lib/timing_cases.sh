# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The timing cases of tools/device/bench.sh: kernel, process, cpu, two-gpu,
# storage. Old builds (*_old) and new ones alternate, round after round, so
# that drifts of the machine (clocks, page cache) hit both alike.

# `bench_cuda LABEL BUILD ARGS...`: one timed `fastmu bench --backend cuda`.
bench_cuda() { timed "$1" "$bin/$2" bench --backend cuda "${@:3}"; }

kernel_case() {
  local n rounds rep b g gpus
  n=$(count --n 4000000)
  rounds=$(count --repeat 2)
  gpus=$(gpu_count)
  machine_info
  warm_tables cuda fastmu
  note "one GPU, $n muons, old and new alternating"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for b in $(builds fastmu); do
      CUDA_VISIBLE_DEVICES=0 bench_cuda "$b iron-block" "$b" --case iron-block --n "$n" --repeat 5 --gpus 1
      CUDA_VISIBLE_DEVICES=0 bench_cuda "$b ship" "$b" --case ship --n "$n" --repeat 3 --gpus 1
    done
  done
  note "result arrays reused between calls (as a streamed run has them), rows at the plane"
  CUDA_VISIBLE_DEVICES=0 bench_cuda "fastmu iron-block reuse" fastmu --case iron-block --n "$n" --repeat 5 --gpus 1 --reuse-output
  CUDA_VISIBLE_DEVICES=0 bench_cuda "fastmu iron-block at-plane" fastmu --case iron-block --n "$n" --repeat 5 --gpus 1 --at-plane
  CUDA_VISIBLE_DEVICES=0 bench_cuda "fastmu iron-block reuse at-plane" fastmu --case iron-block --n "$n" --repeat 5 --gpus 1 --reuse-output --at-plane
  note "the fixed cost of one transport call (what a repeated Python call pays)"
  for b in 1 1000; do
    CUDA_VISIBLE_DEVICES=0 bench_cuda "fastmu iron-block n$b" fastmu --case iron-block --n $b --repeat 20 --gpus 1
  done
  has --quick && return
  note "one GPU, $((4 * n)) muons"
  for b in $(builds fastmu); do
    CUDA_VISIBLE_DEVICES=0 bench_cuda "$b iron-block x4" "$b" --case iron-block --n $((4 * n)) --repeat 3 --gpus 1
  done
  note "the SHiP objective's value and gradient against the forward pass (1e6 muons)"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for b in $(builds fastmu_bench); do
      run "$bin/$b" --benchmark_filter='Ship.*/1000000/1' --benchmark_min_time=2
    done
  done
  [ "$gpus" -gt 1 ] || return 0
  note "one GPU against all $gpus, $((4 * n)) muons"
  for g in 1 "$gpus"; do
    for b in $(builds fastmu); do
      bench_cuda "$b iron-block gpus$g" "$b" --case iron-block --n $((4 * n)) --repeat 5 --gpus "$g"
      bench_cuda "$b ship gpus$g" "$b" --case ship --n "$n" --repeat 3 --gpus "$g"
    done
  done
}

# `trace_of BUILD`: FASTMU_TRACE for BUILD (--trace traces the new build only).
trace_of() { if [ "$1" = fastmu ] && has --trace; then echo 1; else echo 0; fi; }

# `whole_run LABEL BUILD GEOMETRY IN OUT [ARGS...]`: one timed `fastmu run`
# process on one GPU, HDF5 in and out.
whole_run() {
  rm -f "$5"
  CUDA_VISIBLE_DEVICES=0 timed "$1" env FASTMU_TRACE="$(trace_of "$2")" "$bin/$2" run \
    --geometry "$3" --muons "$4" --out "$5" --backend cuda --gpus 1 "${@:6}"
}

process_case() {
  local n rounds rep b c geo huge
  n=$(count --n 40000000)
  rounds=$(count --repeat 2)
  has --quick && n=4000000 rounds=1
  machine_info
  grep -H . /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio 2>&1 | tee -a "$log"
  warm_tables cuda fastmu
  note "inputs: $n muons each"
  muon_file "iron_$n.h5" --n "$n"
  muon_file "ship_$n.h5" --n "$n" --spectrum ship
  sync
  # The machine's first large write meets fresh memory (slower): one run
  # before the compared ones, reported on its own.
  note "first run (fresh memory)"
  whole_run "fastmu iron first" fastmu examples/iron_block.json "$work/iron_$n.h5" "$work/out_first.h5"
  rm -f "$work/out_first.h5"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for c in iron ship; do
      geo=examples/ship_warm.json
      [ $c = iron ] && geo=examples/iron_block.json
      note "round $rep, $c, $n muons"
      for b in $(builds fastmu); do
        whole_run "$b $c" "$b" "$geo" "$work/${c}_$n.h5" "$work/out_${c}_$b.h5"
      done
      [ -x "$bin/fastmu_old" ] && same_file "$work/out_${c}_fastmu_old.h5" "$work/out_${c}_fastmu.h5"
      rm -f "$work/out_${c}"_*.h5
    done
  done
  has --huge || return 0
  huge=${opt[--huge]}
  note "larger than memory: $huge muons under --max-memory 2GB"
  muon_file "iron_$huge.h5" --n "$huge"
  whole_run "fastmu iron huge" fastmu examples/iron_block.json "$work/iron_$huge.h5" \
    "$work/out_huge.h5" --max-memory 2GB
  rm -f "$work/out_huge.h5"
}

cpu_case() {
  local n rounds rep b
  n=$(count --n 400000)
  rounds=$(count --repeat 2)
  machine_info
  grep -m1 -o -w "avx512f\|avx2\|fma" /proc/cpuinfo | sort -u | tr '\n' ' ' | tee -a "$log"
  echo | tee -a "$log"
  warm_tables cpu fastmu
  note "one thread, 30000 muons; all cores, $n muons"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for b in $(builds fastmu); do
      timed "$b iron-block 1 thread" "$bin/$b" bench --backend cpu --case iron-block --n 30000 --repeat 5 --threads 1
      timed "$b iron-block" "$bin/$b" bench --backend cpu --case iron-block --n "$n" --repeat 3
    done
  done
  note "fastmu_bench: the iron block, one step, the 10 m slab"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for b in $(builds fastmu_bench); do
      run "$bin/$b" --benchmark_filter=IronBlock --benchmark_min_time=1
      run "$bin/$b" --benchmark_filter='SingleStep|Slab_Fe_50GeV_10m$' --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true
    done
  done
  has --quick && return
  note "SHiP-like shield, 50000 muons"
  for b in $(builds fastmu); do
    timed "$b ship" "$bin/$b" bench --backend cpu --case ship --n 50000 --repeat 1
  done
}

two_gpu_case() {
  local n rounds rep b c g geo mpi=0 args trace
  n=$(count --n 40000000)
  rounds=$(count --repeat 2)
  has --quick && n=4000000 rounds=1
  trace=$(trace_of fastmu)
  [ "$(gpu_count)" -ge 2 ] || die "two-gpu needs two GPUs; this machine has $(gpu_count)"
  if use_openmpi; then
    mpi=1
  else
    echo "no $stage/openmpi.tar.xz (bench.sh stage --openmpi): MPI runs skipped" | tee -a "$log"
  fi
  machine_info
  [ $mpi = 1 ] && run mpirun --version
  warm_tables cuda fastmu
  if ! has --quick; then
    note "transport in one process: 1 GPU against 2, 16e6 muons"
    for ((rep = 1; rep <= rounds; ++rep)); do
      for g in 1 2; do
        for b in $(builds fastmu); do
          bench_cuda "$b ship gpus$g" "$b" --case ship --n 16000000 --repeat 2 --gpus $g
          bench_cuda "$b iron-block gpus$g" "$b" --case iron-block --n 16000000 --repeat 3 --gpus $g
        done
        bench_cuda "fastmu iron-block gpus$g reuse" fastmu --case iron-block --n 16000000 --repeat 3 \
          --gpus $g --reuse-output
      done
    done
  fi
  note "whole processes, $n muons, HDF5 in and out"
  muon_file "iron_$n.h5" --n "$n"
  muon_file "ship_$n.h5" --n "$n" --spectrum ship
  sync
  for c in iron ship; do
    geo=examples/ship_warm.json
    [ $c = iron ] && geo=examples/iron_block.json
    args=(run --geometry "$geo" --muons "$work/${c}_$n.h5" --backend cuda)
    for ((rep = 1; rep <= rounds; ++rep)); do
      rm -f "$work/o_${c}"_*.h5
      CUDA_VISIBLE_DEVICES=0 timed "fastmu $c 1gpu" "$bin/fastmu" "${args[@]}" --out "$work/o_${c}_1gpu.h5" --gpus 1
      timed "fastmu $c 2gpus" env FASTMU_TRACE="$trace" "$bin/fastmu" "${args[@]}" --out "$work/o_${c}_2gpus.h5" --gpus 2
      same_file "$work/o_${c}_1gpu.h5" "$work/o_${c}_2gpus.h5"
      [ $mpi = 1 ] || continue
      for b in $(builds fastmu); do
        timed "$b $c 2ranks" mpirun -np 2 --bind-to none -x FASTMU_TRACE="$(trace_of "$b")" "$bin/$b" "${args[@]}" \
          --out "$work/o_${c}_2ranks_$b.h5"
        same_file "$work/o_${c}_1gpu.h5" "$work/o_${c}_2ranks_$b.h5"
      done
    done
    rm -f "$work/o_${c}"_*.h5
  done
}

storage_case() {
  local gb rounds rep b
  gb=${opt[--gb]:-2.7}
  [[ $gb =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--gb wants a number of GB, not '$gb'"
  rounds=$(count --repeat 2)
  machine_info
  grep -H . /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio 2>&1 | tee -a "$log"
  export FASTMU_BENCH_DIR=$work FASTMU_BENCH_STORAGE_GB=$gb
  # The first write of the machine's fresh memory, then the others on memory
  # the page cache has held before.
  note "storage under $work: fresh memory first, then buffered, mmap and O_DIRECT writes of $gb GB"
  run "$bin/fastmu_bench" --benchmark_filter='StorageWrite/way:3'
  run "$bin/fastmu_bench" --benchmark_filter='StorageWrite'
  note "MuonWriter's rate, old and new alternating"
  for ((rep = 1; rep <= rounds; ++rep)); do
    for b in $(builds fastmu_bench); do
      run "$bin/$b" --benchmark_filter='MuonWriterHdf5'
    done
  done
}

# Table builds as the cache makes them, from an empty cache, with the
# default sampling (FASTMU_CACHE_SAMPLES unset): G4_Fe's whole ladder as
# `fastmu run` uses it (`bench --case iron-block`) and the SHiP-like
# shield's materials (`bench --case ship`); the new build with the engine on
# the GPU and on all cores, the old one (cores only) on the iron block.
# First the GPU's samples against the CPU's (LadderSampler.GpuMatchesCpu,
# DetailedEngine.GpuMatchesCpu).
tables_case() {
  machine_info
  run "$bin/fastmu_tests_tables" --gtest_filter='Ladder*'
  run "$bin/fastmu_tests_physics" --gtest_filter='DetailedEngine.GpuMatchesCpu'
  local c b engine cache
  for c in iron-block ship; do
    for b in $(builds fastmu); do
      for engine in cuda cpu; do
        [ "$b" = fastmu_old ] && { [ "$engine" = cuda ] || [ "$c" = ship ]; } && continue
        cache=$work/tables_${b}_${engine}_$c
        rm -rf "$cache"
        CUDA_VISIBLE_DEVICES=0 timed "$b $c tables $engine" env -u FASTMU_CACHE_SAMPLES \
          FASTMU_CACHE="$cache" FASTMU_TABLE_BACKEND=$engine FASTMU_PROGRESS=0 \
          "$bin/$b" bench --backend cuda --case "$c" --n 1000 --repeat 1
        ls "$cache" | tee -a "$log"
      done
    done
  done
}
