#!/usr/bin/env bash
# Installs, from Debian 12 packages only, whatever csim needs that is missing.
# Idempotent: packages already present are skipped, so a second run does nothing.
# Used by README.md's two commands and by .ci/run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libcli11-dev libhdf5-dev hdf5-tools catch2
  python3-h5py python3-numpy python3-scipy python3-matplotlib python3-cvxopt
  libmujoco-dev libsuitesparse-dev libopenblas0-serial
  python3-pandas python3-yaml python3-pytest python3-nbformat jupyter-nbconvert python3-ipykernel python3-nbclient
  parallel slurm-wlm munge slurmctld slurmd slurm-client
  libjs-three chromium python3-pil
  libtinyxml2-dev liburdfdom-dev liburdfdom-tools libassimp-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
