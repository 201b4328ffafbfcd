// The leader-election durations: what check_leader_election refuses, and the Lease's seconds.
#include <catch2/catch.hpp>

#include "controller/leader_election.h"

using Catch::Matchers::Contains;
using loadshift::controller::check_leader_election;
using loadshift::controller::LeaderElectionConfig;
using loadshift::controller::lease_duration_seconds;
using std::chrono::milliseconds;

TEST_CASE("leader election durations") {
  LeaderElectionConfig c;  // the descheduler's 15s / 10s / 2s
  CHECK(check_leader_election(c).empty());
  CHECK(lease_duration_seconds(c) == 15);

  c.lease_duration = milliseconds(1500);
  c.renew_deadline = milliseconds(400);
  c.retry_period = milliseconds(200);
  CHECK(check_leader_election(c).empty());
  CHECK(lease_duration_seconds(c) == 2);  // rounded up: never shorter than this replica thinks

  c.renew_deadline = milliseconds(1200);  // a margin of 0.3 s for an eviction request
  CHECK_THAT(check_leader_election(c), Contains("at least 1s longer than"));
  c.lease_duration = milliseconds(900);
  c.renew_deadline = milliseconds(400);
  CHECK_THAT(check_leader_election(c), Contains("at least 1s"));
  c.lease_duration = milliseconds(15000);
  c.renew_deadline = milliseconds(200);
  CHECK_THAT(check_leader_election(c), Contains("longer than --leader-elect-retry-period"));
  c.renew_deadline = milliseconds(10000);
  c.retry_period = milliseconds(0);
  CHECK_THAT(check_leader_election(c), Contains("more than 0"));
}
