#!/usr/bin/env bash
# A single-node Slurm on 127.0.0.1 (munge + slurmctld + slurmd from Debian's packages),
# for testing sweeps (tools/slurm/test_slurm_sweep.py).
# Needs root and the packages slurm-wlm munge slurmctld slurmd slurm-client
# (tools/install-deps.sh installs them).
#
#   tools/slurm/local_cluster.sh start    # writes /etc/slurm/slurm.conf, starts the daemons,
#                                          # waits until the node is idle (about 5 s)
#   sbatch --wrap hostname; sinfo; squeue  # use it
#   tools/slurm/local_cluster.sh stop     # scontrol shutdown; stops munged if start started it
#
# start refuses to overwrite a slurm.conf it did not write (marker line below), and reuses
# a cluster it already started.
set -euo pipefail

conf=/etc/slurm/slurm.conf
marker="# written by csim tools/slurm/local_cluster.sh"
state=/run/csim-slurm

die() { echo "local_cluster: $*" >&2; exit 1; }

start() {
  [ "$(id -u)" -eq 0 ] || die "must run as root"
  for exe in munged slurmctld slurmd sinfo scontrol; do
    command -v "$exe" >/dev/null || [ -x "/usr/sbin/$exe" ] || die "$exe missing: apt-get install slurm-wlm munge slurmctld slurmd slurm-client"
  done
  if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
    die "$conf exists and was not written by this script; not touching it"
  fi
  mkdir -p "$state"

  # munge
  mkdir -p /run/munge && chown munge:munge /run/munge
  if ! munge -n >/dev/null 2>&1 </dev/null; then
    runuser -u munge -- /usr/sbin/munged
    touch "$state/munged.started"
  fi

  # slurm.conf for this host (CPUs and memory from slurmd -C)
  local host cpus mem
  host=$(hostname -s)
  cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
  mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
  mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm /run/slurm
  chown -R slurm:slurm /var/lib/slurm /var/log/slurm /run/slurm
  cat > "$conf" <<EOF
$marker
ClusterName=csimlocal
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP
EOF

  if ! scontrol ping 2>/dev/null | grep -q UP; then
    slurmctld
    touch "$state/slurmctld.started"
  fi
  pgrep -x slurmd >/dev/null || slurmd

  # wait until the node takes jobs
  local i s
  for i in $(seq 1 60); do
    s=$(sinfo -h -o %t 2>/dev/null | head -1 || true)
    case "$s" in
      idle|mix|alloc) echo "local_cluster: node $host $s"; return 0 ;;
      down*|drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  die "node did not become idle (sinfo: ${s:-nothing}); see /var/log/slurm/"
}

stop() {
  scontrol shutdown 2>/dev/null || true
  # wait for the daemons to go (they were started by start; shutdown stops both)
  for _ in $(seq 1 40); do
    pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break
    sleep 0.25
  done
  if [ -f "$state/munged.started" ] && [ -f /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
    rm -f "$state/munged.started"
  fi
  rm -f "$state/slurmctld.started"
  echo "local_cluster: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
