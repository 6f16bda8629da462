#!/usr/bin/env bash
# tempo::mpi on the device host (16 cores, one GPU): tests under mpirun, then scaling of
# one batch over 1, 2 and 4 ranks x threads per rank against one process with all
# threads, for SHAKE256 1M and 100M x 32 B and FAEST-128f signing. ~3 minutes.
#
# Here (build machine), packing the carry folder:
#   cmake -S . -B build/mpi -G Ninja -DCMAKE_BUILD_TYPE=Release
#   ninja -C build/mpi tempo_mpi_tests tempo_mpi_fail tempo_mpi_bench tempo-fanout
#   scripts/device/mpi.sh --pack build/mpi .carry/mpi      # binaries + a relocatable Open MPI
# There:
#   bash scripts/device/mpi.sh [.carry/mpi]                  # results in $OUT/mpi
#
# Open MPI is probably not installed on the device host, so --pack copies Debian's
# (mpirun, its plugins and help files, PMIx's plugins, every non-glibc library they
# need, ~25 MB) and the run relocates it with OPAL_PREFIX. If mpirun still cannot start
# there, the script says why and measures the one-process baselines only.
set -u

if [ "${1:-}" = "--pack" ]; then
  set -e
  build=${2:?usage: mpi.sh --pack BUILD_DIR CARRY_DIR}
  dest=${3:?usage: mpi.sh --pack BUILD_DIR CARRY_DIR}
  rm -rf "$dest"; mkdir -p "$dest/bin" "$dest/lib" "$dest/ompi/bin" "$dest/ompi/lib/x86_64-linux-gnu" "$dest/ompi/share"
  cp "$build"/tests/mpi/tempo_mpi_tests "$build"/tests/mpi/tempo_mpi_fail "$build"/bench/mpi/tempo_mpi_bench "$dest/bin/"
  cp "$(dirname "$0")/../../tests/mpi/expect_failure.sh" "$(dirname "$0")/../../tests/mpi/fanout_mpi.sh" "$dest/bin/"
  cp "$build"/apps/fanout/tempo-fanout "$dest/bin/" 2>/dev/null || echo "mpi.sh: no tempo-fanout in $build (ninja tempo-fanout); its --mpi check is skipped"

  cp -L /usr/bin/orterun "$dest/ompi/bin/mpirun"
  cp -L /usr/bin/orted "$dest/ompi/bin/"
  cp -a /usr/lib/x86_64-linux-gnu/openmpi "$dest/ompi/lib/x86_64-linux-gnu/"
  rm -rf "$dest"/ompi/lib/x86_64-linux-gnu/openmpi/include "$dest"/ompi/lib/x86_64-linux-gnu/openmpi/lib/*java* \
         "$dest"/ompi/lib/x86_64-linux-gnu/openmpi/lib/*.a
  cp -a /usr/share/openmpi "$dest/ompi/share/"
  mkdir -p "$dest/ompi/etc"; cp -a /etc/openmpi/. "$dest/ompi/etc/" 2>/dev/null || true
  [ -d /usr/lib/x86_64-linux-gnu/pmix2 ] && cp -a /usr/lib/x86_64-linux-gnu/pmix2 "$dest/ompi/pmix2" && rm -f "$dest"/ompi/pmix2/lib/*.a
  # Every library outside glibc that the binaries, mpirun and the plugins resolve.
  libs=$( (ldd "$dest"/bin/tempo[-_]* "$dest"/ompi/bin/* "$dest"/ompi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so \
           "$dest"/ompi/pmix2/lib/pmix/*.so 2>/dev/null | awk '/=> \//{print $3}') | sort -u)
  for lib in $libs; do
    case $(basename "$lib") in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;; esac
    cp -L "$lib" "$dest/lib/" 2>/dev/null || true
  done
  du -sh "$dest"
  exit 0
fi

C=$(cd "${1:-.carry/mpi}" && pwd) || { echo "usage: mpi.sh [CARRY_DIR] (or --pack BUILD_DIR CARRY_DIR)" >&2; exit 1; }
O=${OUT:-$PWD/out}/mpi; mkdir -p "$O"
B=$C/bin
log() { echo "== $*" | tee -a "$O/log.txt"; }
export LD_LIBRARY_PATH=$C/lib:$C/ompi/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# The carried Open MPI by default: the device host's own mpirun may have PMIx plugins that
# do not load ("undefined symbol: PMIx_Info_create"). MPI_USE_HOST=1 tries the host's.
if command -v mpirun >/dev/null && { [ "${MPI_USE_HOST:-0}" = 1 ] || [ ! -x "$C/ompi/bin/mpirun" ]; }; then
  MPIRUN=$(command -v mpirun); log "using the host's mpirun: $MPIRUN"
else
  export OPAL_PREFIX=$C/ompi PMIX_INSTALL_PREFIX=$C/ompi/pmix2
  export PMIX_MCA_mca_base_component_path=$C/ompi/pmix2/lib/pmix OMPI_MCA_mca_base_param_files=$C/ompi/etc/openmpi-mca-params.conf
  export PATH=$C/ompi/bin:$PATH
  MPIRUN=$C/ompi/bin/mpirun; log "using the carried Open MPI (OPAL_PREFIX=$OPAL_PREFIX)"
fi
# One host: shared memory only (no network probing); the single-copy mechanism needs
# ptrace rights that containers often lack, so try it and fall back to the plain copy.
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx
mpi() { timeout "$1" "$MPIRUN" -n "$2" --bind-to none "${@:3}"; }
if ! mpi 30 2 "$B/tempo_mpi_bench" --n 1000 --reps 1 --threads 1 > "$O/probe.txt" 2>&1; then
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  if ! mpi 30 2 "$B/tempo_mpi_bench" --n 1000 --reps 1 --threads 1 >> "$O/probe.txt" 2>&1; then
    log "mpirun cannot start 2 ranks here (see probe.txt); measuring one-process baselines only"
    tail -20 "$O/probe.txt" | tee -a "$O/log.txt"
    NO_MPI=1
  fi
fi
log "single copy: ${OMPI_MCA_btl_vader_single_copy_mechanism:-cma (default)}"
J=$O/scaling.jsonl; : > "$J"
export TEMPO_MPI_BENCH_VERBOSE=1  # each rank's plan/wait/compute/total (last rep) in bench_err.txt
bench() { "$@" 2>>"$O/bench_err.txt" | tee -a "$J"; }

if [ -z "${NO_MPI:-}" ]; then
  log "tests: 1, 2, 4 ranks (byte-identical to one process), failing jobs"
  for np in 1 2 4; do mpi 120 $np "$B/tempo_mpi_tests" > "$O/tests_np$np.txt" 2>&1; log "np=$np rc=$? $(grep -E 'passed|failed' "$O/tests_np$np.txt" | head -1)"; done
  PATH=$(dirname "$MPIRUN"):$PATH "$B/expect_failure.sh" "$MPIRUN" 3 "$B/tempo_mpi_fail" > "$O/fail.txt" 2>&1; log "failing job: rc=$? $(tail -1 "$O/fail.txt")"
  if [ -x "$B/tempo-fanout" ] && command -v python3 >/dev/null; then
    "$B/fanout_mpi.sh" "$MPIRUN" "$B/tempo-fanout" > "$O/fanout_mpi.txt" 2>&1; log "tempo-fanout --mpi = one process: rc=$? $(tail -1 "$O/fanout_mpi.txt")"
  fi
fi

for backend in cpu auto; do
  export TEMPO_BACKEND=$backend
  for n in 1000000 100000000; do
    reps=5; [ $n -gt 1000000 ] && reps=2
    log "shake256 n=$n x 32 B, backend $backend"
    bench timeout 120 "$B/tempo_mpi_bench" --local --n $n --threads 16 --reps $reps --check
    [ -n "${NO_MPI:-}" ] && continue
    for rt in "1 16" "2 8" "4 4"; do
      set -- $rt
      bench mpi 150 "$1" "$B/tempo_mpi_bench" --n $n --threads "$2" --reps $reps --check
    done
  done
done
export TEMPO_BACKEND=cpu
log "FAEST-128f sign, 256 messages of 64 B"
bench timeout 60 "$B/tempo_mpi_bench" --local --workload faest --n 256 --len 64 --threads 16 --reps 3
if [ -z "${NO_MPI:-}" ]; then
  for rt in "1 16" "2 8" "4 4"; do
    set -- $rt
    bench mpi 90 "$1" "$B/tempo_mpi_bench" --workload faest --n 256 --len 64 --threads "$2" --reps 3
  done
fi
log "done: $(wc -l < "$J") rows in scaling.jsonl"
