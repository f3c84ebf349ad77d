#!/usr/bin/env bash
# diagnose_presets.sh - lab 12 on the presets of one node (diagnose.sh has
# the two-node machine): draws on dgx-h100, dgx-h200, pcie-4gpu and
# single-gpu, each diagnosed by the solver from the step's tables (only the
# faults a node can show: no network faults there), and step 2 (the
# incident logs) on every preset.
export MGPU_DIAGNOSE_DRAWS=${MGPU_DIAGNOSE_DRAWS:-"dgx-h100:learner1 dgx-h100:learner18 dgx-h200:learner9
  pcie-4gpu:learner0 pcie-4gpu:learner3 single-gpu:learner0 single-gpu:learner2"}
export MGPU_DIAGNOSE_KINDS=${MGPU_DIAGNOSE_KINDS:-4}
export MGPU_DIAGNOSE_STEP2=${MGPU_DIAGNOSE_STEP2:-"dgx-h100 dgx-h200 pcie-4gpu 2x-dgx-h100 single-gpu"}
exec bash "$(dirname "$0")/diagnose.sh" "$@"
