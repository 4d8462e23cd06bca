# Sourced by the MPI test scripts: what Open MPI needs to run the tests on a CI machine,
# a scratch directory removed on exit ($work), and the report's checksum.

# Open MPI refuses to run as root unless told; CI containers are root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No network interfaces to probe in a container: shared memory and self only.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Oversubscribed ranks (CI has 2 cores) should give up the core while they wait.
export OMPI_MCA_mpi_yield_when_idle=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# checksum OUTDIR: the checksum in OUTDIR/report.json
checksum() { sed -n 's/.*"checksum": "\([0-9a-f]*\)".*/\1/p' "$1/report.json"; }
# totals OUTDIR: the report's conservation totals (initial, final, drift) as one line; JSON
# numbers round-trip, so equal lines are equal bits
totals() {
  python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["conservation"], sort_keys=True))' \
    "$1/report.json"
}
