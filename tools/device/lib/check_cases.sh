# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The checking cases of tools/device/bench.sh: validate (tests and physics),
# python (the extension on the GPU machine), extreme-rows (input rows at the
# edges of the float range).

validate_case() {
  local n b k dirs=()
  n=$(count --n 1000000)
  machine_info
  note "transport tests"
  local filter='*'
  has --quick && filter='Cuda*:*Fixture*:ResultRows*:ShipGradient.Cuda*:*Objective*Cuda*'
  FASTMU_CACHE=$work/test_cache run "$bin/fastmu_tests_transport" --gtest_brief=1 --gtest_filter="$filter"
  # The physics with well-sampled tables, built here into their own cache.
  (
    export FASTMU_CACHE=$work/validate_cache FASTMU_CACHE_SAMPLES
    FASTMU_CACHE_SAMPLES=$(count --table-samples 200000)
    mkdir -p "$FASTMU_CACHE"
    note "SHiP-like shield, $n muons, tables of $FASTMU_CACHE_SAMPLES samples per bin"
    run "$bin/fastmu" validate --example ship --n "$n" --backend cuda --out-dir "$work/validate_ship"
    cp "$work/validate_ship/summary.md" "$out/validate_ship_summary.md"
    dirs=("$work/validate_ship/detailed.csv" "$work/validate_ship/fast.csv")
    for b in $(builds fastmu); do
      mkdir -p "$work/ship_$b"
      run "$bin/$b" run --example ship --n "$n" --backend cuda --out-dir "$work/ship_$b" --no-plot
      dirs+=("$work/ship_$b/ship_run.h5")
    done
    run python3 "$device_tools/window_quantiles.py" "${dirs[@]}"
    has --quick && exit 0
    local ref=$stage/reference/slab_G4_Fe_10m_50GeV_mu-.f32
    [ -f "$ref" ] || {
      echo "no $ref: iron block against Geant4 skipped" | tee -a "$log"
      exit 0
    }
    note "iron block against the Geant4 slab, 1e5 muons, long steps 3 and 0"
    dirs=()
    for k in 3 0; do
      mkdir -p "$work/iron_k$k"
      run "$bin/fastmu" run --example iron-block --n 100000 --n-detailed 0 --backend cuda \
        --out-dir "$work/iron_k$k" --no-plot --long-steps $k
      dirs+=("$work/iron_k$k/iron_block_fast.f32")
    done
    run python3 "$device_tools/slab_compare.py" "$ref" "${dirs[@]}"
  )
  has --quick && return
  note "CUDA sheets against the detailed engine (the quick subset of tools/sheet_matrix.py)"
  run python3 tools/sheet_matrix.py --fastmu "$bin/fastmu" --backend cuda --quick \
    --n 200000 --n-ref 20000 --work "$work/sheets"
}

python_case() {
  local n n_fd sections
  n=$(count --n 1000000)
  n_fd=$(count --n-fd 1000000)
  sections=${opt[--sections]:-repeat,loop,objective,torch}
  machine_info
  note "the extension, built for $(python3 --version 2>&1)"
  build_python_module 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || die "the Python extension did not build (see $log)"
  export PYTHONPATH=$stage/python
  note "tables (built once into the cache)"
  run python3 -c "import fastmu; fastmu.transport(fastmu.examples.iron_block_muons(10), fastmu.examples.iron_block_geometry(), backend='cuda')"
  note "python_checks.py --sections $sections"
  run timeout 600 python3 "$device_tools/python_checks.py" --n "$n" --sections "$sections"
  note "the SHiP gradient against central differences, $n_fd muons"
  run timeout 600 python3 tools/ship_gradient_check.py --n "$n_fd" --backend cuda
}

extreme_rows_case() {
  local n backends limit b
  n=$(count --n 1000)
  backends=${opt[--backends]:-cuda,cpu}
  limit=$(count --timeout 60)
  machine_info
  for b in ${backends//,/ }; do
    warm_tables "$b" fastmu
  done
  note "iron block, $n muons plus one extreme row; backends $backends; timeout $limit s each"
  run python3 "$device_tools/extreme_rows.py" --fastmu "$bin/fastmu" --geometry examples/iron_block.json \
    --n "$n" --backends "$backends" --timeout "$limit" --work "$work/extreme_rows" \
    --csv "$out/extreme_rows.csv"
}
