// Calibration of the `machine` cost model (fusion/cost_machine.hpp): runs a
// few kernels on the cpu backend and measures
//   bandwidth  bytes per second of a streaming kernel y = x + 1 (64 MiB each way)
//   launch_s   seconds per kernel of a batch of 200 one-instruction kernels on 100 elements
//   element_s  seconds per element beyond the traffic, per opcode class (multiply,
//              exp, random over 2^20 float64 elements, less what the bytes cost)
// once per host and cache directory: the result is cached as JSON next to the
// kernel cache (ARRVM_CACHE_DIR/machine-costs.json, keyed by host name and
// CPU model; a corrupt or foreign file is measured again and rewritten), and
// once per process in memory.
#pragma once

#include "fusion/cost_machine.hpp"
#include "vm/config.hpp"

namespace arrvm {

fusion::MachineCosts calibrated_machine_costs(const Config& config);

// The same without the per-process memo: the cache file's costs if it holds
// this host's (source "cache"), else measured now and written there
// (source "measured").
fusion::MachineCosts load_or_measure_machine_costs(const Config& config);

}  // namespace arrvm
