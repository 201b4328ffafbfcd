// The chart of a simulation: node usage per cycle, one line per node, one panel per resource, the
// first LoadAware's watermarks shaded (under thresholds: underutilized; over targetThresholds:
// overutilized). SVG, for a person to look at.
#pragma once

#include <ostream>

#include "simulation/simulation.h"

namespace loadshift::simulation {

// Writes the chart of `result` as a standalone SVG document.
void write_simulation_chart(const SimulationResult& result, std::ostream& out);

}  // namespace loadshift::simulation
