// PodLifeTime, RemovePodsHavingTooManyRestarts and RemoveFailedPods: the examples of upstream's
// README (descheduler v0.30-v0.36) with their documented outcome, and loadshift's rules on top:
// running pods need a target, finished ones go without one, limits and order hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "model/rfc3339.h"
#include "strategies/predicted_usage.h"
#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// One "now" for the timestamps and the plan (two reads of the clock could straddle a second).
const std::chrono::system_clock::time_point kNow =
    std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());

std::string created_ago(std::chrono::seconds ago) {
  return model::format_rfc3339(kNow - ago);
}

constexpr std::chrono::hours kHour{1};

// A ReplicaSet pod on `node`, created `age` ago.
Pod aged(const std::string& name, const std::string& node, std::chrono::seconds age,
         const std::string& ns = "apps") {
  Pod pod = workload_pod(name, 500, node, ns);
  pod.phase = PodPhase::kRunning;
  pod.meta.creation_timestamp = created_ago(age);
  return pod;
}

ContainerStatus restarted(int32_t count, const std::string& waiting = "") {
  ContainerStatus status;
  status.restart_count = count;
  status.waiting_reason = waiting;
  return status;
}

ContainerStatus exited(int32_t code, const std::string& reason = "") {
  ContainerStatus status;
  status.terminated = true;
  status.exit_code = code;
  status.terminated_reason = reason;
  return status;
}

// te1 and te2, both with room.
DescheduleSetup two_nodes() {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("te1"), make_node("te2")};
  setup.now = kNow;
  return setup;
}

template <typename Args, typename Run>
DescheduleOutcome run_with(const DescheduleSetup& setup, const Args& args, Run run) {
  return run_deschedule(setup, [&](const strategies::ProfileScope& scope,
                                   strategies::PlanContext& ctx) { run(args, scope, ctx); });
}

DescheduleOutcome lifetime(const DescheduleSetup& setup, const policy::PodLifeTimeArgs& args) {
  return run_with(setup, args, strategies::run_pod_lifetime);
}
DescheduleOutcome restarts(const DescheduleSetup& setup, const policy::TooManyRestartsArgs& args) {
  return run_with(setup, args, strategies::run_too_many_restarts);
}
DescheduleOutcome failed(const DescheduleSetup& setup, const policy::FailedPodsArgs& args) {
  return run_with(setup, args, strategies::run_failed_pods);
}

}  // namespace

TEST_CASE("PodLifeTime: older than maxPodLifeTimeSeconds, in one of the states (README)",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup = two_nodes();
  Pod pending = aged("pending-25h", "te1", 25 * kHour);
  pending.phase = PodPhase::kPending;
  Pod initializing = aged("initializing-25h", "te1", 25 * kHour);
  initializing.container_statuses = {restarted(0, "PodInitializing")};
  Pod running = aged("running-25h", "te1", 25 * kHour);
  Pod young = aged("pending-23h", "te1", 23 * kHour);
  young.phase = PodPhase::kPending;
  Pod exact = aged("pending-exact", "te1", std::chrono::seconds(86400));
  exact.phase = PodPhase::kPending;
  setup.snapshot.pods = {pending, initializing, running, young, exact};
  policy::PodLifeTimeArgs args;
  args.max_pod_life_time_seconds = 86400;
  args.states = {"Pending", "PodInitializing"};
  DescheduleOutcome out = lifetime(setup, args);
  // Both are 25 h old: creation order decides (the same second here), then the node's order.
  CHECK(out.moves == Moves{"pending-25h->te2", "initializing-25h->te2"});
  CHECK_THAT(out.reasons["pending-25h"],
             StartsWith("te1: age 25h > maxPodLifeTimeSeconds 86400, phase Pending -> te2"));
  CHECK_THAT(out.reasons["initializing-25h"], Contains("a container waiting with PodInitializing"));
  // Running without a matching state, too young, exactly the limit (strictly older only): not
  // selected at all.
  CHECK(out.skips.empty());
}

TEST_CASE("PodLifeTime: oldest first across nodes; the total limit keeps the rest",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup = two_nodes();
  setup.snapshot.nodes.push_back(make_node("te3"));
  setup.snapshot.pods = {aged("b-30h", "te1", 30 * kHour), aged("a-40h", "te2", 40 * kHour),
                         aged("c-35h", "te1", 35 * kHour), aged("d-1h", "te2", kHour)};
  policy::PodLifeTimeArgs args;
  args.max_pod_life_time_seconds = 86400;
  DescheduleOutcome all = lifetime(setup, args);
  REQUIRE(all.moves.size() == 3);
  CHECK_THAT(all.moves[0], StartsWith("a-40h->"));
  CHECK_THAT(all.moves[1], StartsWith("c-35h->"));
  CHECK_THAT(all.moves[2], StartsWith("b-30h->"));

  setup.policy.max_pods_to_evict_total = 1;
  DescheduleOutcome one = lifetime(setup, args);
  REQUIRE(one.moves.size() == 1);
  CHECK_THAT(one.moves[0], StartsWith("a-40h->"));
  // As upstream, the plugin stops at the total limit: the pod it stops at is skipped with the
  // limit, the rest are one note.
  REQUIRE(one.skips.size() == 1);
  CHECK_THAT(one.skips["c-35h"], Contains("maxNoOfPodsToEvictTotal"));
  CHECK(std::count(one.plan.notes.begin(), one.plan.notes.end(),
                   "profile test: PodLifeTime: 1 more pod(s) selected, not evicted: "
                   "maxNoOfPodsToEvictTotal reached") == 1);
}

TEST_CASE("PodLifeTime: namespaces, labelSelector, ownerKinds and exit codes narrow the choice",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup = two_nodes();
  Pod redis = aged("redis", "te1", 30 * kHour, "namespace1");
  redis.meta.labels.set("component", "redis");
  redis.meta.labels.set("tier", "cache");
  Pod redis_dev = aged("redis-dev", "te1", 30 * kHour, "namespace1");
  redis_dev.meta.labels.set("component", "redis");
  redis_dev.meta.labels.set("tier", "cache");
  redis_dev.meta.labels.set("environment", "dev");
  Pod elsewhere = aged("elsewhere", "te1", 30 * kHour, "other");
  elsewhere.meta.labels = redis.meta.labels;
  setup.snapshot.pods = {redis, redis_dev, elsewhere};

  policy::PodLifeTimeArgs args;
  args.max_pod_life_time_seconds = 86400;
  args.namespaces.include = {"namespace1", "namespace2"};
  model::LabelSelector selector;
  selector.match_labels.set("component", "redis");
  selector.match_expressions.push_back({"tier", "In", {"cache"}});
  selector.match_expressions.push_back({"environment", "NotIn", {"dev"}});
  args.label_selector = selector;
  CHECK(lifetime(setup, args).moves == Moves{"redis->te2"});

  args.namespaces = {};
  args.label_selector.reset();
  args.owner_kinds.exclude = {"ReplicaSet"};
  CHECK(lifetime(setup, args).moves.empty());
  args.owner_kinds = {{"ReplicaSet"}, {}};
  CHECK(lifetime(setup, args).moves.size() == 3);

  args.owner_kinds = {};
  setup.snapshot.pods[0].container_statuses = {exited(137, "OOMKilled")};
  args.exit_codes = {137};
  DescheduleOutcome by_code = lifetime(setup, args);
  CHECK(by_code.moves == Moves{"redis->te2"});
  CHECK_THAT(by_code.reasons["redis"], Contains("exit code 137"));
}

TEST_CASE("PodLifeTime: a finished pod goes without a target; a running one needs one",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("te1")};  // nowhere else to go
  setup.now = kNow;
  Pod done = aged("done", "te1", 30 * kHour);
  done.phase = PodPhase::kSucceeded;
  Pod running = aged("running", "te1", 30 * kHour);
  setup.snapshot.pods = {done, running};
  policy::PodLifeTimeArgs args;
  args.max_pod_life_time_seconds = 86400;
  DescheduleOutcome out = lifetime(setup, args);
  CHECK(out.moves == Moves{"done->-"});
  CHECK_THAT(out.reasons["done"], Contains("finished, nothing to place"));
  CHECK_THAT(out.skips["running"], StartsWith("no node fits: te1: age 30h"));

  args.max_pod_life_time_seconds.reset();
  args.states = {"Succeeded"};
  CHECK(lifetime(setup, args).moves == Moves{"done->-"});
}

TEST_CASE("PodLifeTime: a pod without a readable creation time is never old enough",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup = two_nodes();
  Pod unknown = aged("unknown", "te1", 30 * kHour);
  unknown.meta.creation_timestamp = "";
  Pod future = aged("future", "te1", 30 * kHour);
  future.meta.creation_timestamp = created_ago(-2 * kHour);
  setup.snapshot.pods = {unknown, future};
  policy::PodLifeTimeArgs args;
  args.max_pod_life_time_seconds = 60;
  CHECK(lifetime(setup, args).moves.empty());
}

// A condition that changed `ago` before kNow.
model::PodConditions::Condition changed(std::string_view type, std::string_view status,
                                        std::string_view reason, std::chrono::seconds ago) {
  return {
      type, status, reason,
      std::chrono::duration_cast<std::chrono::seconds>((kNow - ago).time_since_epoch()).count()};
}

TEST_CASE("PodLifeTime: conditions with minTimeSinceLastTransitionSeconds (README, v0.36)",
          "[pod_status][pod_lifetime]") {
  // The README's example: Succeeded pods whose PodCompleted condition is 4 hours old or older,
  // Jobs excluded.
  DescheduleSetup setup = two_nodes();
  auto completed = [&](const std::string& name, std::optional<std::chrono::seconds> ago) {
    Pod pod = aged(name, "te1", 30 * kHour);
    pod.phase = PodPhase::kSucceeded;
    pod.conditions.add(changed("PodScheduled", "True", "", 30 * kHour));
    if (ago) {
      pod.conditions.add(changed("Initialized", "True", "PodCompleted", *ago));
    } else {
      pod.conditions.add({"Initialized", "True", "PodCompleted", std::nullopt});
    }
    pod.conditions.add(changed("Ready", "False", "PodCompleted", 5 * kHour));
    return pod;
  };
  Pod idle = completed("idle-5h", 5 * kHour);
  Pod exact = completed("idle-exact", std::chrono::seconds(14400));
  Pod recent = completed("idle-3h", 3 * kHour);
  Pod no_time = completed("no-time", std::nullopt);
  Pod future = completed("future", -kHour);
  Pod job = completed("job-5h", 5 * kHour);
  job.owners.edit()[0].kind = "Job";
  Pod running = aged("running", "te1", 30 * kHour);
  running.conditions.add(changed("Initialized", "True", "PodCompleted", 5 * kHour));
  setup.snapshot.pods = {idle, exact, recent, no_time, future, job, running};

  policy::PodLifeTimeArgs args;
  args.states = {"Succeeded"};
  args.conditions = {{"", "True", "PodCompleted", 14400}};
  args.owner_kinds.exclude = {"Job"};
  DescheduleOutcome out = lifetime(setup, args);
  // Upstream's check is "seconds since the transition >= the minimum": the exact one counts.
  CHECK(out.moves == Moves{"idle-5h->-", "idle-exact->-"});
  CHECK_THAT(out.reasons["idle-5h"],
             Contains("phase Succeeded, condition Initialized=True (PodCompleted) for 5h; "
                      "finished, nothing to place"));
  CHECK(out.skips.empty());

  // Without the minimum every Succeeded pod with such a condition qualifies, Jobs still out.
  args.conditions[0].min_time_since_last_transition_seconds.reset();
  CHECK(lifetime(setup, args).moves.size() == 5);

  // Filters are ORed; in one filter every field given must match.
  args.states.clear();
  args.owner_kinds = {};
  args.conditions = {{"Ready", "True", "PodCompleted", std::nullopt}, {"Ready", "", "", 4 * 3600}};
  DescheduleOutcome by_ready = lifetime(setup, args);
  CHECK(by_ready.moves.size() == 6);  // every completed pod: Ready changed 5 h ago
  CHECK(by_ready.reasons.count("running") == 0);
  CHECK_THAT(by_ready.reasons["idle-3h"], Contains("condition Ready=False (PodCompleted) for 5h"));
  args.conditions = {{"Ready", "True", "PodCompleted", std::nullopt}};
  CHECK(lifetime(setup, args).moves.empty());

  // With maxPodLifeTimeSeconds too, all filters must hold.
  args.conditions = {{"Initialized", "", "", std::nullopt}};
  args.max_pod_life_time_seconds = 40 * 3600;
  CHECK(lifetime(setup, args).moves.empty());
}

TEST_CASE("PodLifeTime: ephemeral containers' states count with includingEphemeralContainers",
          "[pod_status][pod_lifetime]") {
  DescheduleSetup setup = two_nodes();
  Pod debugged = aged("debugged", "te1", 30 * kHour);
  debugged.ephemeral_container_statuses = {restarted(0, "ImagePullBackOff")};
  Pod init_stuck = aged("init-stuck", "te1", 30 * kHour);
  init_stuck.init_container_statuses = {restarted(0, "ImagePullBackOff")};
  setup.snapshot.pods = {debugged, init_stuck};
  policy::PodLifeTimeArgs args;
  args.states = {"ImagePullBackOff"};
  CHECK(lifetime(setup, args).moves.empty());
  args.including_ephemeral_containers = true;
  DescheduleOutcome out = lifetime(setup, args);
  CHECK(out.moves == Moves{"debugged->te2"});
  CHECK_THAT(out.reasons["debugged"],
             Contains("an ephemeral container waiting with ImagePullBackOff"));
  args.including_init_containers = true;
  CHECK(lifetime(setup, args).moves.size() == 2);
  // Exit codes never read ephemeral containers (as upstream).
  args.states.clear();
  args.exit_codes = {1};
  setup.snapshot.pods[0].ephemeral_container_statuses = {exited(1, "Error")};
  CHECK(lifetime(setup, args).moves.empty());
}

TEST_CASE(
    "RemovePodsHavingTooManyRestarts: restarts >= the threshold, init containers when asked "
    "(README)",
    "[pod_status][too_many_restarts]") {
  DescheduleSetup setup = two_nodes();
  Pod split = aged("split", "te1", kHour);
  split.container_statuses = {restarted(60)};
  split.init_container_statuses = {restarted(40)};
  Pod exact = aged("exact", "te1", kHour);
  exact.container_statuses = {restarted(50), restarted(50)};
  Pod few = aged("few", "te1", kHour);
  few.container_statuses = {restarted(99)};
  Pod most = aged("most", "te1", kHour);
  most.container_statuses = {restarted(500)};
  setup.snapshot.pods = {split, exact, few, most};

  policy::TooManyRestartsArgs args;
  args.pod_restart_threshold = 100;
  args.including_init_containers = true;
  DescheduleOutcome out = restarts(setup, args);
  // Most restarts first; 99 stays.
  CHECK(out.moves == Moves{"most->te2", "split->te2", "exact->te2"});
  CHECK_THAT(out.reasons["split"], StartsWith("te1: 100 restarts >= podRestartThreshold 100"));

  args.including_init_containers = false;
  CHECK(restarts(setup, args).moves == Moves{"most->te2", "exact->te2"});
}

TEST_CASE("RemovePodsHavingTooManyRestarts: states match the phase or a waiting reason",
          "[pod_status][too_many_restarts]") {
  DescheduleSetup setup = two_nodes();
  Pod crashing = aged("crashing", "te1", kHour);
  crashing.container_statuses = {restarted(150, "CrashLoopBackOff")};
  Pod running = aged("running", "te1", kHour);  // phase Running, not in the states
  running.container_statuses = {restarted(150)};
  Pod init_crashing = aged("init-crashing", "te1", kHour);
  init_crashing.phase = PodPhase::kPending;
  init_crashing.init_container_statuses = {restarted(150, "CrashLoopBackOff")};
  setup.snapshot.pods = {crashing, running, init_crashing};
  policy::TooManyRestartsArgs args;
  args.pod_restart_threshold = 100;
  args.including_init_containers = true;
  args.states = {"CrashLoopBackOff"};
  DescheduleOutcome out = restarts(setup, args);
  CHECK(out.moves == Moves{"crashing->te2", "init-crashing->te2"});
  CHECK_THAT(out.reasons["crashing"], Contains("a container waiting with CrashLoopBackOff"));
}

TEST_CASE("RemoveFailedPods: Failed, old enough, reasons and exit codes, owner kinds (README)",
          "[pod_status][failed_pods]") {
  DescheduleSetup setup = two_nodes();
  auto failed_pod = [](const std::string& name, std::chrono::seconds age) {
    Pod pod = aged(name, "te1", age);
    pod.phase = PodPhase::kFailed;
    pod.reason = "NodeAffinity";
    pod.init_container_statuses = {exited(1, "Error")};
    return pod;
  };
  Pod match = failed_pod("match", 2 * kHour);
  Pod other_code = failed_pod("other-code", 2 * kHour);
  other_code.init_container_statuses = {exited(2, "Error")};
  Pod job = failed_pod("job", 2 * kHour);
  job.owners = {{"batch/v1", "Job", "j", "uid-j", true}};
  Pod young = failed_pod("young", std::chrono::minutes(30));
  Pod running = failed_pod("running", 2 * kHour);
  running.phase = PodPhase::kRunning;
  setup.snapshot.pods = {match, other_code, job, young, running};

  policy::FailedPodsArgs args;
  args.reasons = {"NodeAffinity"};
  args.exit_codes = {1};
  args.including_init_containers = true;
  args.exclude_owner_kinds = {"Job"};
  args.min_pod_lifetime_seconds = 3600;
  DescheduleOutcome out = failed(setup, args);
  CHECK(out.moves == Moves{"match->-"});
  CHECK_THAT(out.reasons["match"],
             StartsWith("te1: failed (NodeAffinity), age 2h, reason NodeAffinity, exit code 1"));

  // Exit codes of init containers count only with includingInitContainers.
  args.including_init_containers = false;
  CHECK(failed(setup, args).moves.empty());
}

TEST_CASE("RemoveFailedPods: container reasons; the 3600 s default; bare pods stay protected",
          "[pod_status][failed_pods]") {
  DescheduleSetup setup = two_nodes();
  Pod config_error = aged("config-error", "te1", 2 * kHour);
  config_error.phase = PodPhase::kFailed;
  config_error.container_statuses = {restarted(0, "CreateContainerConfigError")};
  Pod out_of_cpu = aged("out-of-cpu", "te1", 2 * kHour);
  out_of_cpu.phase = PodPhase::kFailed;
  out_of_cpu.reason = "OutOfcpu";
  Pod fresh = aged("fresh", "te1", std::chrono::minutes(59));
  fresh.phase = PodPhase::kFailed;
  Pod bare = aged("bare", "te1", 2 * kHour);
  bare.phase = PodPhase::kFailed;
  bare.owners.edit().clear();
  setup.snapshot.pods = {config_error, out_of_cpu, fresh, bare};

  policy::FailedPodsArgs args;  // minPodLifetimeSeconds 3600 by default
  DescheduleOutcome out = failed(setup, args);
  CHECK(out.moves == Moves{"config-error->-", "out-of-cpu->-"});
  CHECK_THAT(out.skips["bare"], Contains("no owner"));

  args.reasons = {"OutOfcpu", "CreateContainerConfigError"};
  args.min_pod_lifetime_seconds = 0;
  CHECK(failed(setup, args).moves == Moves{"config-error->-", "out-of-cpu->-"});
  args.reasons = {"OutOfcpu"};
  CHECK(failed(setup, args).moves == Moves{"out-of-cpu->-"});

  setup.evictor.protections.failed_bare = false;
  args.reasons.clear();
  CHECK(failed(setup, args).moves ==
        Moves{"config-error->-", "out-of-cpu->-", "fresh->-", "bare->-"});
}

TEST_CASE("a finished pod's eviction frees nothing in the predicted usage", "[pod_status]") {
  // Its node never counted it (no usage, no requests): a balance plugin after RemoveFailedPods
  // must not see the node relieved by it.
  model::Snapshot snapshot;
  snapshot.nodes = {make_node("te1", 32000), make_node("te2", 32000)};
  Pod failed = workload_pod("failed", 4000, "te1");
  failed.phase = PodPhase::kFailed;
  Pod moved = workload_pod("moved", 4000, "te1");
  snapshot.pods = {failed, moved};
  strategies::Plan plan;
  plan.evictions = {{0, 0, placement::kNoNode, "p", "RemoveFailedPods", ""},
                    {1, 0, 1, "p", "PodLifeTime", ""}};
  strategies::PredictedUsage usage(snapshot, {"cpu", "memory"});
  usage.set(0, {{"cpu", 50}, {"memory", 50}});
  usage.set(1, {{"cpu", 10}, {"memory", 10}});
  for (const strategies::EvictionDecision& e : plan.evictions) {
    usage.apply(e, strategies::PodAmounts{.cpu_milli = 4000});
  }
  CHECK(usage.of(0).at("cpu") == Approx(37.5));  // only the running pod's 4 of 32 cores left
  CHECK(usage.of(1).at("cpu") == Approx(22.5));
}
