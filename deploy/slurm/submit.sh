#!/bin/sh
# Submits a sharded Marquee build to Slurm: an array of n shard tasks and a
# merge that runs only when every task succeeded.
#
#   deploy/slurm/submit.sh <job.json> <out dir> [n]    (n: shards, default 4)
#
# Prints the two job ids. Paths must be the same on every node (a shared
# file system); logs go to the directory sbatch is run from.
set -eu
job=${1:?usage: submit.sh <job.json> <out dir> [shards]}
out=${2:?usage: submit.sh <job.json> <out dir> [shards]}
n=${3:-4}
here=$(dirname "$0")
shards=$(sbatch --parsable --array="0-$((n - 1))" "$here/marquee-shards.sbatch" "$job" "$out")
shards=${shards%%;*}
merge=$(sbatch --parsable --dependency="afterok:$shards" --kill-on-invalid-dep=yes \
  "$here/marquee-merge.sbatch" "$job" "$out")
echo "shards $shards"
echo "merge ${merge%%;*}"
