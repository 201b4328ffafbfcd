// A harness for the balance plugins' tests (LoadAware, LowNodeUtilization, HighNodeUtilization):
// one plugin over a PlanFixture with a real EvictionFilter, the plan given back as "pod->target"
// moves in order and the class of each node by name.
#pragma once

#include <string>
#include <vector>

#include "strategies/plugins.h"
#include "test/strategies/plan_fixture.h"

namespace loadshift::testing {

// LoadAware args as the seed policy writes them: cpu 30/80, memory 30/85, coverage 90%.
inline policy::LoadAwareArgs seed_load_aware_args() {
  policy::LoadAwareArgs args;
  args.thresholds = {{"cpu", 30}, {"memory", 30}};
  args.target_thresholds = {{"cpu", 80}, {"memory", 85}};
  args.resource_weights = {{"cpu", 1}, {"memory", 1}};
  return args;
}

// DefaultEvictor with priorityThreshold 10000, like the seed policy.
inline policy::DefaultEvictorArgs seed_evictor() {
  policy::DefaultEvictorArgs args = default_evictor();
  args.priority_threshold.value = 10000;
  return args;
}

struct BalanceRun {
  PlanFixture f;
  policy::DefaultEvictorArgs evictor = seed_evictor();
  std::string scope_node_selector;

  // Builds the fixture and runs `plugin(args, scope, ctx)`; returns the moves.
  template <typename Args>
  std::vector<std::string> run(void (*plugin)(const Args&, const strategies::ProfileScope&,
                                              strategies::PlanContext&),
                               const Args& args) {
    f.build();
    strategies::EvictionFilter filter = f.filter(evictor);
    strategies::ProfileScope scope{"balance", &filter, true, scope_node_selector};
    plugin(args, scope, f.ctx());
    return moves();
  }

  std::vector<std::string> moves() const {
    std::vector<std::string> out;
    for (const strategies::EvictionDecision& e : f.plan.evictions) {
      std::string target =
          e.target == placement::kNoNode ? "-" : f.snapshot.nodes[e.target].meta.name;
      out.push_back(f.snapshot.pods[e.pod].meta.name + "->" + target);
    }
    return out;
  }

  const strategies::NodeState& node(const std::string& name) const {
    return f.plan.nodes[f.node(name)];
  }
  strategies::NodeClass node_class(const std::string& name) const {
    return node(name).node_class;
  }
  std::string reason(size_t eviction) const { return f.plan.evictions.at(eviction).reason; }
  std::string skip(const std::string& pod) const { return f.skip_reason(pod); }
  bool noted(const std::string& text) const {
    for (const std::string& note : f.plan.notes) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

}  // namespace loadshift::testing
